// SPDX-License-Identifier: MIT
// Fault-safe copies between the emulator and caller memory, like the kernel's copy_{from,to}_user.
#pragma once

#include <sys/uio.h>
#include <unistd.h>

#include <cstddef>

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

// True when [p, p+n) is readable memory of this process.
inline bool user_range_ok(const void* p, size_t n) {
  unsigned char b;
  if (!p) return false;
  const unsigned char* c = static_cast<const unsigned char*>(p);
  const size_t step = 4096;
  for (size_t off = 0; off < n; off += step)
    if (!copy_from_user(&b, c + off, 1)) return false;
  return n == 0 || copy_from_user(&b, c + n - 1, 1);
}

}  // namespace emu
