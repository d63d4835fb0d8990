// SPDX-License-Identifier: MIT
// The emulator's backing store for GPU memory: one sparse memfd, mapped once into the emulator.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

namespace emu {

// Hands out page-aligned ranges of a large sparse memfd. The emulator keeps one shared mapping
// of the whole file, so every buffer has a stable host pointer; the runtime maps the same pages
// at the buffer's GPU address, so both views are the same memory.
class Arena {
 public:
  static Arena& get();

  // Returns the file offset of a new zero-filled range, or UINT64_MAX when the file is full.
  uint64_t allocate(uint64_t size);
  void release(uint64_t offset, uint64_t size);

  int fd() const { return fd_; }
  uint8_t* host(uint64_t offset) const { return base_ + offset; }
  uint64_t capacity() const { return capacity_; }

 private:
  Arena();
  int fd_ = -1;
  uint8_t* base_ = nullptr;
  uint64_t capacity_ = 0;
  std::mutex mu_;
  std::map<uint64_t, uint64_t> free_;  // offset -> size
};

}  // namespace emu
