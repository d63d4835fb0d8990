// SPDX-License-Identifier: MIT
// Engine test helpers: raw queues through CREATE_QUEUE, signal events with their slots, a code object loader into VRAM.
#include "tests/emu/engine_util.h"

#include <elf.h>
#include <sys/mman.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

#include "pm4/aql.h"
#include "pm4/scratch_regs.h"

namespace engtest {

namespace {

constexpr uint64_t kPage = 4096;
constexpr uint32_t kRelative64 = 13;  // R_AMDGPU_RELATIVE64 (AMDGPUUsage "Relocation Records")

// The events page as a dGPU runtime provides it (the thunk's hsaKmtCreateEvent): a GTT buffer,
// mapped to the GPU so engines can write event mailboxes, handed to the first CREATE_EVENT. It
// serves the whole process.
struct EventsPage {
  Buffer* buf = nullptr;
  bool handed = false;
};
EventsPage& events_page(Device& d, Gpu& g) {
  static std::mutex mu;
  static EventsPage page;
  std::lock_guard<std::mutex> lk(mu);
  if (!page.buf) {
    auto b = Buffer::make(d, g, Kind::Gtt, kfd::uapi::kEventPageSize, KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED);
    if (!b.ok()) ADD_FAILURE() << b.message();
    else page.buf = new Buffer(std::move(b).value());  // lives as long as the process's events
  }
  return page;
}

}  // namespace

// ---- RawQueue --------------------------------------------------------------------------------

base::Result<std::unique_ptr<RawQueue>> RawQueue::create(Device& d, Gpu& g, uint32_t type, uint32_t ring_bytes) {
  std::unique_ptr<RawQueue> q(new RawQueue);
  q->type_ = type;
  q->ring_bytes_ = ring_bytes;
  KFD_ASSIGN(q->ring_, Buffer::make(d, g, Kind::Gtt, std::max<uint64_t>(ring_bytes, kPage),
                                    KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED));
  // One page: amd_queue_t for AQL (read/write_dispatch_id inside it), else rptr at 0, wptr at 8.
  KFD_ASSIGN(q->ptrs_, Buffer::make(d, g, Kind::Gtt, kPage, KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED));
  std::memset(q->ring_.ptr(), 0, q->ring_.size());
  std::memset(q->ptrs_.ptr(), 0, kPage);
  auto* base = static_cast<uint8_t*>(q->ptrs_.ptr());
  kfd::QueueArgs a;
  a.gpu_id = g.gpu_id;
  a.queue_type = type;
  a.ring_base_address = q->ring_.va();
  a.ring_size = ring_bytes;
  if (type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL) {
    using pm4::aql::AmdQueue;
    auto* aq = reinterpret_cast<AmdQueue*>(base);
    aq->hsa_queue.base_address = q->ring_.va();
    aq->hsa_queue.size = ring_bytes / pm4::aql::kPacketSize;
    q->rptr_ = &aq->read_dispatch_id;
    q->wptr_mem_ = &aq->write_dispatch_id;
    auto* ring16 = static_cast<uint16_t*>(q->ring_.ptr());
    for (uint32_t i = 0; i < ring_bytes / pm4::aql::kPacketSize; ++i)
      ring16[i * 32] = pm4::aql::kTypeInvalid;
  } else {
    q->rptr_ = reinterpret_cast<uint64_t*>(base);
    q->wptr_mem_ = reinterpret_cast<uint64_t*>(base + 8);
  }
  a.read_pointer_address = reinterpret_cast<uint64_t>(q->rptr_);
  a.write_pointer_address = reinterpret_cast<uint64_t>(q->wptr_mem_);
  if (type == KFD_IOC_QUEUE_TYPE_COMPUTE || type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL) {
    KFD_ASSIGN(q->eop_, Buffer::make(d, g, Kind::Vram, g.sizes.eop_size, 0, false));
    KFD_ASSIGN(q->cwsr_, Buffer::make(d, g, Kind::Vram, g.sizes.cwsr_total, 0, false));
    a.eop_buffer_address = q->eop_.va();
    a.eop_buffer_size = g.sizes.eop_size;
    a.ctx_save_restore_address = q->cwsr_.va();
    a.ctx_save_restore_size = g.sizes.ctx_save_restore_size;
    a.ctl_stack_size = g.sizes.ctl_stack_size;
  }
  KFD_ASSIGN(q->info_, d.kfd.create_queue(a));
  q->dev_ = &d;  // from here on the destructor destroys the queue
  const uint64_t slice = q->info_.doorbell_offset & ~(kfd::uapi::kDoorbellSliceSize - 1);
  KFD_ASSIGN(q->doorbell_map_, d.kfd.mmap(nullptr, kfd::uapi::kDoorbellSliceSize, PROT_READ | PROT_WRITE,
                                          MAP_SHARED, slice));
  q->doorbell_ = reinterpret_cast<uint64_t*>(static_cast<uint8_t*>(q->doorbell_map_) +
                                             (q->info_.doorbell_offset & (kfd::uapi::kDoorbellSliceSize - 1)));
  return q;
}

RawQueue::~RawQueue() {
  if (dev_) {
    auto r = dev_->kfd.destroy_queue(info_.queue_id);
    EXPECT_TRUE(r.ok()) << r.message();
  }
  if (doorbell_map_) ::munmap(doorbell_map_, kfd::uapi::kDoorbellSliceSize);
}

void RawQueue::write(std::span<const uint32_t> dw) {
  const bool bytes = type_ == KFD_IOC_QUEUE_TYPE_SDMA || type_ == KFD_IOC_QUEUE_TYPE_SDMA_XGMI;
  const uint32_t n = ring_dwords();
  uint64_t pos = bytes ? wptr_ / 4 : wptr_;
  for (uint32_t v : dw) ring()[pos++ % n] = v;
  wptr_ += bytes ? dw.size() * 4 : dw.size();
}

void RawQueue::publish() {
  __atomic_store_n(wptr_mem_, wptr_, __ATOMIC_RELEASE);
  __atomic_store_n(doorbell_, wptr_, __ATOMIC_RELEASE);
}

void RawQueue::submit(std::span<const uint32_t> dw) {
  write(dw);
  publish();
}

void RawQueue::ring_doorbell(uint64_t v) { __atomic_store_n(doorbell_, v, __ATOMIC_RELEASE); }

uint64_t RawQueue::rptr() const {
  if (type_ == KFD_IOC_QUEUE_TYPE_COMPUTE)
    return __atomic_load_n(reinterpret_cast<const uint32_t*>(rptr_), __ATOMIC_ACQUIRE);
  return __atomic_load_n(rptr_, __ATOMIC_ACQUIRE);
}

bool RawQueue::consumed() const {
  if (type_ == KFD_IOC_QUEUE_TYPE_COMPUTE) return rptr() == wptr_ % ring_dwords();
  return rptr() == wptr_;
}

bool RawQueue::wait_consumed(std::chrono::milliseconds timeout) const {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (!consumed()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(100us);
  }
  return true;
}

void RawQueue::submit_aql(const void* packet64) {
  const uint32_t slots = ring_bytes_ / pm4::aql::kPacketSize;
  auto* slot = reinterpret_cast<uint32_t*>(ring()) + (wptr_ % slots) * 16;
  const auto* src = static_cast<const uint32_t*>(packet64);
  std::memcpy(slot + 1, src + 1, pm4::aql::kPacketSize - 4);
  __atomic_store_n(slot, src[0], __ATOMIC_RELEASE);
  ++wptr_;
  __atomic_store_n(wptr_mem_, wptr_, __ATOMIC_RELEASE);
  __atomic_store_n(doorbell_, wptr_ - 1, __ATOMIC_RELEASE);  // AQL doorbells hold the packet index
}

// ---- EngineTest ------------------------------------------------------------------------------

void EngineTest::TearDown() {
  queues_.clear();  // before the buffers they use
  buffers_.clear();
  for (uint32_t id : events_) EXPECT_TRUE(kfd().destroy_event(id).ok()) << id;
  for (void* p : reserved_) ::munmap(p, kPage);
}

Buffer& EngineTest::buffer(size_t size, Kind kind, uint32_t flags) {
  auto b = Buffer::make(dev(), gpu0(), kind, size, flags);
  if (!b.ok()) {
    ADD_FAILURE() << b.message();
    std::abort();
  }
  buffers_.push_back(std::make_unique<Buffer>(std::move(b).value()));
  std::memset(buffers_.back()->ptr(), 0, buffers_.back()->size());
  return *buffers_.back();
}

RawQueue& EngineTest::queue(uint32_t type, uint32_t ring_bytes) {
  auto q = RawQueue::create(dev(), gpu0(), type, ring_bytes);
  if (!q.ok()) {
    ADD_FAILURE() << q.message();
    std::abort();
  }
  queues_.push_back(std::move(q).value());
  return *queues_.back();
}

SignalEvent EngineTest::signal_event() {
  EventsPage& page = events_page(dev(), gpu0());
  if (!page.buf) return {};
  auto e = kfd().create_event(KFD_IOC_EVENT_SIGNAL, false, 0, page.handed ? 0 : page.buf->handle());
  EXPECT_TRUE(e.ok()) << e.message();
  if (!e.ok()) return {};
  page.handed = true;
  events_.push_back(e->event_id);
  SignalEvent s;
  s.id = e->event_id;
  s.slot = static_cast<uint64_t*>(page.buf->ptr()) + e->event_slot_index;
  return s;
}

uint32_t EngineTest::memory_event() {
  auto e = kfd().create_event(KFD_IOC_EVENT_MEMORY, false);
  EXPECT_TRUE(e.ok()) << e.message();
  if (!e.ok()) return 0;
  events_.push_back(e->event_id);
  return e->event_id;
}

uint32_t EngineTest::hw_exception_event() {
  auto e = kfd().create_event(KFD_IOC_EVENT_HW_EXCEPTION, false);
  EXPECT_TRUE(e.ok()) << e.message();
  if (!e.ok()) return 0;
  events_.push_back(e->event_id);
  return e->event_id;
}

kfd::WaitResult EngineTest::wait_event(uint32_t id, uint32_t timeout_ms) {
  kfd::EventData d{};
  d.event_id = id;
  auto r = kfd().wait_events({&d, 1}, true, timeout_ms);
  EXPECT_TRUE(r.ok()) << r.message();
  return r.ok() ? *r : kfd::WaitResult::Fail;
}

bool EngineTest::wait_memory_event(uint32_t id, uint32_t timeout_ms, kfd_hsa_memory_exception_data* data) {
  kfd::EventData d{};
  d.event_id = id;
  auto r = kfd().wait_events({&d, 1}, true, timeout_ms);
  if (!r.ok() || *r != kfd::WaitResult::Complete) return false;
  *data = d.memory_exception_data;
  return true;
}

uint64_t EngineTest::unmapped_va() {
  void* p = ::mmap(nullptr, kPage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  EXPECT_NE(p, MAP_FAILED);
  reserved_.push_back(p);
  return reinterpret_cast<uint64_t>(p);
}

bool EngineTest::eventually(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(100us);
  }
  return true;
}

// ---- GpuCode ---------------------------------------------------------------------------------

std::string GpuCode::load(const std::string& path, Device& d, Gpu& g) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "cannot open " + path;
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  Elf64_Ehdr eh;
  if (file.size() < sizeof eh) return "truncated ELF";
  std::memcpy(&eh, file.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_machine != EM_AMDGPU) return "not an AMDGPU ELF";
  auto ph = [&](unsigned i) { Elf64_Phdr p; std::memcpy(&p, file.data() + eh.e_phoff + i * sizeof p, sizeof p); return p; };
  auto sh = [&](unsigned i) { Elf64_Shdr s; std::memcpy(&s, file.data() + eh.e_shoff + i * sizeof s, sizeof s); return s; };
  uint64_t span = 0;
  for (unsigned i = 0; i < eh.e_phnum; ++i)
    if (ph(i).p_type == PT_LOAD) span = std::max<uint64_t>(span, ph(i).p_vaddr + ph(i).p_memsz);
  auto b = Buffer::make(d, g, Kind::Vram, span + kPage, KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE);
  if (!b.ok()) return b.message();
  buf_ = std::make_unique<Buffer>(std::move(b).value());
  auto* base = static_cast<uint8_t*>(buf_->ptr());
  std::memset(base, 0, buf_->size());
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    const Elf64_Phdr p = ph(i);
    if (p.p_type == PT_LOAD) std::memcpy(base + p.p_vaddr, file.data() + p.p_offset, p.p_filesz);
  }
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr s = sh(i);
    if (s.sh_type == SHT_SYMTAB || s.sh_type == SHT_DYNSYM) {
      const Elf64_Shdr strtab = sh(s.sh_link);
      for (uint64_t o = 0; o + sizeof(Elf64_Sym) <= s.sh_size; o += sizeof(Elf64_Sym)) {
        Elf64_Sym sym;
        std::memcpy(&sym, file.data() + s.sh_offset + o, sizeof sym);
        std::string n = reinterpret_cast<const char*>(file.data() + strtab.sh_offset + sym.st_name);
        if (!n.empty() && sym.st_shndx != SHN_UNDEF) symbols_[n] = buf_->va() + sym.st_value;
      }
    }
    if (s.sh_type == SHT_RELA) {
      for (uint64_t o = 0; o + sizeof(Elf64_Rela) <= s.sh_size; o += sizeof(Elf64_Rela)) {
        Elf64_Rela r;
        std::memcpy(&r, file.data() + s.sh_offset + o, sizeof r);
        if (ELF64_R_TYPE(r.r_info) == kRelative64) {
          const uint64_t v = buf_->va() + r.r_addend;
          std::memcpy(base + r.r_offset, &v, 8);
        }
      }
    }
  }
  return {};
}

