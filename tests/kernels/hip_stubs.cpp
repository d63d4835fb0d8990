// SPDX-License-Identifier: MIT
// Do-nothing stand-ins for the HIP runtime entry points clang's host code calls, so a test
// executable with an embedded fat binary links and runs without a HIP runtime.
extern "C" {
struct KtDim3 {
  unsigned x, y, z;
};
int hipLaunchKernel(const void*, KtDim3, KtDim3, void**, unsigned long, void*) { return 0; }
int __hipPushCallConfiguration(KtDim3, KtDim3, unsigned long, void*) { return 1; }  // nonzero: skip the launch
int __hipPopCallConfiguration(KtDim3*, KtDim3*, unsigned long*, void**) { return 0; }
void** __hipRegisterFatBinary(void*) {
  static void* handle;
  return &handle;
}
void __hipUnregisterFatBinary(void**) {}
void __hipRegisterFunction(void**, const void*, char*, const char*, int, void*, void*, void*, void*, int*) {}
void __hipRegisterVar(void**, void*, char*, const char*, int, unsigned long, int, int) {}
}
