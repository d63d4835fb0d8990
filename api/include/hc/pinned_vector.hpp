// SPDX-License-Identifier: MIT
// hc::pinned_vector<T>: a std::vector whose storage is pinned host memory from am_alloc (amHostPinned).
#pragma once

#include "hc_am.hpp"

#include <new>
#include <vector>

namespace hc {

// A minimal allocator over am_alloc(amHostPinned) on the default accelerator.
template <class T> struct am_allocator {
  typedef T value_type;
  am_allocator() = default;
  template <class U> am_allocator(const am_allocator<U>&) {}

  T* allocate(size_t n) {
    hc::accelerator acc;
    T* p = hc::am_alloc(n * sizeof(T), acc, amHostPinned);
    if (!p && n) throw std::bad_alloc();
    return p;
  }
  // Cannot report failure from here; am_free of a tracked block does not fail in practice.
  void deallocate(T* p, size_t) { (void)hc::am_free(p); }
};

template <class T, class U> bool operator==(const am_allocator<T>&, const am_allocator<U>&) { return true; }
template <class T, class U> bool operator!=(const am_allocator<T>&, const am_allocator<U>&) { return false; }

template <class T> using pinned_vector = std::vector<T, am_allocator<T>>;

} // namespace hc
