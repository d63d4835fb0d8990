// SPDX-License-Identifier: MIT
// libc interposition for libkfdemu.so (placeholder until the device lands).
