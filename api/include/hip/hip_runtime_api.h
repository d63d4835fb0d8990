// SPDX-License-Identifier: MIT
// The HIP runtime API as kfdrt implements it: types plus the host functions (usable from C, C++ and HIP).
#pragma once

#include <stddef.h>
#include <stdint.h>
// Real HIP's header brings in <string.h> (memcpy, memset); programs rely on that. hc.hpp opts out
// with KFDRT_HIP_NO_STRING_H: glibc's <strings.h> declares a global function `index`, which
// makes `index<N>` ambiguous under `using namespace hc;`, the usual style of hc programs.
#ifndef KFDRT_HIP_NO_STRING_H
#include <string.h>
#endif

#include "hip/hip_version.h"
#include "hip/kfdrt/hip_common.h"
#include "hip/kfdrt/hip_types.h"
#include "hip/kfdrt/texture_types.h"

#ifdef __cplusplus
extern "C" {
#endif

// ---- Initialisation, versions, errors ----
hipError_t hipInit(unsigned int flags);
hipError_t hipDriverGetVersion(int* driverVersion);
hipError_t hipRuntimeGetVersion(int* runtimeVersion);
hipError_t hipGetLastError(void);
hipError_t hipPeekAtLastError(void);
const char* hipGetErrorName(hipError_t error);
const char* hipGetErrorString(hipError_t error);
hipError_t hipDrvGetErrorName(hipError_t error, const char** errorString);
hipError_t hipDrvGetErrorString(hipError_t error, const char** errorString);

// ---- Devices ----
hipError_t hipGetDeviceCount(int* count);
hipError_t hipSetDevice(int deviceId);
hipError_t hipGetDevice(int* deviceId);
hipError_t hipDeviceGet(hipDevice_t* device, int ordinal);
hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int deviceId);
// HIP 6's property layout (hipDeviceProp_tR0600), a kfdrt extension beside HIP 5.2's.
hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600* prop, int deviceId);
hipError_t hipDeviceGetAttribute(int* pi, hipDeviceAttribute_t attr, int deviceId);
hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device);
hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t device);
hipError_t hipDeviceComputeCapability(int* major, int* minor, hipDevice_t device);
hipError_t hipDeviceGetPCIBusId(char* pciBusId, int len, int device);
hipError_t hipDeviceGetByPCIBusId(int* device, const char* pciBusId);
hipError_t hipDeviceGetUuid(hipUUID* uuid, hipDevice_t device);
hipError_t hipDeviceSynchronize(void);
hipError_t hipDeviceReset(void);
hipError_t hipSetDeviceFlags(unsigned flags);
hipError_t hipGetDeviceFlags(unsigned int* flags);
hipError_t hipDeviceGetLimit(size_t* pValue, hipLimit_t limit);
hipError_t hipDeviceSetLimit(hipLimit_t limit, size_t value);
hipError_t hipDeviceGetCacheConfig(hipFuncCache_t* cacheConfig);
hipError_t hipDeviceSetCacheConfig(hipFuncCache_t cacheConfig);
hipError_t hipDeviceGetSharedMemConfig(hipSharedMemConfig* pConfig);
hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig config);
hipError_t hipDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority);
hipError_t hipDeviceCanAccessPeer(int* canAccessPeer, int deviceId, int peerDeviceId);
hipError_t hipDeviceGetP2PAttribute(int* value, hipDeviceP2PAttr attr, int srcDevice, int dstDevice);
// The device whose properties best match the non-zero fields of `prop` (compute capability
// first, then the multiprocessor count and the memory sizes).
hipError_t hipChooseDevice(int* device, const hipDeviceProp_t* prop);
hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags);
hipError_t hipDeviceDisablePeerAccess(int peerDeviceId);

// ---- Contexts (deprecated in HIP: a context stands for its device) ----
hipError_t hipCtxCreate(hipCtx_t* ctx, unsigned int flags, hipDevice_t device);
hipError_t hipCtxDestroy(hipCtx_t ctx);
hipError_t hipCtxPushCurrent(hipCtx_t ctx);
hipError_t hipCtxPopCurrent(hipCtx_t* ctx);
hipError_t hipCtxSetCurrent(hipCtx_t ctx);
hipError_t hipCtxGetCurrent(hipCtx_t* ctx);
hipError_t hipCtxGetDevice(hipDevice_t* device);
hipError_t hipCtxGetFlags(unsigned int* flags);
hipError_t hipCtxSynchronize(void);
hipError_t hipCtxGetCacheConfig(hipFuncCache_t* cacheConfig);
hipError_t hipCtxSetCacheConfig(hipFuncCache_t cacheConfig);
hipError_t hipCtxGetSharedMemConfig(hipSharedMemConfig* pConfig);
hipError_t hipCtxSetSharedMemConfig(hipSharedMemConfig config);
hipError_t hipCtxEnablePeerAccess(hipCtx_t peerCtx, unsigned int flags);
hipError_t hipCtxDisablePeerAccess(hipCtx_t peerCtx);
hipError_t hipDevicePrimaryCtxRetain(hipCtx_t* pctx, hipDevice_t dev);
hipError_t hipDevicePrimaryCtxRelease(hipDevice_t dev);
hipError_t hipDevicePrimaryCtxGetState(hipDevice_t dev, unsigned int* flags, int* active);
hipError_t hipDevicePrimaryCtxReset(hipDevice_t dev);
hipError_t hipDevicePrimaryCtxSetFlags(hipDevice_t dev, unsigned int flags);

