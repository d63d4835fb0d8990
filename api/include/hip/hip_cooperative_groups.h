// SPDX-License-Identifier: MIT
// Cooperative groups: thread_block, tiles (static and dynamic), coalesced groups, and the grid of a cooperative launch.
#pragma once

#include "hip/hip_runtime.h"

#if defined(__cplusplus) && defined(__HIP__)

// The grid barrier is ROCm's device library's (ockl, linked by kfdcc as by hipcc): the global wave
// sync a cooperative launch (hipLaunchCooperativeKernel) initialises for the grid's block count.
extern "C" __device__ void __ockl_grid_sync(void);
extern "C" __device__ int __ockl_grid_is_valid(void);
// The multi-device grid (hipLaunchCooperativeKernelMultiDevice), from the launch's multi-grid info.
extern "C" __device__ void __ockl_multi_grid_sync(void);
extern "C" __device__ int __ockl_multi_grid_is_valid(void);
extern "C" __device__ unsigned __ockl_multi_grid_num_grids(void);
extern "C" __device__ unsigned __ockl_multi_grid_grid_rank(void);
extern "C" __device__ unsigned __ockl_multi_grid_size(void);
extern "C" __device__ unsigned __ockl_multi_grid_thread_rank(void);

// hipLaunchCooperativeKernel initialises the GWS with a kernel of kfdrt's own (its blit
// kernels), as ROCclr does: code objects need nothing for it.

