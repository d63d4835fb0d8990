// SPDX-License-Identifier: MIT
// HIP's arrays, texture objects and surface objects: channel formats, array descriptors, resource,
// view and texture descriptions, and the device-side fetch functions (texture_functions.h).
// Layouts and values: HIP 5.2's driver_types.h, texture_types.h and surface_types.h.
#pragma once

#include "hip/kfdrt/hip_common.h"
#include "hip/kfdrt/hip_types.h"

#include <stddef.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

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

// Array formats and descriptors (the driver API's), array flags.
typedef enum hipArray_Format {
  HIP_AD_FORMAT_UNSIGNED_INT8 = 0x01,
  HIP_AD_FORMAT_UNSIGNED_INT16 = 0x02,
  HIP_AD_FORMAT_UNSIGNED_INT32 = 0x03,
  HIP_AD_FORMAT_SIGNED_INT8 = 0x08,
  HIP_AD_FORMAT_SIGNED_INT16 = 0x09,
  HIP_AD_FORMAT_SIGNED_INT32 = 0x0a,
  HIP_AD_FORMAT_HALF = 0x10,
  HIP_AD_FORMAT_FLOAT = 0x20
} hipArray_Format;

typedef struct HIP_ARRAY_DESCRIPTOR {
  size_t Width;
  size_t Height;
  enum hipArray_Format Format;
  unsigned int NumChannels;
} HIP_ARRAY_DESCRIPTOR;

typedef struct HIP_ARRAY3D_DESCRIPTOR {
  size_t Width;
  size_t Height;
  size_t Depth;
  enum hipArray_Format Format;
  unsigned int NumChannels;
  unsigned int Flags;
} HIP_ARRAY3D_DESCRIPTOR;

#define hipArrayDefault 0x00
#define hipArrayLayered 0x01
#define hipArraySurfaceLoadStore 0x02
#define hipArrayCubemap 0x04
#define hipArrayTextureGather 0x08

// An array: device memory laid out as a linear image (rows padded to 256 bytes, as
// hipDeviceProp_t::texturePitchAlignment says), which kernels read through texture objects and
// copies reach with hipMemcpy*Array. The members are HIP 5.2's; `data` is the device address of
// texel (0, 0, 0), `type` the array flags, `textureType` the hipTextureType* it is read as.
typedef struct hipArray {
  void* data;
  struct hipChannelFormatDesc desc;
  unsigned int type;
  unsigned int width;
  unsigned int height;  // 0 for a 1-D array
  unsigned int depth;   // 0 unless 3-D or layered
  enum hipArray_Format Format;
  unsigned int NumChannels;
  bool isDrv;
  unsigned int textureType;
} hipArray;
typedef const struct hipArray* hipArray_const_t;

// Views of a resource (the format and extent a texture object reads it with).
typedef enum hipResourceViewFormat {
  hipResViewFormatNone = 0x00,
  hipResViewFormatUnsignedChar1 = 0x01,
  hipResViewFormatUnsignedChar2 = 0x02,
  hipResViewFormatUnsignedChar4 = 0x03,
  hipResViewFormatSignedChar1 = 0x04,
  hipResViewFormatSignedChar2 = 0x05,
  hipResViewFormatSignedChar4 = 0x06,
  hipResViewFormatUnsignedShort1 = 0x07,
  hipResViewFormatUnsignedShort2 = 0x08,
  hipResViewFormatUnsignedShort4 = 0x09,
  hipResViewFormatSignedShort1 = 0x0a,
  hipResViewFormatSignedShort2 = 0x0b,
  hipResViewFormatSignedShort4 = 0x0c,
  hipResViewFormatUnsignedInt1 = 0x0d,
  hipResViewFormatUnsignedInt2 = 0x0e,
  hipResViewFormatUnsignedInt4 = 0x0f,
  hipResViewFormatSignedInt1 = 0x10,
  hipResViewFormatSignedInt2 = 0x11,
  hipResViewFormatSignedInt4 = 0x12,
  hipResViewFormatHalf1 = 0x13,
  hipResViewFormatHalf2 = 0x14,
  hipResViewFormatHalf4 = 0x15,
  hipResViewFormatFloat1 = 0x16,
  hipResViewFormatFloat2 = 0x17,
  hipResViewFormatFloat4 = 0x18,
  hipResViewFormatUnsignedBlockCompressed1 = 0x19,
  hipResViewFormatUnsignedBlockCompressed2 = 0x1a,
  hipResViewFormatUnsignedBlockCompressed3 = 0x1b,
  hipResViewFormatUnsignedBlockCompressed4 = 0x1c,
  hipResViewFormatSignedBlockCompressed4 = 0x1d,
  hipResViewFormatUnsignedBlockCompressed5 = 0x1e,
  hipResViewFormatSignedBlockCompressed5 = 0x1f,
  hipResViewFormatUnsignedBlockCompressed6H = 0x20,
  hipResViewFormatSignedBlockCompressed6H = 0x21,
  hipResViewFormatUnsignedBlockCompressed7 = 0x22
} hipResourceViewFormat;

