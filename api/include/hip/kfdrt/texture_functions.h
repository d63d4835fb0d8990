// SPDX-License-Identifier: MIT
// Texture and surface reads and writes in kernels, on the objects hipCreateTextureObject and
// hipCreateSurfaceObject make. Each call goes to the ROCm device library's image functions
// (ockl, linked by kfdcc from rocm-device-libs), which compile to the GPU's image instructions
// (image_sample, image_load, image_store; buffer_load_format for linear memory) on the descriptors
// the object's memory holds (texture_types.h: the image descriptor, then the sampler at dword
// HIP_SAMPLER_OBJECT_OFFSET_DWORD). Element types: char, unsigned char, short, unsigned short,
// int, unsigned int and float, and their 1-, 2- and 4-component vectors (HIP's and CUDA's set);
// an integer type receives the texel's integer bits, a float type the filtered or normalized value.
#pragma once

#if defined(__cplusplus) && defined(__HIP__)

#include "hip/hip_vector_types.h"

#define __KFDRT_IMG __attribute__((address_space(4))) const unsigned int*
typedef float __kfdrt_f2 __attribute__((ext_vector_type(2)));
typedef float __kfdrt_f4 __attribute__((ext_vector_type(4)));
typedef int __kfdrt_i2 __attribute__((ext_vector_type(2)));
typedef int __kfdrt_i4 __attribute__((ext_vector_type(4)));

// The device library's entry points (ockl image.cl of rocm-device-libs; their argument lists are
// the library's ABI: the image descriptor, the sampler, coordinates as float or int vectors).
extern "C" {
__device__ __kfdrt_f4 __ockl_image_load_1Db(__KFDRT_IMG img, int c);
__device__ __kfdrt_f4 __ockl_image_load_1D(__KFDRT_IMG img, int c);
__device__ __kfdrt_f4 __ockl_image_load_1Da(__KFDRT_IMG img, __kfdrt_i2 c);
__device__ __kfdrt_f4 __ockl_image_load_2D(__KFDRT_IMG img, __kfdrt_i2 c);
__device__ __kfdrt_f4 __ockl_image_load_2Da(__KFDRT_IMG img, __kfdrt_i4 c);
__device__ __kfdrt_f4 __ockl_image_load_3D(__KFDRT_IMG img, __kfdrt_i4 c);
__device__ void __ockl_image_store_1D(__KFDRT_IMG img, int c, __kfdrt_f4 p);
__device__ void __ockl_image_store_1Da(__KFDRT_IMG img, __kfdrt_i2 c, __kfdrt_f4 p);
__device__ void __ockl_image_store_2D(__KFDRT_IMG img, __kfdrt_i2 c, __kfdrt_f4 p);
__device__ void __ockl_image_store_2Da(__KFDRT_IMG img, __kfdrt_i4 c, __kfdrt_f4 p);
__device__ void __ockl_image_store_3D(__KFDRT_IMG img, __kfdrt_i4 c, __kfdrt_f4 p);
__device__ __kfdrt_f4 __ockl_image_sample_1D(__KFDRT_IMG img, __KFDRT_IMG smp, float c);
__device__ __kfdrt_f4 __ockl_image_sample_1Da(__KFDRT_IMG img, __KFDRT_IMG smp, __kfdrt_f2 c);
__device__ __kfdrt_f4 __ockl_image_sample_2D(__KFDRT_IMG img, __KFDRT_IMG smp, __kfdrt_f2 c);
__device__ __kfdrt_f4 __ockl_image_sample_2Da(__KFDRT_IMG img, __KFDRT_IMG smp, __kfdrt_f4 c);
__device__ __kfdrt_f4 __ockl_image_sample_3D(__KFDRT_IMG img, __KFDRT_IMG smp, __kfdrt_f4 c);
}

// Element types a fetch may return: the scalar and its component count.
template <class T>
struct __kfdrt_texel {
  static constexpr bool ok = false;
};
#define __KFDRT_TEXEL_SCALAR(T)                  \
  template <>                                    \
  struct __kfdrt_texel<T> {                      \
    static constexpr bool ok = true;             \
    typedef T elem;                              \
    static constexpr int n = 1;                  \
  };
