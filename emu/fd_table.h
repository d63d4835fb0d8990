// SPDX-License-Identifier: MIT
// Which file descriptors belong to the emulated device (/dev/kfd, render nodes).
#pragma once

namespace emu {

enum class FdKind : unsigned char { None = 0, Kfd = 1, Render = 2 };

FdKind fd_kind(int fd);
// Render minor of a render-node fd, or -1.
int render_minor_of_fd(int fd);
// True when both fds refer to the same open of a render node (dup'd from one another).
bool render_fd_same_file(int a, int b);

}  // namespace emu
