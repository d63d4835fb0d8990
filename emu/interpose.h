// SPDX-License-Identifier: MIT
// The real libc functions behind the interposed ones, for the emulator's own use.
#pragma once

#include <dirent.h>
#include <sys/types.h>

namespace emu {

int real_open(const char* path, int flags, mode_t mode = 0);
int real_mkdir(const char* path, mode_t mode);
DIR* real_opendir(const char* path);
void* real_mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off);

// This process's pid without a system call per use (every emulated ioctl checks its caller and
// copies its arguments by pid); a forked child's first call reads its own.
pid_t own_pid();

}  // namespace emu
