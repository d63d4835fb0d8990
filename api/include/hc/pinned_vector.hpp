// SPDX-License-Identifier: MIT
// hc::pinned_vector<T>: std::vector storage in pinned host memory (am_alloc, amHostPinned).
#pragma once

#include "hc_am.hpp"

#include <cstddef>
#include <limits>
#include <new>
#include <type_traits>
#include <vector>

namespace hc {

// Every instance draws from the default accelerator, so any two compare equal and storage moves
// freely between containers. Kernels may dereference the elements: the memory is GPU-mapped.
template <class T> class am_allocator {
 public:
  using value_type = T;
  using is_always_equal = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;

  constexpr am_allocator() noexcept = default;
  template <class U> constexpr am_allocator(const am_allocator<U>&) noexcept {}

  [[nodiscard]] T* allocate(std::size_t count) {
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
    hc::accelerator device;
    void* block = hc::am_alloc(count * sizeof(T), device, amHostPinned);
    if (block == nullptr && count != 0) throw std::bad_alloc();
    return static_cast<T*>(block);
  }

  // am_free only fails for memory it does not track, which vector never hands back.
  void deallocate(T* block, std::size_t) noexcept {
    if (block != nullptr) (void)hc::am_free(block);
  }

  template <class U> constexpr bool operator==(const am_allocator<U>&) const noexcept { return true; }
};

template <class T> using pinned_vector = std::vector<T, am_allocator<T>>;

}  // namespace hc