// ---- Memory ----
hipError_t hipMalloc(void** ptr, size_t size);
hipError_t hipExtMallocWithFlags(void** ptr, size_t sizeBytes, unsigned int flags);
hipError_t hipMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height);
hipError_t hipMallocManaged(void** devPtr, size_t size, unsigned int flags __HIP_DEFAULT(hipMemAttachGlobal));
hipError_t hipFree(void* ptr);
hipError_t hipMallocHost(void** ptr, size_t size);
hipError_t hipMemAllocHost(void** ptr, size_t size);
hipError_t hipMemAllocPitch(hipDeviceptr_t* dptr, size_t* pitch, size_t widthInBytes, size_t height,
                            unsigned int elementSizeBytes);
hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags __HIP_DEFAULT(hipHostMallocDefault));
hipError_t hipHostAlloc(void** ptr, size_t size, unsigned int flags);
hipError_t hipHostFree(void* ptr);
hipError_t hipFreeHost(void* ptr);
hipError_t hipHostRegister(void* hostPtr, size_t sizeBytes, unsigned int flags);
hipError_t hipHostUnregister(void* hostPtr);
hipError_t hipHostGetDevicePointer(void** devPtr, void* hstPtr, unsigned int flags);
hipError_t hipHostGetFlags(unsigned int* flagsPtr, void* hostPtr);
hipError_t hipMemGetInfo(size_t* free, size_t* total);
hipError_t hipPointerGetAttributes(hipPointerAttribute_t* attributes, const void* ptr);
hipError_t hipMemPtrGetInfo(void* ptr, size_t* size);
hipError_t hipMemGetAddressRange(hipDeviceptr_t* pbase, size_t* psize, hipDeviceptr_t dptr);
hipError_t hipMemPrefetchAsync(const void* devPtr, size_t count, int device,
                               hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipMemAdvise(const void* devPtr, size_t count, hipMemoryAdvise advice, int device);
hipError_t hipMemRangeGetAttribute(void* data, size_t data_size, hipMemRangeAttribute attribute,
                                   const void* devPtr, size_t count);

hipError_t hipMemcpy(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind);
hipError_t hipMemcpyAsync(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind,
                          hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipMemcpyWithStream(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind,
                               hipStream_t stream);
hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void* src, size_t sizeBytes);
hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t sizeBytes);
hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes);
hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t sizeBytes, hipStream_t stream);
hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream);
hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes,
                              hipStream_t stream);
hipError_t hipMemcpyPeer(void* dst, int dstDeviceId, const void* src, int srcDeviceId,
                         size_t sizeBytes);
hipError_t hipMemcpyPeerAsync(void* dst, int dstDeviceId, const void* src, int srcDevice,
                              size_t sizeBytes, hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                       size_t height, hipMemcpyKind kind);
hipError_t hipMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                            size_t height, hipMemcpyKind kind, hipStream_t stream __HIP_DEFAULT(0));

