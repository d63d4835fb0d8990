// SPDX-License-Identifier: MIT
// Arrays, texture objects and surface objects.
//
// An array is device memory (hipMalloc's: VRAM without a CPU mapping) laid out as a linear gfx9
// image: rows padded to 256 bytes (hipDeviceProp_t::texturePitchAlignment), slices (3-D depth or
// layers) one after another. A texture object is HIP_TEXTURE_OBJECT_SIZE_DWORD dwords of
// system memory every GPU maps (kernels read it with scalar loads): the image descriptor (a T#
// for arrays and pitched memory, a typed V# for linear memory), then in dwords 8 to 10 the
// channel type, channel order (hsa_ext_image.h's enumerations) and width, which ROCm's device
// library reads (ockl image.cl: __ockl_image_channel_data_type, _order, _width), then the sampler
// (an S#). A surface object is the image part alone. Descriptor fields: AMD "Vega" ISA, 8.2.5 and
// 8.2.6 (pm4/image_gfx9.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "api/hip/common.h"
#include "api/hip/runtime.h"
#include "api/hip/texture.h"
#include "pm4/image_gfx9.h"

namespace hip {
namespace {

namespace img = pm4::image_gfx9;

constexpr size_t kTexAlign = 256;       // texture base and pitch alignment (hipDeviceProp_t)
constexpr uint32_t kMaxExtent = 16384;  // T# WIDTH/HEIGHT: 14 bits of (size - 1)
constexpr uint32_t kMaxDepth = 8192;    // T# DEPTH: 13 bits

// hsa_ext_image_channel_type_t and hsa_ext_image_channel_order_t values (hsa_ext_image.h).
enum HsaChannelType : uint32_t {
  kSnormInt8 = 0, kSnormInt16 = 1, kUnormInt8 = 2, kUnormInt16 = 3, kSignedInt8 = 8, kSignedInt16 = 9,
  kSignedInt32 = 10, kUnsignedInt8 = 11, kUnsignedInt16 = 12, kUnsignedInt32 = 13, kHalfFloat = 14, kFloat = 15,
};
enum HsaChannelOrder : uint32_t { kOrderR = 1, kOrderRG = 3, kOrderRGB = 6, kOrderRGBA = 8 };

struct ArrayRec {
  std::unique_ptr<hipArray> array;
  ArrayGeom geom;
  int device = 0;
};

struct ObjectRec {
  bool surface = false;
  hipResourceDesc res{};
  hipTextureDesc tex{};
  bool has_view = false;
  hipResourceViewDesc view{};
};

std::mutex g_mu;
std::map<const hipArray*, ArrayRec>& arrays() {
  static auto* m = new std::map<const hipArray*, ArrayRec>;
  return *m;
}
std::map<uintptr_t, ObjectRec>& objects() {
  static auto* m = new std::map<uintptr_t, ObjectRec>;
  return *m;
}

// A channel format as the image unit reads it.
struct Format {
  unsigned count = 0;  // components
  unsigned bits = 0;   // per component
  hipChannelFormatKind kind = hipChannelFormatKindNone;
  size_t elem() const { return size_t(count) * bits / 8; }
};

bool format_of(const hipChannelFormatDesc& d, Format* f) {
  const int b[4] = {d.x, d.y, d.z, d.w};
  unsigned n = 0;
  while (n < 4 && b[n] != 0) ++n;
  for (unsigned i = n; i < 4; ++i)
    if (b[i] != 0) return false;  // a gap: (8, 0, 8, 0)
  if (n == 0) return false;
  for (unsigned i = 1; i < n; ++i)
    if (b[i] != b[0]) return false;  // mixed widths (no such gfx9 format kfdrt makes)
  if (b[0] != 8 && b[0] != 16 && b[0] != 32) return false;
  if (d.f == hipChannelFormatKindFloat && b[0] == 8) return false;
  if (d.f != hipChannelFormatKindSigned && d.f != hipChannelFormatKindUnsigned && d.f != hipChannelFormatKindFloat)
    return false;
  if (n == 3 && b[0] != 32) return false;  // 8_8_8 and 16_16_16 do not exist
  f->count = n;
  f->bits = unsigned(b[0]);
  f->kind = d.f;
  return true;
}

img::DataFormat data_format(const Format& f) {
  static const img::DataFormat k8[4] = {img::kFmt8, img::kFmt8_8, img::kFmtInvalid, img::kFmt8_8_8_8};
  static const img::DataFormat k16[4] = {img::kFmt16, img::kFmt16_16, img::kFmtInvalid, img::kFmt16_16_16_16};
  static const img::DataFormat k32[4] = {img::kFmt32, img::kFmt32_32, img::kFmt32_32_32, img::kFmt32_32_32_32};
  return (f.bits == 8 ? k8 : f.bits == 16 ? k16 : k32)[f.count - 1];
}

// How the texels read: normalized integers become floats in [0, 1] or [-1, 1]; otherwise
// integers stay integers and floats floats.
struct Reading {
  img::NumFormat num = img::kNumUint;
  uint32_t hsa_type = kUnsignedInt32;
};

bool reading_of(const Format& f, bool normalized, bool srgb, Reading* r) {
  if (f.kind == hipChannelFormatKindFloat) {
    r->num = img::kNumFloat;
    r->hsa_type = f.bits == 16 ? kHalfFloat : kFloat;
    return true;
  }
  const bool is_signed = f.kind == hipChannelFormatKindSigned;
  if (normalized) {
    if (f.bits == 32) return false;  // no normalized 32-bit integer format
    if (srgb && (is_signed || f.bits != 8)) return false;
    r->num = srgb ? img::kNumSrgb : is_signed ? img::kNumSnorm : img::kNumUnorm;
    r->hsa_type = f.bits == 8 ? (is_signed ? kSnormInt8 : kUnormInt8) : (is_signed ? kSnormInt16 : kUnormInt16);
    return true;
  }
  r->num = is_signed ? img::kNumSint : img::kNumUint;
  r->hsa_type = f.bits == 8 ? (is_signed ? kSignedInt8 : kUnsignedInt8)
                : f.bits == 16 ? (is_signed ? kSignedInt16 : kUnsignedInt16)
                               : (is_signed ? kSignedInt32 : kUnsignedInt32);
  return true;
}

// Missing components read 0, alpha 1 (the R, RG and RGB channel orders).
void dst_sel(unsigned count, img::Sel out[4]) {
  const img::Sel all[4] = {img::kSelX, img::kSelY, img::kSelZ, img::kSelW};
  for (unsigned c = 0; c < 4; ++c) out[c] = c < count ? all[c] : c == 3 ? img::kSel1 : img::kSel0;
}

uint32_t hsa_order(unsigned count) {
  return count == 1 ? kOrderR : count == 2 ? kOrderRG : count == 3 ? kOrderRGB : kOrderRGBA;
}

size_t lcm_with_align(size_t elem) {
  size_t a = kTexAlign;
  while (a % elem) a += kTexAlign;
  return a;
}

hipError_t invalid(const char* api, const std::string& why) {
  debug_log(api, why);
  return hipErrorInvalidValue;
}

hipError_t not_supported(const char* api, const std::string& why) {
  warn_once(api, why);
  return hipErrorNotSupported;
}

// Allocates an array of `w` x `h` x `d` elements (h and d 0 where the array has fewer
// dimensions; `flags` hipArray*).
hipError_t make_array(const char* api, hipArray** out, const hipChannelFormatDesc& desc, size_t w, size_t h,
                      size_t d, unsigned flags, bool drv) {
  if (!out) return hipErrorInvalidValue;
  *out = nullptr;
  Format f;
  if (!format_of(desc, &f))
    return invalid(api, "channel format (" + std::to_string(desc.x) + ", " + std::to_string(desc.y) + ", " +
                            std::to_string(desc.z) + ", " + std::to_string(desc.w) + ", kind " +
                            std::to_string(int(desc.f)) + ") has no image format");
  if (flags & ~unsigned(hipArrayLayered | hipArraySurfaceLoadStore | hipArrayTextureGather | hipArrayCubemap))
    return invalid(api, "unknown array flags " + std::to_string(flags));
  if (flags & hipArrayCubemap) return not_supported(api, "cube-map arrays are not implemented by kfdrt");
  const bool layered = flags & hipArrayLayered;
  if (w == 0) return invalid(api, "an array needs a width");
  if (layered && d == 0) return invalid(api, "a layered array needs its layer count as the depth");
  if (!layered && d != 0 && h == 0) return invalid(api, "a 3-D array needs a height");
  if (w > kMaxExtent || h > kMaxExtent || d > kMaxDepth)
    return invalid(api, "array extent " + std::to_string(w) + " x " + std::to_string(h) + " x " + std::to_string(d) +
                            " exceeds the image unit's limits (16384 x 16384 x 8192)");
  ArrayGeom g;
  g.elem = f.elem();
  g.row_bytes = w * g.elem;
  const size_t align = lcm_with_align(g.elem);
  g.pitch = (g.row_bytes + align - 1) / align * align;
  g.rows = h ? h : 1;
  g.slices = d ? d : 1;
  size_t bytes = g.pitch * g.rows * g.slices;
  void* mem = nullptr;
  if (hipError_t e = hipMalloc(&mem, bytes); e != hipSuccess) return e;
  g.data = static_cast<uint8_t*>(mem);
  auto a = std::make_unique<hipArray>();
  std::memset(a.get(), 0, sizeof(hipArray));
  a->data = mem;
  a->desc = desc;
  a->type = flags;
  a->width = unsigned(w);
  a->height = unsigned(h);
  a->depth = unsigned(d);
  a->NumChannels = f.count;
  a->Format = f.kind == hipChannelFormatKindFloat ? (f.bits == 16 ? HIP_AD_FORMAT_HALF : HIP_AD_FORMAT_FLOAT)
              : f.kind == hipChannelFormatKindSigned
                  ? (f.bits == 8 ? HIP_AD_FORMAT_SIGNED_INT8 : f.bits == 16 ? HIP_AD_FORMAT_SIGNED_INT16 : HIP_AD_FORMAT_SIGNED_INT32)
                  : (f.bits == 8 ? HIP_AD_FORMAT_UNSIGNED_INT8
                                 : f.bits == 16 ? HIP_AD_FORMAT_UNSIGNED_INT16 : HIP_AD_FORMAT_UNSIGNED_INT32);
  a->isDrv = drv;
  a->textureType = layered ? (h ? hipTextureType2DLayered : hipTextureType1DLayered)
                   : d     ? hipTextureType3D
                   : h     ? hipTextureType2D
                           : hipTextureType1D;
  int dev = 0;
  (void)hipGetDevice(&dev);
  hipArray* raw = a.get();
  std::lock_guard lk(g_mu);
  arrays()[raw] = ArrayRec{std::move(a), g, dev};
  *out = raw;
  return hipSuccess;
}

bool desc_of_format(hipArray_Format fmt, unsigned channels, hipChannelFormatDesc* d) {
  int bits;
  hipChannelFormatKind k;
  switch (fmt) {
    case HIP_AD_FORMAT_UNSIGNED_INT8: bits = 8, k = hipChannelFormatKindUnsigned; break;
    case HIP_AD_FORMAT_UNSIGNED_INT16: bits = 16, k = hipChannelFormatKindUnsigned; break;
    case HIP_AD_FORMAT_UNSIGNED_INT32: bits = 32, k = hipChannelFormatKindUnsigned; break;
    case HIP_AD_FORMAT_SIGNED_INT8: bits = 8, k = hipChannelFormatKindSigned; break;
    case HIP_AD_FORMAT_SIGNED_INT16: bits = 16, k = hipChannelFormatKindSigned; break;
    case HIP_AD_FORMAT_SIGNED_INT32: bits = 32, k = hipChannelFormatKindSigned; break;
    case HIP_AD_FORMAT_HALF: bits = 16, k = hipChannelFormatKindFloat; break;
    case HIP_AD_FORMAT_FLOAT: bits = 32, k = hipChannelFormatKindFloat; break;
    default: return false;
  }
  if (channels != 1 && channels != 2 && channels != 4) return false;
  *d = hipChannelFormatDesc{bits, channels > 1 ? bits : 0, channels > 2 ? bits : 0, channels > 3 ? bits : 0, k};
  return true;
}

hipError_t free_array(const char* api, hipArray* a) {
  if (!a) return hipErrorInvalidValue;
  void* data = nullptr;
  {
    std::lock_guard lk(g_mu);
    auto it = arrays().find(a);
    if (it == arrays().end()) return invalid(api, "not an array (never made, or already freed)");
    data = it->second.geom.data;
  }
  if (hipError_t e = hipFree(data); e != hipSuccess) return e;
  std::lock_guard lk(g_mu);
  arrays().erase(a);
  return hipSuccess;
}

// ---- descriptors ----

struct Descriptor {
  uint32_t w[HIP_TEXTURE_OBJECT_SIZE_DWORD] = {};
};

// The image part for an array or pitched memory (words 0..7 T#, 8..10 type, order, width).
hipError_t image_words(const char* api, const hipResourceDesc& res, bool normalized, bool srgb, Descriptor* out,
                       Format* fmt_out) {
  img::Image im;
  Format f;
  hipChannelFormatDesc cd;
  uint32_t width = 0;
  if (res.resType == hipResourceTypeArray) {
    const hipArray* a = res.res.array.array;
    ArrayGeom g;
    if (!a || !array_geom(a, &g)) return invalid(api, "the resource's array is not an array");
    cd = a->desc;
    if (!format_of(cd, &f)) return invalid(api, "the array's channel format has no image format");
    im.base = reinterpret_cast<uint64_t>(g.data);
    im.width = a->width;
    im.height = a->height ? a->height : 1;
    im.pitch = uint32_t(g.pitch / g.elem);
    switch (a->textureType) {
      case hipTextureType1D: im.type = img::kType1D; break;
      case hipTextureType2D: im.type = img::kType2D; break;
      case hipTextureType3D:
        im.type = img::kType3D;
        im.depth = a->depth;
        break;
      case hipTextureType1DLayered:
        im.type = img::kType1DArray;
        im.depth = a->depth;
        im.last_array = a->depth - 1;
        break;
      default:
        im.type = img::kType2DArray;
        im.depth = a->depth;
        im.last_array = a->depth - 1;
        break;
    }
    width = a->width;
  } else if (res.resType == hipResourceTypePitch2D) {
    const auto& p = res.res.pitch2D;
    cd = p.desc;
    if (!format_of(cd, &f)) return invalid(api, "the pitched resource's channel format has no image format");
    const uint64_t base = reinterpret_cast<uint64_t>(p.devPtr);
    if (!base || base % kTexAlign)
      return invalid(api, "a pitched texture's address must be a multiple of textureAlignment (256)");
    if (p.width == 0 || p.height == 0 || p.width > kMaxExtent || p.height > kMaxExtent)
      return invalid(api, "pitched texture extent " + std::to_string(p.width) + " x " + std::to_string(p.height) +
                              " is outside 1..16384");
    if (p.pitchInBytes % kTexAlign || p.pitchInBytes % f.elem() || p.pitchInBytes < p.width * f.elem())
      return invalid(api, "pitch " + std::to_string(p.pitchInBytes) +
                              " bytes: a multiple of texturePitchAlignment (256) holding a row is needed");
    if (p.pitchInBytes / f.elem() > (1u << img::kPitchBits))
      return invalid(api, "pitch exceeds the image unit's limit");
    im.base = base;
    im.type = img::kType2D;
    im.width = uint32_t(p.width);
    im.height = uint32_t(p.height);
    im.pitch = uint32_t(p.pitchInBytes / f.elem());
    width = uint32_t(p.width);
  } else {
    return invalid(api, "unknown resource type");
  }
  Reading r;
  if (!reading_of(f, normalized, srgb, &r))
    return invalid(api, normalized ? "normalized reads need 8- or 16-bit integer channels (sRGB: unsigned 8-bit)"
                                   : "unreadable channel format");
  im.data_format = data_format(f);
  im.num_format = r.num;
  dst_sel(f.count, im.dst_sel);
  img::encode(im, out->w);
  out->w[8] = r.hsa_type;
  out->w[9] = hsa_order(f.count);
  out->w[10] = width;
  *fmt_out = f;
  return hipSuccess;
}

// Linear memory: a typed V# indexed by element (tex1Dfetch compiles to buffer_load_format).
hipError_t linear_words(const char* api, const hipResourceDesc& res, bool normalized, bool srgb, Descriptor* out) {
  const auto& l = res.res.linear;
  Format f;
  if (!format_of(l.desc, &f)) return invalid(api, "the linear resource's channel format has no buffer format");
  if (f.count == 3) return invalid(api, "linear textures have 1, 2 or 4 channels");
  const uint64_t base = reinterpret_cast<uint64_t>(l.devPtr);
  if (!base || base % kTexAlign)
    return invalid(api, "a linear texture's address must be a multiple of textureAlignment (256)");
  const size_t n = l.sizeInBytes / f.elem();
  if (n == 0 || l.sizeInBytes % f.elem()) return invalid(api, "the size must be a whole number of elements");
  if (n > (size_t(1) << 27))  // hipDeviceProp_t::maxTexture1DLinear
    return invalid(api, "a linear texture holds at most 2^27 elements");
  Reading r;
  if (!reading_of(f, normalized, srgb, &r) || r.num == img::kNumSrgb)
    return invalid(api, "normalized reads need 8- or 16-bit integer channels");
  namespace vs = pm4::vsharp_gfx9;
  out->w[0] = uint32_t(base);
  out->w[1] = uint32_t(base >> 32) & ((1u << vs::kBaseHiBits) - 1);
  out->w[1] |= uint32_t(f.elem()) << vs::kStrideShift;
  out->w[2] = uint32_t(n);  // records: elements, the stride being set
  img::BufferFormat bf;
  bf.data_format = data_format(f);
  bf.num_format = r.num;
  dst_sel(f.count, bf.dst_sel);
  out->w[3] = img::encode_buffer_word3(bf);
  out->w[8] = r.hsa_type;
  out->w[9] = hsa_order(f.count);
  out->w[10] = uint32_t(n);
  return hipSuccess;
}

hipError_t sampler_words(const char* api, const hipTextureDesc& t, const Format& f, Descriptor* out) {
  img::Sampler s;
  const bool norm = t.normalizedCoords != 0;
  img::Clamp c[3];
  for (int i = 0; i < 3; ++i) {
    switch (t.addressMode[i]) {
      // Wrap and mirror need normalized coordinates (CUDA's rule; with unnormalized ones they
      // clamp, as HIP and CUDA document).
      case hipAddressModeWrap: c[i] = norm ? img::kWrap : img::kClampLastTexel; break;
      case hipAddressModeMirror: c[i] = norm ? img::kMirror : img::kClampLastTexel; break;
      case hipAddressModeClamp: c[i] = img::kClampLastTexel; break;
      case hipAddressModeBorder: c[i] = img::kClampBorder; break;
      default: return invalid(api, "unknown address mode " + std::to_string(int(t.addressMode[i])));
    }
  }
  s.clamp_x = c[0];
  s.clamp_y = c[1];
  s.clamp_z = c[2];
  s.force_unnormalized = !norm;
  if (t.filterMode != hipFilterModePoint && t.filterMode != hipFilterModeLinear)
    return invalid(api, "unknown filter mode");
  if (t.filterMode == hipFilterModeLinear && f.kind != hipChannelFormatKindFloat &&
      t.readMode != hipReadModeNormalizedFloat)
    return invalid(api, "linear filtering needs texels read as floats (a float format, or hipReadModeNormalizedFloat)");
  s.mag_filter = s.min_filter = t.filterMode == hipFilterModeLinear ? img::kBilinear : img::kPoint;
  s.z_filter = t.filterMode == hipFilterModeLinear ? img::kMipLinear : img::kMipPoint;
  s.mip_filter = img::kMipNone;
  s.max_lod = 0.0f;
  const bool uses_border = c[0] == img::kClampBorder || c[1] == img::kClampBorder || c[2] == img::kClampBorder;
  const float* b = t.borderColor;
  if (!uses_border || (b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 0)) s.border = img::kTransBlack;
  else if (b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 1) s.border = img::kOpaqueBlack;
  else if (b[0] == 1 && b[1] == 1 && b[2] == 1 && b[3] == 1) s.border = img::kOpaqueWhite;
  else
    return not_supported(api, "border colours other than (0,0,0,0), (0,0,0,1) and (1,1,1,1) need the GPU's border "
                              "colour table, which kfdrt does not program");
  if (t.maxAnisotropy > 1) debug_log(api, "anisotropic filtering ignored (no mipmaps)");
  img::encode(s, out->w + HIP_SAMPLER_OBJECT_OFFSET_DWORD);
  return hipSuccess;
}

// Whether the current device has an image unit (gfx940 and later have none: no image
// instructions; their texture limits are 0).
bool has_images() {
  int dev = 0;
  hipDeviceProp_t p;
  return hipGetDevice(&dev) == hipSuccess && hipGetDeviceProperties(&p, dev) == hipSuccess && p.maxTexture2D[0] > 0;
}

// Descriptor memory: system memory every GPU maps, written here before any kernel reads it.
hipError_t place(const char* api, const Descriptor& d, void** out) {
  HIP_INIT_NAMED(rt, api);
  mem::AllocRequest r;
  r.heap = mem::Heap::Gtt;
  r.coherence = mem::Coherence::Coherent;
  r.size = sizeof(d.w);
  r.alignment = 256;
  r.host_access = true;
  r.owner_gpu = rt->current().gpu_id();
  r.map_all = true;
  r.read_only = true;
  auto p = rt->memory().allocate(r);
  if (!p) {
    debug_log(api, p.message());
    return from_error(p.error(), hipErrorOutOfMemory);
  }
  std::memcpy(*p, d.w, sizeof(d.w));
  *out = *p;
  return hipSuccess;
}

hipError_t destroy_object(const char* api, uintptr_t obj, bool surface) {
  if (!obj) return hipSuccess;
  {
    std::lock_guard lk(g_mu);
    auto it = objects().find(obj);
    if (it == objects().end() || it->second.surface != surface)
      return invalid(api, surface ? "not a surface object" : "not a texture object");
    objects().erase(it);
  }
  HIP_INIT_NAMED(rt, api);
  // Kernels queued before may still read the descriptors (hipFree waits so too).
  for (int i = 0; i < rt->device_count(); ++i) (void)rt->device(i)->synchronize(api);
  if (auto st = rt->memory().free(reinterpret_cast<void*>(obj)); !st) {
    debug_log(api, st.message());
    return from_error(st.error(), hipErrorInvalidValue);
  }
  return hipSuccess;
}

bool find_object(uintptr_t obj, bool surface, ObjectRec* out) {
  std::lock_guard lk(g_mu);
  auto it = objects().find(obj);
  if (it == objects().end() || it->second.surface != surface) return false;
  *out = it->second;
  return true;
}

}  // namespace

bool array_geom(const hipArray* a, ArrayGeom* g) {
  std::lock_guard lk(g_mu);
  auto it = arrays().find(a);
  if (it == arrays().end()) return false;
  *g = it->second.geom;
  return true;
}

}  // namespace hip

