// SPDX-License-Identifier: MIT
// Test harness implementation: host memory map, ELF64 code object loading, AQL packet building.
#include "tests/emu/harness.h"

#include <elf.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "pm4/aql.h"
#include "pm4/kernel_descriptor.h"
#include "queues/scratch.h"

namespace emu_test {

bool env_strict() {
  const char* m = std::getenv("KFDEMU_MEMORY_MODEL");
  return !(m && std::string(m) == "sc");
}

emu::shader::CacheConfig env_cache_config() {
  auto num = [](const char* n) { const char* v = std::getenv(n); return v && *v ? std::strtoull(v, nullptr, 0) : 0ull; };
  emu::shader::CacheConfig c;
  c.trace = num("KFDEMU_TRACE_FENCES") != 0;
  c.report_stale = num("KFDEMU_REPORT_STALE") != 0;
  c.l2_lines = num("KFDEMU_L2_LINES");
  c.l1_lines = static_cast<uint32_t>(num("KFDEMU_L1_LINES"));
  c.label = "harness GPU";
  return c;
}

HostMemory::HostMemory() : HostMemory(env_strict(), env_cache_config()) {}

HostMemory::HostMemory(bool strict, emu::shader::CacheConfig config) {
  if (strict) cache_ = std::make_unique<emu::shader::GpuCache>(std::move(config));
}

HostMemory::~HostMemory() {
  for (auto& [va, b] : bufs_)
    if (cache_ && b.cached) cache_->remove(b.cached);
}

uint8_t* HostMemory::translate(uint64_t va, uint64_t size, bool write) {
  std::lock_guard l(mu_);
  auto it = bufs_.upper_bound(va);
  if (it == bufs_.begin()) return nullptr;
  --it;
  const Buf& b = it->second;
  if (va < it->first || va + size > it->first + b.size || va + size < va) return nullptr;
  if (write && !b.writable) return nullptr;
  return b.base + (va - it->first);
}

emu::shader::Range HostMemory::lookup(uint64_t va) {
  std::lock_guard l(mu_);
  auto it = bufs_.upper_bound(va);
  if (it == bufs_.begin()) return {};
  --it;
  if (va >= it->first + it->second.size) return {};
  return {it->first, it->first + it->second.size, it->second.base, it->second.writable, it->second.cached};
}

uint8_t* HostMemory::alloc(size_t size, bool writable, emu::shader::Mtype mtype) {
  std::unique_ptr<uint8_t[]> s(new uint8_t[size + 256]());
  uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(s.get()) + 255) & ~uintptr_t{255});
  const uint64_t va = reinterpret_cast<uint64_t>(base);
  emu::shader::CachedRange* cached = cache_ ? cache_->add(va, size, base, mtype) : nullptr;
  std::lock_guard l(mu_);
  bufs_[va] = Buf{std::move(s), base, size, writable, cached};
  return base;
}

void HostMemory::unmap(const void* p) {
  std::lock_guard l(mu_);
  auto it = bufs_.find(reinterpret_cast<uint64_t>(p));
  if (it == bufs_.end()) return;
  if (cache_ && it->second.cached) cache_->remove(it->second.cached);
  bufs_.erase(it);
}