namespace cooperative_groups {

namespace __kfdrt_cg {
enum class kind : unsigned { block, tile, coalesced, grid };

__device__ inline unsigned block_rank() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
__device__ inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
__device__ inline void wave_sync() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
template <class T>
struct always_false {
  static constexpr bool value = false;
};
}  // namespace __kfdrt_cg

// Any group, by value: derived groups slice to it without losing what rank and sync need.
class thread_group {
 public:
  __device__ unsigned size() const { return size_; }
  __device__ unsigned num_threads() const { return size_; }
  __device__ bool is_valid() const { return size_ != 0; }
  __device__ unsigned thread_rank() const {
    switch (kind_) {
      case __kfdrt_cg::kind::block: return __kfdrt_cg::block_rank();
      case __kfdrt_cg::kind::tile: return __kfdrt_cg::block_rank() & (tile_ - 1);
      case __kfdrt_cg::kind::coalesced:
        return __builtin_popcountll(mask_ & ((1ull << __lane_id()) - 1));
      default:
        return ((blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * __kfdrt_cg::block_size() +
               __kfdrt_cg::block_rank();
    }
  }
  __device__ void sync() const {
    if (kind_ == __kfdrt_cg::kind::coalesced || (kind_ == __kfdrt_cg::kind::tile && tile_ <= warpSize))
      __kfdrt_cg::wave_sync();
    else
      __syncthreads();  // a block, or tiles wider than a wave (which all sync together)
  }

 protected:
  __device__ thread_group(__kfdrt_cg::kind k, unsigned size, unsigned tile = 0, unsigned long long mask = 0)
      : kind_(k), size_(size), tile_(tile), mask_(mask) {}
  __kfdrt_cg::kind kind_;
  unsigned size_, tile_;
  unsigned long long mask_;
  friend __device__ thread_group tiled_partition(const thread_group& parent, unsigned tile_size);
};

class thread_block : public thread_group {
 public:
  __device__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __device__ dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __device__ static void sync() { __syncthreads(); }
  __device__ unsigned thread_rank() const { return __kfdrt_cg::block_rank(); }

 private:
  __device__ thread_block() : thread_group(__kfdrt_cg::kind::block, __kfdrt_cg::block_size()) {}
  friend __device__ thread_block this_thread_block();
};

__device__ inline thread_block this_thread_block() { return thread_block(); }

// A power-of-two slice of a block, at most a wave wide when lane operations are used.
template <unsigned N>
class thread_block_tile : public thread_group {
  static_assert(N && (N & (N - 1)) == 0 && N <= 1024, "thread_block_tile: N must be a power of two <= 1024");

 public:
  __device__ thread_block_tile() : thread_group(__kfdrt_cg::kind::tile, N, N) {}
  __device__ static constexpr unsigned size() { return N; }
  __device__ static constexpr unsigned num_threads() { return N; }
  __device__ unsigned thread_rank() const { return __kfdrt_cg::block_rank() & (N - 1); }
  __device__ unsigned meta_group_rank() const { return __kfdrt_cg::block_rank() / N; }
  __device__ unsigned meta_group_size() const { return (__kfdrt_cg::block_size() + N - 1) / N; }
  __device__ void sync() const {
    if (N <= warpSize)
      __kfdrt_cg::wave_sync();
    else
      __syncthreads();
  }
  template <class T>
  __device__ T shfl(T v, int src) const { return __shfl(v, src, N); }
  template <class T>
  __device__ T shfl_up(T v, unsigned d) const { return __shfl_up(v, d, N); }
  template <class T>
  __device__ T shfl_down(T v, unsigned d) const { return __shfl_down(v, d, N); }
  template <class T>
  __device__ T shfl_xor(T v, int m) const { return __shfl_xor(v, m, N); }
  // The tile's lanes of a wave-wide vote, shifted down to bit 0.
  __device__ unsigned long long ballot(int p) const {
    unsigned base = __lane_id() & ~(N - 1) & 63u;
    unsigned long long tile_mask = N >= 64 ? ~0ull : ((1ull << N) - 1);
    return (__ballot(p) >> base) & tile_mask;
  }
  __device__ int any(int p) const { return ballot(p) != 0; }
  __device__ int all(int p) const {
    unsigned long long active = ballot(1);
    return ballot(p) == active;
  }
};

template <unsigned N, class Parent>
__device__ thread_block_tile<N> tiled_partition(const Parent&) {
  return thread_block_tile<N>();
}

// A tile whose size is known at run time: a power of two.
__device__ inline thread_group tiled_partition(const thread_group& parent, unsigned tile_size) {
  (void)parent;
  return thread_group(__kfdrt_cg::kind::tile, tile_size, tile_size);
}

// The lanes of the wave active where it is made.
class coalesced_group : public thread_group {
 public:
  template <class T>
  __device__ T shfl(T v, int rank) const {  // by rank among the active lanes
    return __shfl(v, int(__fns64(mask_, 0, rank + 1)));
  }
  __device__ unsigned long long ballot(int p) const { return __ballot(p) & mask_; }
  __device__ int any(int p) const { return ballot(p) != 0; }
  __device__ int all(int p) const { return ballot(p) == mask_; }

 private:
  __device__ explicit coalesced_group(unsigned long long m)
      : thread_group(__kfdrt_cg::kind::coalesced, unsigned(__builtin_popcountll(m)), 0, m) {}
  friend __device__ coalesced_group coalesced_threads();
};

__device__ inline coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

// The whole grid. sync() needs a cooperative launch (is_valid() says whether this is one); the
// acquire after the device library's barrier makes the other blocks' writes visible to this
// block's later loads (the library's fence comes before the barrier only).
class grid_group : public thread_group {
 public:
  __device__ bool is_valid() const { return __ockl_grid_is_valid() != 0; }
  __device__ void sync() const {
    __ockl_grid_sync();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
  }

 private:
  __device__ grid_group()
      : thread_group(__kfdrt_cg::kind::grid, __kfdrt_cg::block_size() * gridDim.x * gridDim.y * gridDim.z) {}
  friend __device__ grid_group this_grid();
};

__device__ inline grid_group this_grid() { return grid_group(); }

// Every grid of a hipLaunchCooperativeKernelMultiDevice launch, one per device. sync() waits for
// all their blocks; the system-scope acquire after it makes the other devices' writes visible.
class multi_grid_group : public thread_group {
 public:
  __device__ bool is_valid() const { return __ockl_multi_grid_is_valid() != 0; }
  __device__ unsigned num_grids() const { return __ockl_multi_grid_num_grids(); }
  __device__ unsigned grid_rank() const { return __ockl_multi_grid_grid_rank(); }
  __device__ unsigned thread_rank() const { return __ockl_multi_grid_thread_rank(); }
  __device__ void sync() const {
    __ockl_multi_grid_sync();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "");
  }

 private:
  __device__ multi_grid_group() : thread_group(__kfdrt_cg::kind::grid, __ockl_multi_grid_size()) {}
  friend __device__ multi_grid_group this_multi_grid();
};

__device__ inline multi_grid_group this_multi_grid() { return multi_grid_group(); }

template <class Group>
__device__ unsigned group_size(const Group& g) { return g.size(); }
template <class Group>
__device__ unsigned thread_rank(const Group& g) { return g.thread_rank(); }
template <class Group>
__device__ void sync(const Group& g) { g.sync(); }
template <class Group>
__device__ bool is_valid(const Group& g) { return g.is_valid(); }

}  // namespace cooperative_groups

#endif  // __cplusplus && __HIP__

#ifdef __cplusplus
extern "C" {
#endif
// Every block of the grid resident at once (hipErrorCooperativeLaunchTooLarge when more blocks
// than the device holds), so that grid_group::sync() can wait for all of them.
hipError_t hipLaunchCooperativeKernel(const void* f, dim3 gridDim, dim3 blockDimX, void** kernelParams,
                                      unsigned int sharedMemBytes, hipStream_t stream);
#ifdef __cplusplus
}
template <class R, class... A>
static inline hipError_t hipLaunchCooperativeKernel(R (*kernel)(A...), dim3 grid, dim3 block, void** params,
                                                    unsigned int shared, hipStream_t stream) {
  return hipLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), grid, block, params, shared, stream);
}
#endif
