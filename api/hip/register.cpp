// SPDX-License-Identifier: MIT
// The registration ABI clang emits in HIP programs' module constructors and destructors (clang CGCUDANV.cpp).
#include "api/hip/code.h"

using hip::Registry;

HIP_EXPORT void** __hipRegisterFatBinary(const void* wrapper) {
  return Registry::get().add_fatbin(wrapper);
}

HIP_EXPORT void __hipRegisterFunction(void** handle, const void* host_fn, char* device_fn,
                                      const char* device_name, int thread_limit, void* tid,
                                      void* bid, dim3* block, dim3* grid, int* wave_size) {
  (void)device_fn, (void)thread_limit, (void)tid, (void)bid, (void)block, (void)grid, (void)wave_size;
  Registry::get().add_function(handle, host_fn, device_name);
}

HIP_EXPORT void __hipRegisterVar(void** handle, void* host_var, char* device_var, const char* device_name,
                                 int ext, size_t size, int constant, int global) {
  (void)device_var, (void)ext, (void)constant, (void)global;
  Registry::get().add_var(handle, host_var, device_name, size);
}

HIP_EXPORT void __hipRegisterManagedVar(void* handle, void** pointer, void* init, const char* name,
                                        size_t size, unsigned align) {
  Registry::get().add_managed(static_cast<void**>(handle), pointer, init, name, size, align);
}

HIP_EXPORT void __hipRegisterSurface(void**, void*, char*, const char*, int, int) {}
HIP_EXPORT void __hipRegisterTexture(void**, void*, char*, const char*, int, int, int) {}

HIP_EXPORT void __hipUnregisterFatBinary(void** handle) { Registry::get().remove_fatbin(handle); }