// Pitched linear memory only (hipPitchedPtr / hip_Memcpy2D / HIP_MEMCPY3D with host or device
// pointers); a copy naming an array returns hipErrorNotSupported.
hipError_t hipMemcpy3D(const struct hipMemcpy3DParms* p);
hipError_t hipMemcpy3DAsync(const struct hipMemcpy3DParms* p, hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipMemcpyParam2D(const hip_Memcpy2D* pCopy);
hipError_t hipMemcpyParam2DAsync(const hip_Memcpy2D* pCopy, hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipDrvMemcpy3D(const HIP_MEMCPY3D* pCopy);
hipError_t hipDrvMemcpy3DAsync(const HIP_MEMCPY3D* pCopy, hipStream_t stream);
hipError_t hipMalloc3D(hipPitchedPtr* pitchedDevPtr, hipExtent extent);
hipError_t hipMemset3D(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent);
hipError_t hipMemset3DAsync(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent,
                            hipStream_t stream __HIP_DEFAULT(0));

hipError_t hipMemset(void* dst, int value, size_t sizeBytes);
hipError_t hipMemsetAsync(void* dst, int value, size_t sizeBytes, hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipMemsetD8(hipDeviceptr_t dest, unsigned char value, size_t count);
hipError_t hipMemsetD16(hipDeviceptr_t dest, unsigned short value, size_t count);
hipError_t hipMemsetD32(hipDeviceptr_t dest, int value, size_t count);
hipError_t hipMemsetD8Async(hipDeviceptr_t dest, unsigned char value, size_t count,
                            hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipMemsetD16Async(hipDeviceptr_t dest, unsigned short value, size_t count,
                             hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count,
                             hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipMemset2D(void* dst, size_t pitch, int value, size_t width, size_t height);
hipError_t hipMemset2DAsync(void* dst, size_t pitch, int value, size_t width, size_t height,
                            hipStream_t stream __HIP_DEFAULT(0));

// ---- Streams ----
hipError_t hipStreamCreate(hipStream_t* stream);
hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned int flags);
hipError_t hipStreamCreateWithPriority(hipStream_t* stream, unsigned int flags, int priority);
hipError_t hipStreamDestroy(hipStream_t stream);
hipError_t hipStreamSynchronize(hipStream_t stream);
hipError_t hipStreamQuery(hipStream_t stream);
hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags __HIP_DEFAULT(0));
hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback, void* userData,
                                unsigned int flags);
hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void* userData);
hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int* flags);
hipError_t hipStreamGetPriority(hipStream_t stream, int* priority);
// A stream whose kernels run on the compute units the mask enables: bit i of cuMask's
// cuMaskSize dwords is the i-th CU as amdkfd numbers them (the first CU of each shader engine in
// turn, then the second...); bits past multiProcessorCount are ignored; a mask that enables no
// CU is hipErrorInvalidValue. hipExtStreamGetCUMask writes the CUs a stream runs on.
hipError_t hipExtStreamCreateWithCUMask(hipStream_t* stream, uint32_t cuMaskSize, const uint32_t* cuMask);
hipError_t hipExtStreamGetCUMask(hipStream_t stream, uint32_t cuMaskSize, uint32_t* cuMask);
hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t* device);

// ---- Events ----
hipError_t hipEventCreate(hipEvent_t* event);
hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned flags);
hipError_t hipEventDestroy(hipEvent_t event);
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipEventSynchronize(hipEvent_t event);
hipError_t hipEventQuery(hipEvent_t event);
hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop);

// ---- Modules, functions, symbols ----
hipError_t hipModuleLoad(hipModule_t* module, const char* fname);
hipError_t hipModuleLoadData(hipModule_t* module, const void* image);
hipError_t hipModuleLoadDataEx(hipModule_t* module, const void* image, unsigned int numOptions,
                               hipJitOption* options, void** optionValues);
hipError_t hipModuleUnload(hipModule_t module);
hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* kname);
hipError_t hipModuleGetGlobal(hipDeviceptr_t* dptr, size_t* bytes, hipModule_t hmod, const char* name);
hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
                                 unsigned int gridDimZ, unsigned int blockDimX,
                                 unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, hipStream_t stream,
                                 void** kernelParams, void** extra);
hipError_t hipFuncGetAttribute(int* value, hipFunction_attribute attrib, hipFunction_t hfunc);
hipError_t hipFuncGetAttributes(hipFuncAttributes* attr, const void* func);
hipError_t hipFuncSetAttribute(const void* func, hipFuncAttribute attr, int value);
hipError_t hipFuncSetCacheConfig(const void* func, hipFuncCache_t config);
hipError_t hipFuncSetSharedMemConfig(const void* func, hipSharedMemConfig config);

hipError_t hipMemcpyToSymbol(const void* symbol, const void* src, size_t sizeBytes,
                             size_t offset __HIP_DEFAULT(0),
                             hipMemcpyKind kind __HIP_DEFAULT(hipMemcpyHostToDevice));