using namespace hip;

HIP_EXPORT hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w, hipChannelFormatKind f) {
  return hipChannelFormatDesc{x, y, z, w, f};
}

// ---- arrays ----

HIP_EXPORT hipError_t hipMallocArray(hipArray** array, const hipChannelFormatDesc* desc, size_t width, size_t height,
                                     unsigned int flags) {
  if (!array || !desc) return ret(hipErrorInvalidValue);
  // Layered arrays need a depth (their layers): hipMalloc3DArray makes them.
  if (flags & hipArrayLayered) return ret(invalid("hipMallocArray", "layered arrays are made by hipMalloc3DArray"));
  return ret(make_array("hipMallocArray", array, *desc, width, height, 0, flags, false));
}

HIP_EXPORT hipError_t hipMalloc3DArray(hipArray** array, const hipChannelFormatDesc* desc, hipExtent extent,
                                       unsigned int flags) {
  if (!array || !desc) return ret(hipErrorInvalidValue);
  return ret(make_array("hipMalloc3DArray", array, *desc, extent.width, extent.height, extent.depth, flags, false));
}

HIP_EXPORT hipError_t hipArrayCreate(hipArray** array, const HIP_ARRAY_DESCRIPTOR* d) {
  if (!array || !d) return ret(hipErrorInvalidValue);
  hipChannelFormatDesc cd;
  if (!desc_of_format(d->Format, d->NumChannels, &cd))
    return ret(invalid("hipArrayCreate", "unknown format or channel count (1, 2 or 4)"));
  return ret(make_array("hipArrayCreate", array, cd, d->Width, d->Height, 0, 0, true));
}

