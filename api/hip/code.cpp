// SPDX-License-Identifier: MIT
// Images loaded per device: bundle selection, code object loading, kernel argument layouts, globals.
#include "api/hip/code.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "api/hip/alloc.h"

namespace hip {
namespace {

template <class T>
T rd(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Plain bundle: header, then per entry offset, size, id length and id (clang ClangOffloadBundler.cpp).
// Reads only below `avail`; the furthest byte an entry claims may lie beyond it.
size_t bundle_extent(const uint8_t* p, size_t avail) {
  if (avail < 32) return 0;
  uint64_t n = rd<uint64_t>(p + 24);
  if (n > 4096) return 0;
  uint64_t pos = 32, end = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (avail - pos < 24) return avail;  // the entry table itself is cut
    uint64_t off = rd<uint64_t>(p + pos), size = rd<uint64_t>(p + pos + 8), idlen = rd<uint64_t>(p + pos + 16);
    if (idlen > 4096) return 0;
    pos += 24 + idlen;
    if (pos > avail) return avail;
    end = std::max<uint64_t>(end, off + size < off ? UINT64_MAX : off + size);
  }
  return size_t(std::min<uint64_t>(std::max(end, pos), avail));
}

// ELF64: the furthest of the header tables, the sections' and the segments' file bytes, reading
// the tables only where they lie below `avail`.
size_t elf_extent(const uint8_t* p, size_t avail) {
  if (avail < 64) return avail;
  const uint64_t phoff = rd<uint64_t>(p + 0x20), shoff = rd<uint64_t>(p + 0x28);
  const uint16_t phentsize = rd<uint16_t>(p + 0x36), phnum = rd<uint16_t>(p + 0x38);
  const uint16_t shentsize = rd<uint16_t>(p + 0x3A), shnum = rd<uint16_t>(p + 0x3C);
  // A table's end, or UINT64_MAX when it wraps; entries too small for their fields are not read.
  auto table_end = [](uint64_t off, uint64_t num, uint64_t entsize) {
    return off > UINT64_MAX - num * entsize ? UINT64_MAX : off + num * entsize;
  };
  auto sat_add = [](uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; };
  const uint64_t ph_end = table_end(phoff, phnum, phentsize), sh_end = table_end(shoff, shnum, shentsize);
  uint64_t end = std::max<uint64_t>(64, std::max(ph_end, sh_end));
  if (sh_end <= avail && shentsize >= 0x28)
    for (uint16_t i = 0; i < shnum; ++i) {
      const uint8_t* sh = p + shoff + size_t(i) * shentsize;
      if (rd<uint32_t>(sh + 4) != 8) end = std::max(end, sat_add(rd<uint64_t>(sh + 0x18), rd<uint64_t>(sh + 0x20)));
    }
  if (ph_end <= avail && phentsize >= 0x28)
    for (uint16_t i = 0; i < phnum; ++i) {
      const uint8_t* ph = p + phoff + size_t(i) * phentsize;
      end = std::max(end, sat_add(rd<uint64_t>(ph + 8), rd<uint64_t>(ph + 0x20)));
    }
  return size_t(std::min<uint64_t>(end, avail));
}

bool is_elf(const uint8_t* p) { return std::memcmp(p, "\x7f" "ELF", 4) == 0 && p[4] == 2; }

KernelInfo make_info(const loader::Kernel& k, uint64_t kernel_object) {
  KernelInfo info;
  const loader::KernelMeta& m = k.meta;
  info.name = m.name;
  info.kernel_object = kernel_object;
  info.kernarg_size = uint32_t(m.kernarg_segment_size);
  info.kernarg_align = uint32_t(std::max<uint64_t>(m.kernarg_segment_align, 8));
  info.group_segment = uint32_t(m.group_segment_fixed_size);
  info.private_segment = uint32_t(m.private_segment_fixed_size);
  info.dynamic_stack = m.uses_dynamic_stack.value_or(false);
  info.max_workgroup = uint32_t(m.max_flat_workgroup_size ? m.max_flat_workgroup_size : 1024);
  info.sgprs = uint32_t(m.sgpr_count);
  info.vgprs = uint32_t(m.vgpr_count);
  for (const loader::KernelArg& a : m.args) {
    if (loader::is_hidden(a.value_kind)) {
      if (a.value_kind != loader::ValueKind::HiddenNone)
        info.hidden.push_back({uint32_t(a.offset), uint32_t(a.size), a.value_kind});
      info.hostcall |= a.value_kind == loader::ValueKind::HiddenHostcallBuffer;
    } else {
      info.args.push_back({uint32_t(a.offset), uint32_t(a.size)});
      info.explicit_size = std::max(info.explicit_size, uint32_t(a.offset + a.size));
    }
  }
  return info;
}

}  // namespace

size_t image_extent(const uint8_t* p, size_t avail) {
  if (!p || avail < 5) return 0;
  if (avail >= 24 && std::memcmp(p, loader::kBundleMagic, 24) == 0) return bundle_extent(p, avail);
  if (is_elf(p)) return elf_extent(p, avail);
  if (std::memcmp(p, "CCOB", 4) == 0) {
    auto h = loader::parse_compressed_header(loader::Bytes(p, std::min<size_t>(avail, 64)));
    if (h && h->total_size) return size_t(std::min<uint64_t>(h->total_size, avail));
  }
  return 0;
}

// ---- SegmentAllocator ----

base::Result<loader::Span> SegmentAllocator::allocate(size_t size, size_t align, bool executable) {
  mem::AllocRequest r;
  r.heap = mem::Heap::Vram;
  r.size = size;
  r.alignment = std::min<size_t>(std::max<size_t>(align, 256), size_t(2) << 20);
  r.host_access = true;  // the loader writes and relocates the segments in place
  r.executable = executable;
  r.owner_gpu = dev_.gpu_id();
  auto a = dev_.memory().allocate(r);
  if (!a) {
    // No host-visible VRAM left (a small BAR, or none: the driver refuses a PUBLIC allocation
    // beyond it): system memory the GPU maps, as the blit kernels use. Slower instruction and
    // constant fetches, but the program runs; the VRAM error is kept when this fails too.
    mem::AllocRequest g = r;
    g.heap = mem::Heap::Gtt;
    g.coherence = mem::Coherence::NonCoherent;
    g.host_access = true;
    g.alignment = std::max<size_t>(r.alignment, 4096);
    auto b = dev_.memory().allocate(g);
    if (!b) return a.error();
    debug_log("code object", "segment of " + std::to_string(size) + " bytes in system memory: " + a.message());
    a = b;
  }
  void* p = *a;
  std::memset(p, 0, size);
  allocations().add(dev_.memory(), {reinterpret_cast<uintptr_t>(p), size, AllocKind::Code, 0, dev_.index(), false});
  return loader::Span{static_cast<uint8_t*>(p), size};
}

void SegmentAllocator::free(loader::Span span) {
  // The loader's interface has no error path here (an unload cannot be undone): say the cause.
  if (auto st = dev_.memory().free(span.host); !st) warn_once("code object unload", st.message());
}

// ---- DeviceImage ----

base::Status DeviceImage::load(loader::Bytes elf) {
  KFD_ASSIGN(auto co, loader::CodeObject::parse(elf));
  co_.emplace(std::move(co));
  if (!loader::target_compatible(co_->target(), dev_.target()))
    return base::Error::msg("code object for " + co_->target().str() + " cannot run on device " +
                               std::to_string(dev_.index()) + " (" + dev_.target().str() + ")",
                           ENOEXEC);
  KFD_ASSIGN(auto l, loader::LoadedCodeObject::load(*co_, seg_));
  lco_.emplace(std::move(l));
  return {};
}

base::Result<const KernelInfo*> DeviceImage::kernel(std::string_view name) {
  std::lock_guard lk(mu_);
  if (auto it = kernels_.find(name); it != kernels_.end()) return it->second.get();
  const loader::Kernel* k = co_->find_kernel(name);
  if (!k) return base::Error::msg("kernel " + std::string(name) + " is not in the code object", ENOENT);
  KFD_ASSIGN(uint64_t ko, lco_->kernel_object(name));
  auto info = std::make_unique<KernelInfo>(make_info(*k, ko));
  static std::atomic<uint64_t> serials{0};
  info->serial = serials.fetch_add(1, std::memory_order_relaxed) + 1;
  const KernelInfo* out = info.get();
  kernels_.emplace(std::string(name), std::move(info));
  return out;
}

base::Result<loader::LoadedCodeObject::Global> DeviceImage::global(std::string_view name) const {
  auto g = lco_->global(name);
  if (!g) return base::Error::msg("global " + std::string(name) + " is not in the code object", ENOENT);
  return g;
}

// ---- Image ----

std::unique_ptr<Image> Image::borrowed(const uint8_t* data) {
  auto im = std::unique_ptr<Image>(new Image());
  im->data_ = data;
  // No one gives the size: the headers do, read no further than the program's mapping goes (a
  // corrupt fat binary must not crash the program at start-up; its launches fail instead).
  im->size_ = image_extent(data, mapped_extent(data));
  return im;
}

std::unique_ptr<Image> Image::owned(std::vector<uint8_t> bytes) {
  auto im = std::unique_ptr<Image>(new Image());
  im->storage_ = std::move(bytes);
  im->data_ = im->storage_.data();
  im->size_ = im->storage_.size();
  return im;
}

void Image::add_managed(ManagedVar v) {
  std::lock_guard lk(mu_);
  managed_.push_back(std::move(v));
}

base::Result<loader::Bytes> Image::select(Device& dev) {
  if (!data_ || size_ < 64) return base::Error::msg("not a code object or offload bundle", EINVAL);
  loader::Bytes all(data_, size_);
  if (is_elf(data_)) return all;
  if (!bundle_) {
    KFD_ASSIGN(auto b, loader::parse_bundle(all));
    bundle_.emplace(std::move(b));
  }
  auto e = loader::select_code_object(*bundle_, dev.target());
  if (!e) return base::Error::msg(e.message(), ENOEXEC);
  return (*e)->data;
}

base::Status Image::init_managed(DeviceImage& di) {
  // The device-side variable of a managed variable holds the address of its allocation.
  for (const ManagedVar& v : managed_) {
    KFD_ASSIGN(auto g, di.global(v.name));
    if (g.size < sizeof(void*)) continue;
    std::memcpy(reinterpret_cast<void*>(g.address), &v.allocation, sizeof(void*));
  }
  return {};
}

base::Result<DeviceImage*> Image::on(Device& dev) {
  std::lock_guard lk(mu_);
  if (auto it = loaded_.find(dev.index()); it != loaded_.end()) return it->second.get();
  KFD_ASSIGN(loader::Bytes elf, select(dev));
  auto di = std::make_unique<DeviceImage>(dev);
  KFD_TRY(di->load(elf));
  KFD_TRY(init_managed(*di));
  DeviceImage* out = di.get();
  loaded_.emplace(dev.index(), std::move(di));
  return out;
}

// ---- Function, Var ----

base::Result<const KernelInfo*> Function::info(Device& dev) {
  int i = dev.index();
  if (i < kMaxDevices)
    if (const KernelInfo* k = cache[i].load(std::memory_order_acquire)) return k;
  if (!image) return base::Error::msg("kernel " + name + " has no code object", ENOENT);
  KFD_ASSIGN(DeviceImage* di, image->on(dev));
  KFD_ASSIGN(const KernelInfo* k, di->kernel(name));
  if (i < kMaxDevices) cache[i].store(k, std::memory_order_release);
  return k;
}

base::Result<void*> Var::address(Device& dev) {
  if (!image) return base::Error::msg("variable " + name + " has no code object", ENOENT);
  KFD_ASSIGN(DeviceImage* di, image->on(dev));
  KFD_ASSIGN(auto g, di->global(name));
  return reinterpret_cast<void*>(g.address);
}

// ---- Registry ----

Registry& Registry::get() {
  static Registry* r = new Registry();  // never destroyed: module destructors run late
  return *r;
}

void** Registry::add_fatbin(const void* wrapper) {
  struct Wrapper {  // clang CGCUDANV.cpp: {magic "HIPF", version 1, binary, unused}
    int32_t magic, version;
    const void* binary;
    void* unused;
  };
  auto fb = std::make_unique<FatBin>();
  auto* w = static_cast<const Wrapper*>(wrapper);
  if (w && mapped_extent(w) >= sizeof(Wrapper) && uint32_t(w->magic) == loader::kHipFatMagic && w->binary)
    fb->image = Image::borrowed(static_cast<const uint8_t*>(w->binary));
  fb->handle_slot = fb->image.get();
  std::lock_guard lk(mu_);
  fatbins_.push_back(std::move(fb));
  return &fatbins_.back()->handle_slot;
}

void Registry::add_function(void** handle, const void* host_fn, const char* name) {
  auto f = std::make_unique<Function>();
  f->image = handle ? static_cast<Image*>(*handle) : nullptr;
  f->name = name ? name : "";
  std::lock_guard lk(mu_);
  auto& slot = functions_[host_fn];
  if (slot) generation_.fetch_add(1, std::memory_order_release);  // the old one goes away
  slot = std::move(f);
}

void Registry::add_var(void** handle, void* host_var, const char* name, size_t size) {
  auto v = std::make_unique<Var>();
  v->image = handle ? static_cast<Image*>(*handle) : nullptr;
  v->name = name ? name : "";
  v->size = size;
  std::lock_guard lk(mu_);
  vars_[host_var] = std::move(v);
}

void Registry::add_managed(void** handle, void** pointer, const void* init, const char* name,
                           size_t size, unsigned align) {
  (void)align;  // allocations are page aligned
  Image* im = handle ? static_cast<Image*>(*handle) : nullptr;
  void* mem = nullptr;
  if (alloc_managed(size, &mem) != hipSuccess || !pointer) return;
  if (init) std::memcpy(mem, init, size);
  *pointer = mem;
  if (im) im->add_managed({name ? name : "", mem});
}

void Registry::remove_fatbin(void** handle) {
  if (!handle) return;
  Image* im = static_cast<Image*>(*handle);
  std::lock_guard lk(mu_);
  generation_.fetch_add(1, std::memory_order_release);
  std::erase_if(functions_, [im](const auto& kv) { return kv.second->image == im; });
  std::erase_if(vars_, [im](const auto& kv) { return kv.second->image == im; });
}

Function* Registry::function_locked(const void* host_fn) {
  std::lock_guard lk(mu_);
  auto it = functions_.find(host_fn);
  return it == functions_.end() ? nullptr : it->second.get();
}

// Every launch looks its host stub up: a small per-thread cache answers the repeated ones without
// the registry's lock. An entry is used only while the registry's generation is the one it was
// filled under (no Function destroyed since). The generation is read before the locked lookup,
// so a removal racing with the fill leaves an entry that is already stale.
Function* Registry::function(const void* host_fn) {
  struct Entry {
    const void* key;
    Function* f;
    uint64_t gen;
  };
  static thread_local Entry t_cache[8];
  Entry& e = t_cache[(reinterpret_cast<uintptr_t>(host_fn) >> 4) & 7];
  const uint64_t gen = generation_.load(std::memory_order_acquire);
  if (e.key == host_fn && e.gen == gen && e.f) return e.f;
  Function* f = function_locked(host_fn);
  if (f) e = Entry{host_fn, f, gen};
  return f;
}

Var* Registry::var(const void* host_var) {
  std::lock_guard lk(mu_);
  auto it = vars_.find(host_var);
  return it == vars_.end() ? nullptr : it->second.get();
}

Var* Registry::var_by_name(const std::string& name) {
  std::lock_guard lk(mu_);
  for (const auto& kv : vars_)
    if (kv.second->name == name) return kv.second.get();
  return nullptr;
}

}  // namespace hip