std::string CodeObject::load(const std::string& path, HostMemory& mem) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "cannot open " + path;
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (file.size() < sizeof(Elf64_Ehdr)) return "truncated ELF";
  Elf64_Ehdr eh;
  std::memcpy(&eh, file.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_machine != 224) return "not an AMDGPU ELF";
  auto ph = [&](unsigned i) { Elf64_Phdr p; std::memcpy(&p, file.data() + eh.e_phoff + i * sizeof p, sizeof p); return p; };
  auto sh = [&](unsigned i) { Elf64_Shdr s; std::memcpy(&s, file.data() + eh.e_shoff + i * sizeof s, sizeof s); return s; };
  uint64_t span = 0;
  for (unsigned i = 0; i < eh.e_phnum; ++i)
    if (ph(i).p_type == PT_LOAD) span = std::max<uint64_t>(span, ph(i).p_vaddr + ph(i).p_memsz);
  uint8_t* base = mem.alloc(span + 4096, false);
  base_ = reinterpret_cast<uint64_t>(base);
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr p = ph(i);
    if (p.p_type == PT_LOAD) std::memcpy(base + p.p_vaddr, file.data() + p.p_offset, p.p_filesz);
  }
  Elf64_Shdr shstr = sh(eh.e_shstrndx);
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr s = sh(i);
    const char* sname = reinterpret_cast<const char*>(file.data() + shstr.sh_offset + s.sh_name);
    if (std::string(sname) == ".text") { text_begin = base_ + s.sh_addr; text_end = text_begin + s.sh_size; }
    if (s.sh_type == SHT_SYMTAB || s.sh_type == SHT_DYNSYM) {
      Elf64_Shdr strtab = sh(s.sh_link);
      for (uint64_t o = 0; o + sizeof(Elf64_Sym) <= s.sh_size; o += sizeof(Elf64_Sym)) {
        Elf64_Sym sym;
        std::memcpy(&sym, file.data() + s.sh_offset + o, sizeof sym);
        std::string n = reinterpret_cast<const char*>(file.data() + strtab.sh_offset + sym.st_name);
        if (!n.empty() && sym.st_shndx != SHN_UNDEF) symbols_[n] = base_ + sym.st_value;
      }
    }
    if (s.sh_type == SHT_RELA) {
      for (uint64_t o = 0; o + sizeof(Elf64_Rela) <= s.sh_size; o += sizeof(Elf64_Rela)) {
        Elf64_Rela r;
        std::memcpy(&r, file.data() + s.sh_offset + o, sizeof r);
        if (ELF64_R_TYPE(r.r_info) == 13) {  // R_AMDGPU_RELATIVE64
          uint64_t v = base_ + r.r_addend;
          std::memcpy(base + r.r_offset, &v, 8);
        }
      }
    }
  }
  return {};
}

uint64_t CodeObject::kernel(const std::string& name) const {
  auto it = symbols_.find(name + ".kd");
  return it == symbols_.end() ? 0 : it->second;
}

std::vector<std::string> CodeObject::kernel_names() const {
  std::vector<std::string> v;
  for (auto& [n, a] : symbols_)
    if (n.size() > 3 && n.ends_with(".kd")) v.push_back(n.substr(0, n.size() - 3));
  return v;
}

uint32_t kernel_scratch_lane_bytes(const uint8_t* kd_bytes, uint32_t private_size) {
  pm4::KernelDescriptor kd;
  std::memcpy(&kd, kd_bytes, sizeof kd);
  const bool dynamic_stack = pm4::decode_code_properties(kd.kernel_code_properties).uses_dynamic_stack;
  return std::max(kd.private_segment_fixed_size + (dynamic_stack ? 1024u : 0u), private_size);
}

uint32_t scratch_lane_rounded(uint32_t lane_bytes) { return (lane_bytes + 15) / 16 * 16; }

uint64_t scratch_bytes(uint32_t lane_bytes, uint32_t waves) {
  return uint64_t{scratch_lane_rounded(lane_bytes)} * 64 * waves;
}

namespace {

// amd_queue_t's scratch fields for a backing store at `base` (queues::scratch's gfx9 encoders);
// gfx9+ CPs take the backing location as the store's address.
void fill_queue_scratch(pm4::aql::AmdQueue& q, uint8_t* base, uint32_t lane_bytes,
                        uint32_t waves) {
  namespace sc = queues::scratch;
  const uint32_t lane = scratch_lane_rounded(lane_bytes);
  const uint64_t total = scratch_bytes(lane, waves);
  q.compute_tmpring_size =
      sc::tmpring_size_gfx9(waves, lane * 64 / sc::tmpring_gfx9::kWaveSizeUnit);
  sc::Descriptor d = sc::descriptor_gfx9(reinterpret_cast<uint64_t>(base), uint32_t(total), false);
  std::memcpy(q.scratch_resource_descriptor, d.word, sizeof d.word);
  q.scratch_backing_memory_location = reinterpret_cast<uint64_t>(base);
  q.scratch_backing_memory_byte_size = total;
  q.scratch_wave64_lane_byte_size = lane;
}

}  // namespace

