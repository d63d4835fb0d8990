// SPDX-License-Identifier: MIT
// HIP's texture-object types (channel formats, resource and texture descriptions), declared so
// that programs and libraries written against them compile. kfdrt does not implement textures:
// creating a texture object fails with hipErrorNotSupported and says so, and a kernel that fetches
// from one does not compile (the fetch functions name themselves in the error).
// Layouts and values: HIP 5.2's driver_types.h and texture_types.h.
#pragma once

#include "hip/kfdrt/hip_common.h"

#include <stddef.h>

typedef enum hipChannelFormatKind {
  hipChannelFormatKindSigned = 0,
  hipChannelFormatKindUnsigned = 1,
  hipChannelFormatKindFloat = 2,
  hipChannelFormatKindNone = 3
} hipChannelFormatKind;

// Bits per component (x, y, z, w) and how they read.
typedef struct hipChannelFormatDesc {
  int x;
  int y;
  int z;
  int w;
  enum hipChannelFormatKind f;
} hipChannelFormatDesc;

typedef struct hipMipmappedArray* hipMipmappedArray_t;

typedef enum hipResourceType {
  hipResourceTypeArray = 0,
  hipResourceTypeMipmappedArray = 1,
  hipResourceTypeLinear = 2,
  hipResourceTypePitch2D = 3
} hipResourceType;

typedef struct hipResourceDesc {
  enum hipResourceType resType;
  union {
    struct {
      struct hipArray* array;
    } array;
    struct {
      hipMipmappedArray_t mipmap;
    } mipmap;
    struct {
      void* devPtr;
      struct hipChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void* devPtr;
      struct hipChannelFormatDesc desc;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
  } res;
} hipResourceDesc;

enum hipTextureAddressMode {
  hipAddressModeWrap = 0,
  hipAddressModeClamp = 1,
  hipAddressModeMirror = 2,
  hipAddressModeBorder = 3
};
enum hipTextureFilterMode { hipFilterModePoint = 0, hipFilterModeLinear = 1 };
enum hipTextureReadMode { hipReadModeElementType = 0, hipReadModeNormalizedFloat = 1 };

typedef struct hipTextureDesc {
  enum hipTextureAddressMode addressMode[3];
  enum hipTextureFilterMode filterMode;
  enum hipTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  enum hipTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
} hipTextureDesc;

// Views of arrays (hipResourceViewDesc) have no layout here: kfdrt has no arrays, and a texture
// object creation's view argument may only be NULL.
struct hipResourceViewDesc;
struct __hip_texture;
typedef struct __hip_texture* hipTextureObject_t;

#define hipTextureType1D 0x01
#define hipTextureType2D 0x02
#define hipTextureType3D 0x03
#define hipTextureTypeCubemap 0x0C
#define hipTextureType1DLayered 0xF1
#define hipTextureType2DLayered 0xF2
#define hipTextureTypeCubemapLayered 0xFC

#ifdef __cplusplus
extern "C" {
#endif
hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w, enum hipChannelFormatKind f);
// Not implemented by kfdrt: each checks its pointers (hipErrorInvalidValue) and then fails with
// hipErrorNotSupported, saying so on stderr once.
hipError_t hipCreateTextureObject(hipTextureObject_t* pTexObject, const hipResourceDesc* pResDesc,
                                  const hipTextureDesc* pTexDesc, const struct hipResourceViewDesc* pResViewDesc);
hipError_t hipDestroyTextureObject(hipTextureObject_t textureObject);
hipError_t hipGetTextureObjectResourceDesc(hipResourceDesc* pResDesc, hipTextureObject_t textureObject);
hipError_t hipGetTextureObjectTextureDesc(hipTextureDesc* pTexDesc, hipTextureObject_t textureObject);
#ifdef __cplusplus
}

#include "hip/hip_vector_types.h"

// hipCreateChannelDesc<T>(): the format of element type T (HIP's channel_descriptor.h): the
// scalar types and their 1- to 4-component vectors; any other type gives the "none" format.
template <class T>
struct __kfdrt_channel {
  static constexpr int bits = 0, count = 0;
  static constexpr hipChannelFormatKind kind = hipChannelFormatKindNone;
};
#define __KFDRT_CHANNEL(T, k)                                      \
  template <>                                                      \
  struct __kfdrt_channel<T> {                                      \
    static constexpr int bits = 8 * sizeof(T), count = 1;          \
    static constexpr hipChannelFormatKind kind = k;                \
  };
