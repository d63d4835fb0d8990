// SPDX-License-Identifier: MIT
// Sub-allocator: carves small blocks out of large chunks so small allocations cost no ioctl.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.h"

namespace mem {

// Power-of-two size classes from 64 bytes up to chunk_size / 8. Each chunk serves one class, so
// a block is naturally aligned to its class size. Blocks are tracked in an ordered map, so any
// interior pointer finds its block and a double free is caught.
class Pool {
 public:
  using ChunkAlloc = std::function<base::Result<uintptr_t>(size_t size)>;
  using ChunkFree = std::function<void(uintptr_t base)>;

  static constexpr size_t kMinBlock = 64;

  Pool(std::string name, size_t chunk_size, ChunkAlloc alloc, ChunkFree free);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Largest request the pool serves; larger ones should be direct allocations.
  size_t max_block() const { return chunk_size_ / 8; }
  const std::string& name() const { return name_; }

  base::Result<uintptr_t> allocate(size_t size, size_t alignment = 0);
  base::Status free(uintptr_t p);

  struct Block {
    uintptr_t base;
    size_t size;
    std::shared_ptr<void> tag;  // set_tag's, dropped with the block
  };
  // The live block containing `p`, if any.
  bool find(uintptr_t p, Block* out) const;
  // Attaches `tag` to the live block containing `p`; false when there is none.
  bool set_tag(uintptr_t p, std::shared_ptr<void> tag);

  // Releases chunks whose blocks are all free; returns how many.
  size_t trim();

  size_t live_blocks() const;
  size_t chunk_count() const;

 private:
  struct Chunk {
    uintptr_t base;
    unsigned cls;
    size_t used;
  };
  static unsigned class_of(size_t size);
  base::Status grow(unsigned cls);

  std::string name_;
  size_t chunk_size_;
  ChunkAlloc alloc_;
  ChunkFree free_;
  mutable std::mutex mu_;
  std::vector<std::vector<uintptr_t>> free_lists_;  // per class: blocks freed
  // Per class: the part of its newest chunk no block was cut from yet (blocks are cut when
  // needed: listing a 2 MiB chunk's 64-byte blocks up front took tens of microseconds).
  struct Uncut {
    uintptr_t next = 0, end = 0;
  };
  std::vector<Uncut> uncut_;
  std::map<uintptr_t, Chunk> chunks_;               // by base
  struct Live {
    size_t size;  // the class size
    std::shared_ptr<void> tag;
  };
  std::map<uintptr_t, Live> live_;                  // by block base
};

}  // namespace mem