typedef struct hipResourceViewDesc {
  enum hipResourceViewFormat format;
  size_t width;
  size_t height;
  size_t depth;
  unsigned int firstMipmapLevel;
  unsigned int lastMipmapLevel;
  unsigned int firstLayer;
  unsigned int lastLayer;
} hipResourceViewDesc;

// A texture object is the device address of HIP_TEXTURE_OBJECT_SIZE_DWORD dwords: the image
// descriptor (a T#, or for linear memory a V#, then the channel type, channel order and width
// ROCr's image objects carry in dwords 8 to 10, which the device library reads) and the sampler
// descriptor (an S#). A surface object is the address of an image descriptor alone.
#define HIP_IMAGE_OBJECT_SIZE_DWORD 12
#define HIP_SAMPLER_OBJECT_SIZE_DWORD 8
#define HIP_SAMPLER_OBJECT_OFFSET_DWORD HIP_IMAGE_OBJECT_SIZE_DWORD
#define HIP_TEXTURE_OBJECT_SIZE_DWORD (HIP_IMAGE_OBJECT_SIZE_DWORD + HIP_SAMPLER_OBJECT_SIZE_DWORD)
struct __hip_texture;
typedef struct __hip_texture* hipTextureObject_t;
struct __hip_surface;
typedef struct __hip_surface* hipSurfaceObject_t;

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
hipError_t hipMallocArray(hipArray** array, const hipChannelFormatDesc* desc, size_t width,
                          size_t height __HIP_DEFAULT(0), unsigned int flags __HIP_DEFAULT(hipArrayDefault));
hipError_t hipMalloc3DArray(hipArray** array, const struct hipChannelFormatDesc* desc, struct hipExtent extent,
                            unsigned int flags);
hipError_t hipArrayCreate(hipArray** pHandle, const HIP_ARRAY_DESCRIPTOR* pAllocateArray);
hipError_t hipArray3DCreate(hipArray** array, const HIP_ARRAY3D_DESCRIPTOR* pAllocateArray);
hipError_t hipFreeArray(hipArray* array);
hipError_t hipArrayDestroy(hipArray* array);
hipError_t hipGetChannelDesc(hipChannelFormatDesc* desc, hipArray_const_t array);
hipError_t hipArrayGetInfo(hipChannelFormatDesc* desc, struct hipExtent* extent, unsigned int* flags, hipArray* array);
hipError_t hipArrayGetDescriptor(HIP_ARRAY_DESCRIPTOR* pArrayDescriptor, hipArray* array);
hipError_t hipArray3DGetDescriptor(HIP_ARRAY3D_DESCRIPTOR* pArrayDescriptor, hipArray* array);
hipError_t hipMemcpy2DToArray(hipArray* dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch,
                              size_t width, size_t height, hipMemcpyKind kind);
hipError_t hipMemcpy2DToArrayAsync(hipArray* dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch,
                                   size_t width, size_t height, hipMemcpyKind kind, hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipMemcpy2DFromArray(void* dst, size_t dpitch, hipArray_const_t src, size_t wOffset, size_t hOffset,
                                size_t width, size_t height, hipMemcpyKind kind);
hipError_t hipMemcpy2DFromArrayAsync(void* dst, size_t dpitch, hipArray_const_t src, size_t wOffset, size_t hOffset,
                                     size_t width, size_t height, hipMemcpyKind kind,
                                     hipStream_t stream __HIP_DEFAULT(0));
hipError_t hipMemcpy2DArrayToArray(hipArray_t dst, size_t wOffsetDst, size_t hOffsetDst, hipArray_const_t src,
                                   size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height,
                                   hipMemcpyKind kind);
hipError_t hipMemcpyToArray(hipArray* dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                            hipMemcpyKind kind);
hipError_t hipMemcpyFromArray(void* dst, hipArray_const_t srcArray, size_t wOffset, size_t hOffset, size_t count,
                              hipMemcpyKind kind);
hipError_t hipMemcpyAtoH(void* dst, hipArray* srcArray, size_t srcOffset, size_t count);
hipError_t hipMemcpyHtoA(hipArray* dstArray, size_t dstOffset, const void* srcHost, size_t count);
hipError_t hipCreateTextureObject(hipTextureObject_t* pTexObject, const hipResourceDesc* pResDesc,
                                  const hipTextureDesc* pTexDesc, const struct hipResourceViewDesc* pResViewDesc);
hipError_t hipDestroyTextureObject(hipTextureObject_t textureObject);
hipError_t hipGetTextureObjectResourceDesc(hipResourceDesc* pResDesc, hipTextureObject_t textureObject);
hipError_t hipGetTextureObjectTextureDesc(hipTextureDesc* pTexDesc, hipTextureObject_t textureObject);
hipError_t hipGetTextureObjectResourceViewDesc(struct hipResourceViewDesc* pResViewDesc,
                                               hipTextureObject_t textureObject);
#ifdef __cplusplus
}
// C++ linkage, as HIP 5.2 declares them (programs built against its headers call these names).
hipError_t hipCreateSurfaceObject(hipSurfaceObject_t* pSurfObject, const hipResourceDesc* pResDesc);
hipError_t hipDestroySurfaceObject(hipSurfaceObject_t surfaceObject);

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

#include "hip/kfdrt/texture_functions.h"
#endif  // __cplusplus