HIP_EXPORT hipError_t hipArray3DCreate(hipArray** array, const HIP_ARRAY3D_DESCRIPTOR* d) {
  if (!array || !d) return ret(hipErrorInvalidValue);
  hipChannelFormatDesc cd;
  if (!desc_of_format(d->Format, d->NumChannels, &cd))
    return ret(invalid("hipArray3DCreate", "unknown format or channel count (1, 2 or 4)"));
  return ret(make_array("hipArray3DCreate", array, cd, d->Width, d->Height, d->Depth, d->Flags, true));
}

HIP_EXPORT hipError_t hipFreeArray(hipArray* array) { return ret(free_array("hipFreeArray", array)); }
HIP_EXPORT hipError_t hipArrayDestroy(hipArray* array) { return ret(free_array("hipArrayDestroy", array)); }

HIP_EXPORT hipError_t hipGetChannelDesc(hipChannelFormatDesc* desc, hipArray_const_t array) {
  ArrayGeom g;
  if (!desc || !array || !array_geom(array, &g)) return ret(hipErrorInvalidValue);
  *desc = array->desc;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipArrayGetInfo(hipChannelFormatDesc* desc, hipExtent* extent, unsigned int* flags,
                                      hipArray* array) {
  ArrayGeom g;
  if (!array || !array_geom(array, &g)) return ret(hipErrorInvalidValue);
  if (desc) *desc = array->desc;
  if (extent) *extent = make_hipExtent(array->width, array->height, array->depth);
  if (flags) *flags = array->type;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipArrayGetDescriptor(HIP_ARRAY_DESCRIPTOR* d, hipArray* array) {
  ArrayGeom g;
  if (!d || !array || !array_geom(array, &g)) return ret(hipErrorInvalidValue);
  if (array->depth) return ret(hipErrorInvalidValue);  // a 3-D or layered array: hipArray3DGetDescriptor
  d->Width = array->width;
  d->Height = array->height;
  d->Format = array->Format;
  d->NumChannels = array->NumChannels;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipArray3DGetDescriptor(HIP_ARRAY3D_DESCRIPTOR* d, hipArray* array) {
  ArrayGeom g;
  if (!d || !array || !array_geom(array, &g)) return ret(hipErrorInvalidValue);
  d->Width = array->width;
  d->Height = array->height;
  d->Depth = array->depth;
  d->Format = array->Format;
  d->NumChannels = array->NumChannels;
  d->Flags = array->type;
  return hipSuccess;
}

// ---- texture objects ----

HIP_EXPORT hipError_t hipCreateTextureObject(hipTextureObject_t* obj, const hipResourceDesc* res,
                                             const hipTextureDesc* tex, const hipResourceViewDesc* view) {
  const char* api = "hipCreateTextureObject";
  if (!obj || !res || !tex) return ret(hipErrorInvalidValue);
  *obj = nullptr;
  if (res->resType == hipResourceTypeMipmappedArray)
    return ret(not_supported(api, "mipmapped arrays are not implemented by kfdrt"));
  if (!has_images()) return ret(not_supported(api, "the device has no image instructions (gfx940 and later)"));
  if (view) {
    // A view that changes nothing is accepted; reinterpreting formats, levels or layers is not
    // implemented.
    const bool identity = view->format == hipResViewFormatNone && view->firstMipmapLevel == 0 &&
                          view->lastMipmapLevel == 0 && view->firstLayer == 0 && view->lastLayer == 0;
    if (!identity) return ret(not_supported(api, "resource views are not implemented by kfdrt"));
  }
  const bool normalized = tex->readMode == hipReadModeNormalizedFloat;
  if (tex->readMode != hipReadModeElementType && !normalized) return ret(invalid(api, "unknown read mode"));
  Descriptor d;
  Format f;
  if (res->resType == hipResourceTypeLinear) {
    if (hipError_t e = linear_words(api, *res, normalized, tex->sRGB != 0, &d); e != hipSuccess) return ret(e);
    if (!format_of(res->res.linear.desc, &f)) return ret(hipErrorInvalidValue);
  } else {
    if (hipError_t e = image_words(api, *res, normalized, tex->sRGB != 0, &d, &f); e != hipSuccess) return ret(e);
  }
  if (hipError_t e = sampler_words(api, *tex, f, &d); e != hipSuccess) return ret(e);
  void* p = nullptr;
  if (hipError_t e = place(api, d, &p); e != hipSuccess) return ret(e);
  ObjectRec rec;
  rec.res = *res;
  rec.tex = *tex;
  if (view) {
    rec.has_view = true;
    rec.view = *view;
  }
  {
    std::lock_guard lk(g_mu);
    objects()[reinterpret_cast<uintptr_t>(p)] = rec;
  }
  *obj = static_cast<hipTextureObject_t>(p);
  return hipSuccess;
}

HIP_EXPORT hipError_t hipDestroyTextureObject(hipTextureObject_t obj) {
  return ret(destroy_object("hipDestroyTextureObject", reinterpret_cast<uintptr_t>(obj), false));
}

HIP_EXPORT hipError_t hipGetTextureObjectResourceDesc(hipResourceDesc* desc, hipTextureObject_t obj) {
  ObjectRec r;
  if (!desc || !find_object(reinterpret_cast<uintptr_t>(obj), false, &r)) return ret(hipErrorInvalidValue);
  *desc = r.res;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipGetTextureObjectTextureDesc(hipTextureDesc* desc, hipTextureObject_t obj) {
  ObjectRec r;
  if (!desc || !find_object(reinterpret_cast<uintptr_t>(obj), false, &r)) return ret(hipErrorInvalidValue);
  *desc = r.tex;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipGetTextureObjectResourceViewDesc(hipResourceViewDesc* desc, hipTextureObject_t obj) {
  ObjectRec r;
  if (!desc || !find_object(reinterpret_cast<uintptr_t>(obj), false, &r) || !r.has_view)
    return ret(hipErrorInvalidValue);
  *desc = r.view;
  return hipSuccess;
}

// ---- surface objects (C++ linkage, as HIP 5.2 declares them) ----

HIP_EXPORT_CXX hipError_t hipCreateSurfaceObject(hipSurfaceObject_t* obj, const hipResourceDesc* res) {
  const char* api = "hipCreateSurfaceObject";
  if (!obj || !res) return ret(hipErrorInvalidValue, api);
  *obj = nullptr;
  if (res->resType != hipResourceTypeArray) return ret(invalid(api, "a surface is made of an array"), api);
  if (!has_images()) return ret(not_supported(api, "the device has no image instructions (gfx940 and later)"), api);
  Descriptor d;
  Format f;
  if (hipError_t e = image_words(api, *res, false, false, &d, &f); e != hipSuccess) return ret(e, api);
  void* p = nullptr;
  if (hipError_t e = place(api, d, &p); e != hipSuccess) return ret(e, api);
  ObjectRec rec;
  rec.surface = true;
  rec.res = *res;
  {
    std::lock_guard lk(g_mu);
    objects()[reinterpret_cast<uintptr_t>(p)] = rec;
  }
  *obj = static_cast<hipSurfaceObject_t>(p);
  return hipSuccess;
}

HIP_EXPORT_CXX hipError_t hipDestroySurfaceObject(hipSurfaceObject_t obj) {
  return ret(destroy_object("hipDestroySurfaceObject", reinterpret_cast<uintptr_t>(obj), true),
             "hipDestroySurfaceObject");
}