hipError_t hipMemcpyToSymbolAsync(const void* symbol, const void* src, size_t sizeBytes,
                                  size_t offset, hipMemcpyKind kind,
                                  hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipMemcpyFromSymbol(void* dst, const void* symbol, size_t sizeBytes,
                               size_t offset __HIP_DEFAULT(0),
                               hipMemcpyKind kind __HIP_DEFAULT(hipMemcpyDeviceToHost));
hipError_t hipMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t sizeBytes,
                                    size_t offset, hipMemcpyKind kind,
                                    hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipGetSymbolAddress(void** devPtr, const void* symbol);
hipError_t hipGetSymbolSize(size_t* size, const void* symbol);

// ---- Launch ----
hipError_t hipLaunchKernel(const void* function_address, dim3 numBlocks, dim3 dimBlocks,
                           void** args, size_t sharedMemBytes __HIP_DEFAULT(0),
                           hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem __HIP_DEFAULT(0),
                            hipStream_t stream __HIP_DEFAULT(0));
// A cooperative launch per device (each on its own device's stream), whose grids also sync with
// each other (multi_grid_group::sync()); flags hipCooperativeLaunchMultiDevice{NoPreSync,NoPostSync}.
hipError_t hipLaunchCooperativeKernelMultiDevice(hipLaunchParams* launchParamsList, int numDevices,
                                                 unsigned int flags);
// Ordinary kernels, one per device on its own stream, launched together (hip_ext.h's extension;
// the flags are the cooperative multi-device launch's pre- and post-sync switches).
hipError_t hipExtLaunchMultiKernelMultiDevice(hipLaunchParams* launchParamsList, int numDevices, unsigned int flags);
// What clang emits for kernel<<<...>>> (clang CGCUDANV.cpp).
hipError_t __hipPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem __HIP_DEFAULT(0),
                                    hipStream_t stream __HIP_DEFAULT(0));
hipError_t __hipPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem,
                                     hipStream_t* stream);
hipError_t hipOccupancyMaxPotentialBlockSize(int* gridSize, int* blockSize, const void* f,
                                             size_t dynSharedMemPerBlk, int blockSizeLimit);
hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* f,
                                                        int blockSize, size_t dynSharedMemPerBlk);
hipError_t hipModuleOccupancyMaxPotentialBlockSize(int* gridSize, int* blockSize, hipFunction_t f,
                                                   size_t dynSharedMemPerBlk, int blockSizeLimit);
#define hipOccupancyDefault 0x00
// The same with flags; hipOccupancyDefault is the only one (others: hipErrorInvalidValue).
hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* f, int blockSize,
                                                                 size_t dynSharedMemPerBlk,
                                                                 unsigned int flags __HIP_DEFAULT(hipOccupancyDefault));
hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, hipFunction_t f, int blockSize,
                                                              size_t dynSharedMemPerBlk);
hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, hipFunction_t f, int blockSize,
                                                                       size_t dynSharedMemPerBlk, unsigned int flags);
hipError_t hipModuleOccupancyMaxPotentialBlockSizeWithFlags(int* gridSize, int* blockSize, hipFunction_t f,
                                                            size_t dynSharedMemPerBlk, int blockSizeLimit,
                                                            unsigned int flags);
hipError_t hipProfilerStart(void);

// kfdrt extension: the coherence the memory layer gave the allocation holding `ptr` (1 for
// fine-grained / coherent, 0 for coarse-grained, 2 for uncached); hipErrorInvalidValue if none.
hipError_t kfdrtPointerGetCoherence(const void* ptr, int* coherence);
hipError_t hipProfilerStop(void);

#ifdef __cplusplus
}  // extern "C"