#define __KFDRT_TEXEL_VEC(V, E, N)               \
  template <>                                    \
  struct __kfdrt_texel<V> {                      \
    static constexpr bool ok = true;             \
    typedef E elem;                              \
    static constexpr int n = N;                  \
  };
#define __KFDRT_TEXEL_FAMILY(base, E) \
  __KFDRT_TEXEL_VEC(base##1, E, 1) __KFDRT_TEXEL_VEC(base##2, E, 2) __KFDRT_TEXEL_VEC(base##4, E, 4)
__KFDRT_TEXEL_SCALAR(char)
__KFDRT_TEXEL_SCALAR(signed char)
__KFDRT_TEXEL_SCALAR(unsigned char)
__KFDRT_TEXEL_SCALAR(short)
__KFDRT_TEXEL_SCALAR(unsigned short)
__KFDRT_TEXEL_SCALAR(int)
__KFDRT_TEXEL_SCALAR(unsigned int)
__KFDRT_TEXEL_SCALAR(float)
__KFDRT_TEXEL_FAMILY(char, signed char)
__KFDRT_TEXEL_FAMILY(uchar, unsigned char)
__KFDRT_TEXEL_FAMILY(short, short)
__KFDRT_TEXEL_FAMILY(ushort, unsigned short)
__KFDRT_TEXEL_FAMILY(int, int)
__KFDRT_TEXEL_FAMILY(uint, unsigned int)
__KFDRT_TEXEL_FAMILY(float, float)
#undef __KFDRT_TEXEL_FAMILY
#undef __KFDRT_TEXEL_VEC
#undef __KFDRT_TEXEL_SCALAR

// One component of the image unit's result: float types take the value, integer types the bits
// the unit returned for an integer format (truncated to the element, as the format's own width).
template <class E>
__device__ inline E __kfdrt_texel_part(float f) {
  if constexpr (__is_same(E, float)) return f;
  else return static_cast<E>(__builtin_bit_cast(int, f));
}
template <class E>
__device__ inline float __kfdrt_texel_bits(E v) {
  if constexpr (__is_same(E, float)) return v;
  else if constexpr (static_cast<E>(-1) < static_cast<E>(0)) return __builtin_bit_cast(float, static_cast<int>(v));
  else return __builtin_bit_cast(float, static_cast<unsigned int>(v));
}

template <class T>
__device__ inline T __kfdrt_from_texel(__kfdrt_f4 v) {
  static_assert(__kfdrt_texel<T>::ok,
                "kfdrt: texture and surface element types are char, short, int, float (signed or unsigned) "
                "and their 1-, 2- and 4-component vectors");
  typedef typename __kfdrt_texel<T>::elem E;
  if constexpr (__kfdrt_texel<T>::n == 1 && __is_same(T, E)) {
    return __kfdrt_texel_part<E>(v.x);
  } else if constexpr (__kfdrt_texel<T>::n == 1) {
    return T{__kfdrt_texel_part<E>(v.x)};
  } else if constexpr (__kfdrt_texel<T>::n == 2) {
    return T{__kfdrt_texel_part<E>(v.x), __kfdrt_texel_part<E>(v.y)};
  } else {
    return T{__kfdrt_texel_part<E>(v.x), __kfdrt_texel_part<E>(v.y), __kfdrt_texel_part<E>(v.z),
             __kfdrt_texel_part<E>(v.w)};
  }
}

template <class T>
__device__ inline __kfdrt_f4 __kfdrt_to_texel(T t) {
  static_assert(__kfdrt_texel<T>::ok,
                "kfdrt: texture and surface element types are char, short, int, float (signed or unsigned) "
                "and their 1-, 2- and 4-component vectors");
  typedef typename __kfdrt_texel<T>::elem E;
  __kfdrt_f4 r = {0.0f, 0.0f, 0.0f, 0.0f};
  if constexpr (__kfdrt_texel<T>::n == 1 && __is_same(T, E)) {
    r.x = __kfdrt_texel_bits<E>(t);
  } else {
    r.x = __kfdrt_texel_bits<E>(t.x);
    if constexpr (__kfdrt_texel<T>::n >= 2) r.y = __kfdrt_texel_bits<E>(t.y);
    if constexpr (__kfdrt_texel<T>::n == 4) {
      r.z = __kfdrt_texel_bits<E>(t.z);
      r.w = __kfdrt_texel_bits<E>(t.w);
    }
  }
  return r;
}

#define __KFDRT_TEX_INIT(obj)                                   \
  __KFDRT_IMG __i = (__KFDRT_IMG)(obj);         \
  __KFDRT_IMG __s = __i + HIP_SAMPLER_OBJECT_OFFSET_DWORD;      \
  (void)__s;

// Texture objects. Each has the out-parameter form too (tex2D(&v, obj, x, y)).
template <class T>
__device__ inline T tex1Dfetch(hipTextureObject_t obj, int x) {
  __KFDRT_TEX_INIT(obj)
  return __kfdrt_from_texel<T>(__ockl_image_load_1Db(__i, x));
}
template <class T>
__device__ inline T tex1D(hipTextureObject_t obj, float x) {
  __KFDRT_TEX_INIT(obj)
  return __kfdrt_from_texel<T>(__ockl_image_sample_1D(__i, __s, x));
}
template <class T>
__device__ inline T tex2D(hipTextureObject_t obj, float x, float y) {
  __KFDRT_TEX_INIT(obj)
  return __kfdrt_from_texel<T>(__ockl_image_sample_2D(__i, __s, __kfdrt_f2{x, y}));
}
template <class T>
__device__ inline T tex3D(hipTextureObject_t obj, float x, float y, float z) {
  __KFDRT_TEX_INIT(obj)
  return __kfdrt_from_texel<T>(__ockl_image_sample_3D(__i, __s, __kfdrt_f4{x, y, z, 0.0f}));
}
template <class T>
__device__ inline T tex1DLayered(hipTextureObject_t obj, float x, int layer) {
  __KFDRT_TEX_INIT(obj)
  return __kfdrt_from_texel<T>(__ockl_image_sample_1Da(__i, __s, __kfdrt_f2{x, float(layer)}));
}
template <class T>
__device__ inline T tex2DLayered(hipTextureObject_t obj, float x, float y, int layer) {
  __KFDRT_TEX_INIT(obj)
  return __kfdrt_from_texel<T>(__ockl_image_sample_2Da(__i, __s, __kfdrt_f4{x, y, float(layer), 0.0f}));
}
// Explicit levels: kfdrt's textures have one level (no mipmapped arrays) and their samplers clamp
// the LOD to 0, so any level reads level 0, which the implicit-LOD sample gives (gfx90a's image
// unit has no explicit-LOD sample instruction; the device library's _lod calls compile to one).
template <class T>
__device__ inline T tex1DLod(hipTextureObject_t obj, float x, float /*level*/) {
  __KFDRT_TEX_INIT(obj)
  return __kfdrt_from_texel<T>(__ockl_image_sample_1D(__i, __s, x));
}
template <class T>
__device__ inline T tex2DLod(hipTextureObject_t obj, float x, float y, float /*level*/) {
  __KFDRT_TEX_INIT(obj)
  return __kfdrt_from_texel<T>(__ockl_image_sample_2D(__i, __s, __kfdrt_f2{x, y}));
}
template <class T>
__device__ inline T tex3DLod(hipTextureObject_t obj, float x, float y, float z, float /*level*/) {
  __KFDRT_TEX_INIT(obj)
  return __kfdrt_from_texel<T>(__ockl_image_sample_3D(__i, __s, __kfdrt_f4{x, y, z, 0.0f}));
}
template <class T>
__device__ inline T tex1DLayeredLod(hipTextureObject_t obj, float x, int layer, float /*level*/) {
  __KFDRT_TEX_INIT(obj)
  return __kfdrt_from_texel<T>(__ockl_image_sample_1Da(__i, __s, __kfdrt_f2{x, float(layer)}));
}
template <class T>
__device__ inline T tex2DLayeredLod(hipTextureObject_t obj, float x, float y, int layer, float /*level*/) {
  __KFDRT_TEX_INIT(obj)
  return __kfdrt_from_texel<T>(__ockl_image_sample_2Da(__i, __s, __kfdrt_f4{x, y, float(layer), 0.0f}));
}
#define __KFDRT_TEX_OUT(name, params, args)                                  \
  template <class T>                                                          \
  __device__ inline void name(T* out, hipTextureObject_t obj, params) {       \
    *out = name<T>(obj, args);                                                \
  }
#define __KFDRT_P(...) __VA_ARGS__
__KFDRT_TEX_OUT(tex1Dfetch, int x, x)
__KFDRT_TEX_OUT(tex1D, float x, x)
__KFDRT_TEX_OUT(tex2D, __KFDRT_P(float x, float y), __KFDRT_P(x, y))
__KFDRT_TEX_OUT(tex3D, __KFDRT_P(float x, float y, float z), __KFDRT_P(x, y, z))
__KFDRT_TEX_OUT(tex1DLayered, __KFDRT_P(float x, int layer), __KFDRT_P(x, layer))
__KFDRT_TEX_OUT(tex2DLayered, __KFDRT_P(float x, float y, int layer), __KFDRT_P(x, y, layer))
__KFDRT_TEX_OUT(tex1DLod, __KFDRT_P(float x, float level), __KFDRT_P(x, level))
__KFDRT_TEX_OUT(tex2DLod, __KFDRT_P(float x, float y, float level), __KFDRT_P(x, y, level))
__KFDRT_TEX_OUT(tex3DLod, __KFDRT_P(float x, float y, float z, float level), __KFDRT_P(x, y, z, level))
#undef __KFDRT_P
#undef __KFDRT_TEX_OUT

// Gradient, gather and cube-map fetches are not provided (gfx90a's image unit has no gather4 or
// explicit-LOD sample instructions; the device library's gather compiles to one): a kernel that
// instantiates one stops the build here, naming it.
template <class... A>
struct __kfdrt_texture_unsupported {
  static constexpr bool value = false;
};
#define __KFDRT_TEX_UNSUPPORTED(name)                                                              \
  template <class R = void, class... A>                                                            \
  __device__ inline R name(A...) {                                                                 \
    static_assert(__kfdrt_texture_unsupported<R, A...>::value,                                     \
                  "kfdrt: " #name " is not implemented (gradient, gather and cube-map fetches)");           \
    return R();                                                                                    \
  }
__KFDRT_TEX_UNSUPPORTED(tex2Dgather)
__KFDRT_TEX_UNSUPPORTED(tex1DGrad)
__KFDRT_TEX_UNSUPPORTED(tex2DGrad)
__KFDRT_TEX_UNSUPPORTED(tex3DGrad)
__KFDRT_TEX_UNSUPPORTED(texCubemap)
__KFDRT_TEX_UNSUPPORTED(texCubemapLayered)
#undef __KFDRT_TEX_UNSUPPORTED

// Surfaces: x is a byte offset (CUDA's convention), turned into a texel index with the texel size
// the descriptor's channel type and order (dwords 8 and 9, HSA's image enumerations) give.
__device__ inline int __kfdrt_surface_texel(__KFDRT_IMG img, int x) {
  const unsigned type = img[8], order = img[9];
  // hsa_ext_image_channel_type_t: SNORM/UNORM/SIGNED/UNSIGNED 8-bit ones are 1 byte, 16-bit ones
  // and HALF_FLOAT 2, the 32-bit ones and FLOAT 4.
  int bytes = 4;
  switch (type) {
    case 0: case 2: case 8: case 11: bytes = 1; break;
    case 1: case 3: case 9: case 12: case 14: bytes = 2; break;
    default: bytes = 4; break;
  }
  // hsa_ext_image_channel_order_t: R 1, RG 3, RGB 6, RGBA 8 (the orders kfdrt makes).
  const int channels = order == 3 ? 2 : order == 6 ? 3 : order == 8 ? 4 : 1;
  return x / (bytes * channels);
}

template <class T>
__device__ inline void surf1Dread(T* data, hipSurfaceObject_t surf, int x) {
  __KFDRT_IMG i = (__KFDRT_IMG)(surf);
  *data = __kfdrt_from_texel<T>(__ockl_image_load_1D(i, __kfdrt_surface_texel(i, x)));
}
template <class T>
__device__ inline void surf1Dwrite(T data, hipSurfaceObject_t surf, int x) {
  __KFDRT_IMG i = (__KFDRT_IMG)(surf);
  __ockl_image_store_1D(i, __kfdrt_surface_texel(i, x), __kfdrt_to_texel<T>(data));
}
template <class T>
__device__ inline void surf2Dread(T* data, hipSurfaceObject_t surf, int x, int y) {
  __KFDRT_IMG i = (__KFDRT_IMG)(surf);
  *data = __kfdrt_from_texel<T>(__ockl_image_load_2D(i, __kfdrt_i2{__kfdrt_surface_texel(i, x), y}));
}
template <class T>
__device__ inline T surf2Dread(hipSurfaceObject_t surf, int x, int y) {
  T v;
  surf2Dread(&v, surf, x, y);
  return v;
}
template <class T>
__device__ inline void surf2Dwrite(T data, hipSurfaceObject_t surf, int x, int y) {
  __KFDRT_IMG i = (__KFDRT_IMG)(surf);
  __ockl_image_store_2D(i, __kfdrt_i2{__kfdrt_surface_texel(i, x), y}, __kfdrt_to_texel<T>(data));
}
template <class T>
__device__ inline void surf3Dread(T* data, hipSurfaceObject_t surf, int x, int y, int z) {
  __KFDRT_IMG i = (__KFDRT_IMG)(surf);
  *data = __kfdrt_from_texel<T>(__ockl_image_load_3D(i, __kfdrt_i4{__kfdrt_surface_texel(i, x), y, z, 0}));
}
template <class T>
__device__ inline void surf3Dwrite(T data, hipSurfaceObject_t surf, int x, int y, int z) {
  __KFDRT_IMG i = (__KFDRT_IMG)(surf);
  __ockl_image_store_3D(i, __kfdrt_i4{__kfdrt_surface_texel(i, x), y, z, 0}, __kfdrt_to_texel<T>(data));
}
template <class T>
__device__ inline void surf1DLayeredread(T* data, hipSurfaceObject_t surf, int x, int layer) {
  __KFDRT_IMG i = (__KFDRT_IMG)(surf);
  *data = __kfdrt_from_texel<T>(__ockl_image_load_1Da(i, __kfdrt_i2{__kfdrt_surface_texel(i, x), layer}));
}
template <class T>
__device__ inline void surf1DLayeredwrite(T data, hipSurfaceObject_t surf, int x, int layer) {
  __KFDRT_IMG i = (__KFDRT_IMG)(surf);
  __ockl_image_store_1Da(i, __kfdrt_i2{__kfdrt_surface_texel(i, x), layer}, __kfdrt_to_texel<T>(data));
}
template <class T>
__device__ inline void surf2DLayeredread(T* data, hipSurfaceObject_t surf, int x, int y, int layer) {
  __KFDRT_IMG i = (__KFDRT_IMG)(surf);
  *data = __kfdrt_from_texel<T>(__ockl_image_load_2Da(i, __kfdrt_i4{__kfdrt_surface_texel(i, x), y, layer, 0}));
}
template <class T>
__device__ inline void surf2DLayeredwrite(T data, hipSurfaceObject_t surf, int x, int y, int layer) {
  __KFDRT_IMG i = (__KFDRT_IMG)(surf);
  __ockl_image_store_2Da(i, __kfdrt_i4{__kfdrt_surface_texel(i, x), y, layer, 0}, __kfdrt_to_texel<T>(data));
}

#undef __KFDRT_TEX_INIT

#endif  // __cplusplus && __HIP__