uint64_t GpuCode::kernel_descriptor(const std::string& name) const {
  auto it = symbols_.find(name + ".kd");
  return it == symbols_.end() ? 0 : it->second;
}

std::string kernel_path(const std::string& file) { return std::string(EMU_KERNEL_DIR) + "/" + file; }

void scratch_vsharp(uint64_t base, uint32_t out[4]) {
  namespace vs = pm4::vsharp_gfx9;
  out[0] = uint32_t(base);
  out[1] = uint32_t(base >> 32) | 1u << vs::kSwizzleEnableBit;
  out[2] = 0xFFFFFFFFu;
  out[3] = vs::kSelX << vs::kDstSelXShift | vs::kSelY << vs::kDstSelYShift | vs::kSelZ << vs::kDstSelZShift |
           vs::kSelW << vs::kDstSelWShift | vs::kNumFormatUint << vs::kNumFormatShift |
           vs::kDataFormat32 << vs::kDataFormatShift | 1u << vs::kElementSizeShift |
           3u << vs::kIndexStrideShift | 1u << vs::kAddTidEnableBit;
}

uint32_t tmpring_gfx9(uint32_t waves, uint32_t lane_bytes) {
  namespace tr = pm4::tmpring_gfx9;
  const uint32_t units = (lane_bytes * 64 + tr::kWaveSizeUnit - 1) / tr::kWaveSizeUnit;
  return waves << tr::kWavesShift | units << tr::kWaveSizeShift;
}

}  // namespace engtest
