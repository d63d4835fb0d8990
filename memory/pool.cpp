// SPDX-License-Identifier: MIT
// Size-class sub-allocator over GPU-visible chunks (kernel arguments, signals, small buffers).
#include "memory/pool.h"

#include <algorithm>
#include <bit>
#include <cerrno>

namespace mem {

Pool::Pool(std::string name, size_t chunk_size, ChunkAlloc alloc, ChunkFree free)
    : name_(std::move(name)),
      chunk_size_(std::bit_ceil(std::max(chunk_size, size_t(64) << 10))),
      alloc_(std::move(alloc)),
      free_(std::move(free)) {
  free_lists_.resize(class_of(max_block()) + 1);
  uncut_.resize(free_lists_.size());
}

Pool::~Pool() {
  for (auto& [base, c] : chunks_) free_(base);
}

unsigned Pool::class_of(size_t size) {
  size_t s = std::bit_ceil(std::max(size, kMinBlock));
  return unsigned(std::countr_zero(s) - std::countr_zero(kMinBlock));
}

base::Status Pool::grow(unsigned cls) {
  KFD_ASSIGN(uintptr_t base, alloc_(chunk_size_));
  chunks_[base] = Chunk{base, cls, 0};
  uncut_[cls] = Uncut{base, base + chunk_size_};  // blocks handed out in address order
  return {};
}

base::Result<uintptr_t> Pool::allocate(size_t size, size_t alignment) {
  if (size == 0) return base::Error::msg(name_ + " pool: zero-size allocation", EINVAL);
  if (alignment != 0 && (alignment & (alignment - 1)) != 0)
    return base::Error::msg(name_ + " pool: alignment " + base::hex(alignment) +
                               " is not a power of two", EINVAL);
  size_t need = std::max(size, alignment);
  if (need > max_block())
    return base::Error::msg(name_ + " pool: " + std::to_string(size) +
                               " bytes exceed the largest block (" +
                               std::to_string(max_block()) + ")", E2BIG);
  unsigned cls = class_of(need);
  std::lock_guard lk(mu_);
  auto& fl = free_lists_[cls];
  uintptr_t p;
  if (!fl.empty()) {
    p = fl.back();
    fl.pop_back();
  } else {
    if (uncut_[cls].next == uncut_[cls].end) KFD_TRY(grow(cls));
    p = uncut_[cls].next;
    uncut_[cls].next += kMinBlock << cls;
  }
  live_[p] = Live{kMinBlock << cls, nullptr};
  auto it = std::prev(chunks_.upper_bound(p));
  it->second.used++;
  return p;
}

base::Status Pool::free(uintptr_t p) {
  std::lock_guard lk(mu_);
  auto it = live_.find(p);
  if (it == live_.end()) {
    bool ours = !chunks_.empty() && p >= chunks_.begin()->first &&
                std::prev(chunks_.upper_bound(p))->first + chunk_size_ > p;
    return base::Error::msg(name_ + " pool: " + base::hex(p) +
                               (ours ? " is not a live block (double free?)"
                                     : " was not allocated from this pool"), EINVAL);
  }
  unsigned cls = class_of(it->second.size);
  live_.erase(it);
  free_lists_[cls].push_back(p);
  std::prev(chunks_.upper_bound(p))->second.used--;
  return {};
}

bool Pool::find(uintptr_t p, Block* out) const {
  std::lock_guard lk(mu_);
  auto it = live_.upper_bound(p);
  if (it == live_.begin()) return false;
  --it;
  if (p >= it->first + it->second.size) return false;
  if (out) *out = Block{it->first, it->second.size, it->second.tag};
  return true;
}

bool Pool::set_tag(uintptr_t p, std::shared_ptr<void> tag) {
  std::lock_guard lk(mu_);
  auto it = live_.upper_bound(p);
  if (it == live_.begin()) return false;
  --it;
  if (p >= it->first + it->second.size) return false;
  it->second.tag = std::move(tag);
  return true;
}

size_t Pool::trim() {
  std::lock_guard lk(mu_);
  size_t n = 0;
  for (auto it = chunks_.begin(); it != chunks_.end();) {
    if (it->second.used != 0) { ++it; continue; }
    uintptr_t base = it->first;
    auto& fl = free_lists_[it->second.cls];
    fl.erase(std::remove_if(fl.begin(), fl.end(),
                            [&](uintptr_t b) { return b >= base && b < base + chunk_size_; }),
             fl.end());
    Uncut& u = uncut_[it->second.cls];
    if (u.next >= base && u.next < base + chunk_size_) u = Uncut{};
    free_(base);
    it = chunks_.erase(it);
    ++n;
  }
  return n;
}

size_t Pool::live_blocks() const {
  std::lock_guard lk(mu_);
  return live_.size();
}

size_t Pool::chunk_count() const {
  std::lock_guard lk(mu_);
  return chunks_.size();
}

}  // namespace mem