// C++ conveniences HIP provides: typed pointers, symbols by variable, kernels by function.
template <class T>
static inline hipError_t hipMalloc(T** ptr, size_t size) {
  return hipMalloc((void**)(ptr), size);
}
template <class T>
static inline hipError_t hipMallocPitch(T** ptr, size_t* pitch, size_t width, size_t height) {
  return hipMallocPitch((void**)(ptr), pitch, width, height);
}
template <class T>
static inline hipError_t hipMallocManaged(T** ptr, size_t size,
                                          unsigned int flags = hipMemAttachGlobal) {
  return hipMallocManaged((void**)(ptr), size, flags);
}
template <class T>
static inline hipError_t hipExtMallocWithFlags(T** ptr, size_t size, unsigned int flags) {
  return hipExtMallocWithFlags((void**)(ptr), size, flags);
}
template <class T>
static inline hipError_t hipHostMalloc(T** ptr, size_t size,
                                       unsigned int flags = hipHostMallocDefault) {
  return hipHostMalloc((void**)(ptr), size, flags);
}
template <class T>
static inline hipError_t hipMallocHost(T** ptr, size_t size) {
  return hipMallocHost((void**)(ptr), size);
}
template <class T>
static inline hipError_t hipHostAlloc(T** ptr, size_t size, unsigned int flags) {
  return hipHostAlloc((void**)(ptr), size, flags);
}
template <class T>
static inline hipError_t hipHostGetDevicePointer(T** devPtr, void* hostPtr, unsigned int flags) {
  return hipHostGetDevicePointer((void**)(devPtr), hostPtr, flags);
}
// Symbols are named by the variable itself (HIP_SYMBOL(x) is x).
template <class T>
static inline hipError_t hipMemcpyToSymbol(const T& symbol, const void* src, size_t sizeBytes,
                                           size_t offset = 0,
                                           hipMemcpyKind kind = hipMemcpyHostToDevice) {
  return hipMemcpyToSymbol(static_cast<const void*>(&symbol), src, sizeBytes, offset, kind);
}
template <class T>
static inline hipError_t hipMemcpyToSymbolAsync(const T& symbol, const void* src, size_t sizeBytes,
                                                size_t offset, hipMemcpyKind kind,
                                                hipStream_t stream = 0) {
  return hipMemcpyToSymbolAsync(static_cast<const void*>(&symbol), src, sizeBytes, offset, kind,
                                stream);
}
template <class T>
static inline hipError_t hipMemcpyFromSymbol(void* dst, const T& symbol, size_t sizeBytes,
                                             size_t offset = 0,
                                             hipMemcpyKind kind = hipMemcpyDeviceToHost) {
  return hipMemcpyFromSymbol(dst, static_cast<const void*>(&symbol), sizeBytes, offset, kind);
}
template <class T>
static inline hipError_t hipMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t sizeBytes,
                                                  size_t offset, hipMemcpyKind kind,
                                                  hipStream_t stream = 0) {
  return hipMemcpyFromSymbolAsync(dst, static_cast<const void*>(&symbol), sizeBytes, offset, kind,
                                  stream);
}
template <class T>
static inline hipError_t hipGetSymbolAddress(void** devPtr, const T& symbol) {
  return hipGetSymbolAddress(devPtr, static_cast<const void*>(&symbol));
}
template <class T>
static inline hipError_t hipGetSymbolSize(size_t* size, const T& symbol) {
  return hipGetSymbolSize(size, static_cast<const void*>(&symbol));
}
// Kernels are passed as function pointers, which do not convert to const void* implicitly.
template <class R, class... A>
static inline hipError_t hipFuncGetAttributes(hipFuncAttributes* attr, R (*kernel)(A...)) {
  return hipFuncGetAttributes(attr, reinterpret_cast<const void*>(kernel));
}
template <class R, class... A>
static inline hipError_t hipFuncSetAttribute(R (*kernel)(A...), hipFuncAttribute attr, int value) {
  return hipFuncSetAttribute(reinterpret_cast<const void*>(kernel), attr, value);
}
template <class R, class... A>
static inline hipError_t hipFuncSetCacheConfig(R (*kernel)(A...), hipFuncCache_t config) {
  return hipFuncSetCacheConfig(reinterpret_cast<const void*>(kernel), config);
}
// The kernel's pointer type as a template argument, as HIP declares these
// (hipOccupancyMaxPotentialBlockSize<void (*)(int*)>(..., kernel, ...) names it explicitly).
template <class F>
static inline hipError_t hipOccupancyMaxPotentialBlockSize(int* gridSize, int* blockSize,
                                                           F kernel,
                                                           size_t dynSharedMemPerBlk = 0,
                                                           int blockSizeLimit = 0) {
  return hipOccupancyMaxPotentialBlockSize(gridSize, blockSize,
                                           reinterpret_cast<const void*>(kernel),
                                           dynSharedMemPerBlk, blockSizeLimit);
}
template <class F>
static inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks,
                                                                      F kernel,
                                                                      int blockSize,
                                                                      size_t dynSharedMemPerBlk) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessor(
      numBlocks, reinterpret_cast<const void*>(kernel), blockSize, dynSharedMemPerBlk);
}
template <class F>
static inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, F kernel,
                                                                               int blockSize, size_t dynSharedMemPerBlk,
                                                                               unsigned int flags = hipOccupancyDefault) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, reinterpret_cast<const void*>(kernel), blockSize,
                                                               dynSharedMemPerBlk, flags);
}
template <class R, class... A>
static inline hipError_t hipLaunchKernel(R (*kernel)(A...), dim3 numBlocks, dim3 dimBlocks,
                                         void** args, size_t sharedMemBytes = 0,
                                         hipStream_t stream = 0) {
  return hipLaunchKernel(reinterpret_cast<const void*>(kernel), numBlocks, dimBlocks, args,
                         sharedMemBytes, stream);
}
#endif  // __cplusplus

#define HIP_SYMBOL(X) X
#define HIP_KERNEL_NAME(...) __VA_ARGS__