emu::shader::Outcome dispatch(emu::shader::ShaderCore& core, HostMemory& mem, uint64_t kd,
                              const Launch& l, const void* args, size_t args_size,
                              emu::shader::Hooks* hooks) {
  using pm4::aql::KernelDispatchPacket;
  auto* pkt = reinterpret_cast<KernelDispatchPacket*>(mem.alloc(sizeof(KernelDispatchPacket)));
  pkt->header = pm4::aql::make_header(pm4::aql::kTypeKernelDispatch, false, pm4::aql::kScopeNone,
                                      pm4::aql::kScopeNone);
  pkt->setup = l.grid[2] > 1 ? 3 : l.grid[1] > 1 ? 2 : 1;
  pkt->workgroup_size_x = l.block[0];
  pkt->workgroup_size_y = l.block[1];
  pkt->workgroup_size_z = l.block[2];
  pkt->grid_size_x = l.grid[0];
  pkt->grid_size_y = l.grid[1];
  pkt->grid_size_z = l.grid[2];
  pkt->private_segment_size = l.private_size;
  pkt->group_segment_size = l.dynamic_lds;
  pkt->kernel_object = kd;
  // Kernarg: explicit args then zeroed room for hidden arguments.
  uint8_t* ka = mem.alloc(args_size + 256, false, emu::shader::Mtype::UC);  // kernarg: uncached
  std::memcpy(ka, args, args_size);
  pkt->kernarg_address = reinterpret_cast<uint64_t>(ka);
  auto* queue = reinterpret_cast<pm4::aql::AmdQueue*>(mem.alloc(sizeof(pm4::aql::AmdQueue)));
  const uint8_t* desc = mem.translate(kd, sizeof(pm4::KernelDescriptor), false);
  const uint32_t lane = l.scratch_lane_bytes >= 0 ? uint32_t(l.scratch_lane_bytes)
                        : desc ? kernel_scratch_lane_bytes(desc, l.private_size) : 0;
  const uint32_t waves = l.scratch_waves ? l.scratch_waves : 16 * std::max(1u, core.workers());
  uint8_t* backing = l.scratch_backing;
  if (lane && !backing) backing = mem.alloc(scratch_bytes(lane, waves));
  if (lane) fill_queue_scratch(*queue, backing, lane, waves);
  RecordingHooks local;
  emu::shader::Dispatch d{reinterpret_cast<uint64_t>(pkt), reinterpret_cast<uint64_t>(queue), 1,
                          reinterpret_cast<uint64_t>(backing)};
  d.cus = l.cus;
  d.preempt = l.preempt;
  emu::shader::GpuCache* cache = mem.cache();
  if (cache && l.acquire_system) cache->invalidate();
  auto out = core.run(d, mem, hooks ? *hooks : local);
  if (cache && l.release_system) (void)cache->writeback();
  mem.unmap(pkt);
  mem.unmap(ka);
  mem.unmap(queue);
  if (backing && backing != l.scratch_backing) mem.unmap(backing);
  return out;
}

// EMU_KERNEL_DIR in the environment overrides the build directory (e.g. to run the same tests
// on the corpus compiled with other flags).
// EMU_KERNEL_VARIANT=O0 picks "basic.O0.co" for "basic.co" (the corpus built at -O0).
std::string kernel_path(const std::string& file) {
  const char* dir = std::getenv("EMU_KERNEL_DIR");
  const char* variant = std::getenv("EMU_KERNEL_VARIANT");
  std::string name = file;
  if (variant && *variant && name.size() > 3) name = name.substr(0, name.size() - 3) + "." + variant + ".co";
  return std::string(dir && *dir ? dir : EMU_KERNEL_DIR) + "/" + name;
}

}  // namespace emu_test
