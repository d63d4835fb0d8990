// SPDX-License-Identifier: MIT
// Texture objects: the channel-format helper, and the object entry points kfdrt does not
// implement (no image descriptors or format conversions): creating one checks its arguments, then
// fails with hipErrorNotSupported and says why once per process.
#include <cstdio>

#include "api/hip/common.h"

namespace hip {
namespace {

hipError_t textures_unsupported(const char* api) {
  warn_once(api, "texture objects are not implemented by kfdrt (read the memory through a pointer)");
  return hipErrorNotSupported;
}

}  // namespace
}  // namespace hip

using namespace hip;

HIP_EXPORT hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w, hipChannelFormatKind f) {
  return hipChannelFormatDesc{x, y, z, w, f};
}

HIP_EXPORT hipError_t hipCreateTextureObject(hipTextureObject_t* obj, const hipResourceDesc* res,
                                             const hipTextureDesc* tex, const hipResourceViewDesc* view) {
  (void)view;
  if (!obj || !res) return ret(hipErrorInvalidValue);
  *obj = nullptr;
  if (res->resType == hipResourceTypeLinear || res->resType == hipResourceTypePitch2D) {
    if (!tex) return ret(hipErrorInvalidValue);
  }
  return ret(textures_unsupported("hipCreateTextureObject"));
}

// No texture object can exist, so every handle but the null one is unknown: hipErrorInvalidValue.
// Destroying the null object succeeds, as it does in HIP.
HIP_EXPORT hipError_t hipDestroyTextureObject(hipTextureObject_t obj) {
  return obj ? ret(hipErrorInvalidValue) : hipSuccess;
}

HIP_EXPORT hipError_t hipGetTextureObjectResourceDesc(hipResourceDesc* desc, hipTextureObject_t obj) {
  (void)desc;
  (void)obj;
  return ret(hipErrorInvalidValue);
}

HIP_EXPORT hipError_t hipGetTextureObjectTextureDesc(hipTextureDesc* desc, hipTextureObject_t obj) {
  (void)desc;
  (void)obj;
  return ret(hipErrorInvalidValue);
}