__KFDRT_CHANNEL(char, (char)-1 < 0 ? hipChannelFormatKindSigned : hipChannelFormatKindUnsigned)
__KFDRT_CHANNEL(signed char, hipChannelFormatKindSigned)
__KFDRT_CHANNEL(unsigned char, hipChannelFormatKindUnsigned)
__KFDRT_CHANNEL(short, hipChannelFormatKindSigned)
__KFDRT_CHANNEL(unsigned short, hipChannelFormatKindUnsigned)
__KFDRT_CHANNEL(int, hipChannelFormatKindSigned)
__KFDRT_CHANNEL(unsigned int, hipChannelFormatKindUnsigned)
__KFDRT_CHANNEL(float, hipChannelFormatKindFloat)
#undef __KFDRT_CHANNEL
// Vectors: HIP's short vector types of those elements, 1 to 4 components (hip_vector_types.h).
template <class V>
struct __kfdrt_vec_channel : __kfdrt_channel<V> {};
#define __KFDRT_CHANNEL_VEC(V, E, N)                                 \
  template <>                                                        \
  struct __kfdrt_vec_channel<V> {                                    \
    static constexpr int bits = __kfdrt_channel<E>::bits, count = N; \
    static constexpr hipChannelFormatKind kind = __kfdrt_channel<E>::kind; \
  };
#define __KFDRT_CHANNEL_FAMILY(base, E) \
  __KFDRT_CHANNEL_VEC(base##1, E, 1) __KFDRT_CHANNEL_VEC(base##2, E, 2) \
  __KFDRT_CHANNEL_VEC(base##3, E, 3) __KFDRT_CHANNEL_VEC(base##4, E, 4)
__KFDRT_CHANNEL_FAMILY(char, signed char)
__KFDRT_CHANNEL_FAMILY(uchar, unsigned char)
__KFDRT_CHANNEL_FAMILY(short, short)
__KFDRT_CHANNEL_FAMILY(ushort, unsigned short)
__KFDRT_CHANNEL_FAMILY(int, int)
__KFDRT_CHANNEL_FAMILY(uint, unsigned int)
__KFDRT_CHANNEL_FAMILY(float, float)
#undef __KFDRT_CHANNEL_FAMILY
#undef __KFDRT_CHANNEL_VEC
template <class T>
inline hipChannelFormatDesc hipCreateChannelDesc() {
  typedef __kfdrt_vec_channel<T> C;
  int b = C::bits;
  return hipCreateChannelDesc(b, C::count > 1 ? b : 0, C::count > 2 ? b : 0, C::count > 3 ? b : 0,
                              C::bits ? C::kind : hipChannelFormatKindNone);
}
static inline hipChannelFormatDesc hipCreateChannelDescHalf() { return hipCreateChannelDesc(16, 0, 0, 0, hipChannelFormatKindFloat); }
static inline hipChannelFormatDesc hipCreateChannelDescHalf1() { return hipCreateChannelDesc(16, 0, 0, 0, hipChannelFormatKindFloat); }
static inline hipChannelFormatDesc hipCreateChannelDescHalf2() { return hipCreateChannelDesc(16, 16, 0, 0, hipChannelFormatKindFloat); }
static inline hipChannelFormatDesc hipCreateChannelDescHalf4() { return hipCreateChannelDesc(16, 16, 16, 16, hipChannelFormatKindFloat); }

// Texture fetches in kernels: declared so that code naming them parses (rocPRIM's
// texture_cache_iterator, for one); a kernel that instantiates one stops the build here.
template <class... A>
struct __kfdrt_texture_unsupported {
  static constexpr bool value = false;
};
#define __KFDRT_TEX_FN(name)                                                                        \
  template <class R = void, class... A>                                                            \
  __device__ inline R name(A...) {                                                                 \
    static_assert(__kfdrt_texture_unsupported<R, A...>::value,                                     \
                  "kfdrt: " #name ": texture fetches are not implemented by kfdrt (no texture "   \
                  "objects; read the memory through a pointer instead)");                          \
    return R();                                                                                    \
  }
__KFDRT_TEX_FN(tex1Dfetch)
__KFDRT_TEX_FN(tex1D)
__KFDRT_TEX_FN(tex1DLod)
__KFDRT_TEX_FN(tex1DGrad)
__KFDRT_TEX_FN(tex1DLayered)
__KFDRT_TEX_FN(tex2D)
__KFDRT_TEX_FN(tex2DLod)
__KFDRT_TEX_FN(tex2DGrad)
__KFDRT_TEX_FN(tex2DLayered)
__KFDRT_TEX_FN(tex2Dgather)
__KFDRT_TEX_FN(tex3D)
__KFDRT_TEX_FN(tex3DLod)
__KFDRT_TEX_FN(tex3DGrad)
__KFDRT_TEX_FN(texCubemap)
#undef __KFDRT_TEX_FN
#endif  // __cplusplus
