// SPDX-License-Identifier: MIT
// AMD's HIP launch extensions: module launches with the grid in work-items, launches that record events.
#pragma once

#include "hip/hip_runtime.h"

#ifdef __cplusplus
#include <cstdint>
#include <tuple>
#include <utility>
#endif

// hipExtModuleLaunchKernel / hipExtLaunchKernel `flags`: the kernel may run out of stream order.
#define hipExtAnyOrderLaunch 0x01

#ifdef __cplusplus
// Like hipModuleLaunchKernel, but globalWorkSize* count work-items (a size that is not a multiple
// of the block ends in a partial block); startEvent / stopEvent, when not null, are recorded on
// the stream just before and just after the kernel. C++ functions, as HIP 5.2 declares them (its
// library exports them under their C++ names).
hipError_t hipExtModuleLaunchKernel(hipFunction_t f, uint32_t globalWorkSizeX, uint32_t globalWorkSizeY,
                                    uint32_t globalWorkSizeZ, uint32_t localWorkSizeX,
                                    uint32_t localWorkSizeY, uint32_t localWorkSizeZ,
                                    size_t sharedMemBytes, hipStream_t hStream, void** kernelParams,
                                    void** extra, hipEvent_t startEvent = NULL,
                                    hipEvent_t stopEvent = NULL, uint32_t flags = 0);
// The older name of hipExtModuleLaunchKernel.
hipError_t hipHccModuleLaunchKernel(hipFunction_t f, uint32_t globalWorkSizeX, uint32_t globalWorkSizeY,
                                    uint32_t globalWorkSizeZ, uint32_t localWorkSizeX,
                                    uint32_t localWorkSizeY, uint32_t localWorkSizeZ,
                                    size_t sharedMemBytes, hipStream_t hStream, void** kernelParams,
                                    void** extra, hipEvent_t startEvent = NULL,
                                    hipEvent_t stopEvent = NULL);
#endif

#ifdef __cplusplus
extern "C" {
#endif

// hipLaunchKernel (grid in blocks) with start / stop events as above.
hipError_t hipExtLaunchKernel(const void* function_address, dim3 numBlocks, dim3 dimBlocks, void** args,
                              size_t sharedMemBytes, hipStream_t stream, hipEvent_t startEvent,
                              hipEvent_t stopEvent, int flags);

#ifdef __cplusplus
}  // extern "C"

// The indices 0..N-1 as a pack. std::index_sequence is C++14, and ROCm's hip_ext.h compiles as
// C++11 (CMake projects with CXX_STANDARD 11 include it).
template <std::size_t... I>
struct __kfdrt_indices {};
template <std::size_t N, std::size_t... I>
struct __kfdrt_make_indices : __kfdrt_make_indices<N - 1, N - 1, I...> {};
template <std::size_t... I>
struct __kfdrt_make_indices<0, I...> {
  typedef __kfdrt_indices<I...> type;
};

// hipLaunchKernelGGL with events: the arguments are converted to the kernel's parameter types,
// then passed by address.
template <class... Params, class... Args, std::size_t... I>
inline void __kfdrt_ext_launch(void (*kernel)(Params...), const dim3& grid, const dim3& block,
                               std::uint32_t shared, hipStream_t stream, hipEvent_t start,
                               hipEvent_t stop, std::uint32_t flags, __kfdrt_indices<I...>,
                               Args&&... args) {
  std::tuple<Params...> values(static_cast<Params>(std::forward<Args>(args))...);
  void* pointers[sizeof...(Params) + 1] = {
      const_cast<void*>(static_cast<const void*>(&std::get<I>(values)))...};
  (void)hipExtLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, pointers, shared, stream,
                           start, stop, static_cast<int>(flags));
}

template <class... Params, class... Args>
inline void hipExtLaunchKernelGGL(void (*kernel)(Params...), const dim3& numBlocks, const dim3& dimBlocks,
                                  std::uint32_t sharedMemBytes, hipStream_t stream, hipEvent_t startEvent,
                                  hipEvent_t stopEvent, std::uint32_t flags, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "hipExtLaunchKernelGGL: wrong number of kernel arguments");
  __kfdrt_ext_launch(kernel, numBlocks, dimBlocks, sharedMemBytes, stream, startEvent, stopEvent, flags,
                     typename __kfdrt_make_indices<sizeof...(Params)>::type(), std::forward<Args>(args)...);
}

// A kernel template named without its template arguments (hipExtLaunchKernelGGL(vectorADD<>...)
// spelled as vectorADD): the instance whose parameters are the arguments' types, as HIP picks it.
template <class... Args, class F = void (*)(typename std::decay<Args>::type...)>
inline void hipExtLaunchKernelGGL(F kernel, const dim3& numBlocks, const dim3& dimBlocks,
                                  std::uint32_t sharedMemBytes, hipStream_t stream, hipEvent_t startEvent,
                                  hipEvent_t stopEvent, std::uint32_t flags, Args&&... args) {
  hipExtLaunchKernelGGL(static_cast<void (*)(typename std::decay<Args>::type...)>(kernel), numBlocks, dimBlocks,
                        sharedMemBytes, stream, startEvent, stopEvent, flags, std::forward<Args>(args)...);
}
#endif  // __cplusplus
