// SPDX-License-Identifier: MIT
// Fault-safe copies between the emulator and caller memory, like the kernel's copy_{from,to}_user.
#pragma once

#include <sys/uio.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

#include "emu/interpose.h"

namespace emu {

// process_vm_readv/writev on our own pid fail with EFAULT instead of crashing on a bad pointer.
inline bool copy_from_user(void* dst, const void* src, size_t n) {
  if (n == 0) return true;
  if (!src) return false;
  iovec local{dst, n}, remote{const_cast<void*>(src), n};
  return process_vm_readv(own_pid(), &local, 1, &remote, 1, 0) == ssize_t(n);
}

inline bool copy_to_user(void* dst, const void* src, size_t n) {
  if (n == 0) return true;
  if (!dst) return false;
  iovec local{const_cast<void*>(src), n}, remote{dst, n};
  return process_vm_writev(own_pid(), &local, 1, &remote, 1, 0) == ssize_t(n);
}

// True when [p, p+n) is readable memory of this process: one byte of every page is read, up
// to 512 pages per system call (process_vm_readv stops at the first unreadable one).
inline bool user_range_ok(const void* p, size_t n) {
  if (!p) return false;
  if (n == 0) return true;
  constexpr size_t kPage = 4096, kBatch = 512;
  const uintptr_t first = reinterpret_cast<uintptr_t>(p) & ~(kPage - 1);
  const uintptr_t last = (reinterpret_cast<uintptr_t>(p) + n - 1) & ~(kPage - 1);
  unsigned char sink[kBatch];
  iovec local{sink, kBatch}, remote[kBatch];
  for (uintptr_t page = first; page <= last;) {
    size_t k = 0;
    for (; k < kBatch && page <= last; ++k, page += kPage) {
      const uintptr_t at = page < reinterpret_cast<uintptr_t>(p) ? reinterpret_cast<uintptr_t>(p) : page;
      remote[k] = iovec{reinterpret_cast<void*>(at), 1};
    }
    local.iov_len = k;
    if (process_vm_readv(getpid(), &local, 1, remote, k, 0) != ssize_t(k)) return false;
  }
  return true;
}

}  // namespace emu
