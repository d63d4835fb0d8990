// SPDX-License-Identifier: MIT
// Writes the seed inputs of the engine fuzzers (fuzz_aql, fuzz_pm4, fuzz_sdma) with the pm4/ packet writers: make_seeds <corpus dir>.
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "pm4/aql.h"
#include "pm4/family.h"
#include "pm4/kernel_descriptor.h"
#include "pm4/regs.h"
#include "pm4/sdma.h"
#include "pm4/type3.h"
#include "tests/fuzz/engine_harness.h"

namespace {

using Dw = std::vector<uint32_t>;
constexpr uint64_t D = fuzz::kDataVa;
constexpr uint32_t kEndpgm = 0xBF810000u;  // s_endpgm (AMD Vega ISA SOPP opcode 1)

template <class F>
void add(Dw& v, size_t max, F f) {
  size_t at = v.size();
  v.resize(at + max);
  v.resize(at + f(v.data() + at));
}

// The harness's input: u16 ring byte count, the ring bytes, then the data buffer's first bytes.
void save(const std::string& dir, const std::string& name, const std::vector<uint8_t>& ring,
          const std::vector<uint8_t>& data) {
  std::vector<uint8_t> out = {uint8_t(ring.size()), uint8_t(ring.size() >> 8)};
  out.insert(out.end(), ring.begin(), ring.end());
  out.insert(out.end(), data.begin(), data.end());
  mkdir(dir.c_str(), 0755);
  FILE* f = std::fopen((dir + "/" + name).c_str(), "wb");
  if (!f || std::fwrite(out.data(), 1, out.size(), f) != out.size()) std::perror(name.c_str());
  if (f) std::fclose(f);
}

std::vector<uint8_t> bytes(const Dw& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Data buffer bytes with `v` placed at `offset`.
void place(std::vector<uint8_t>& data, size_t offset, const void* p, size_t n) {
  if (data.size() < offset + n) data.resize(offset + n);
  std::memcpy(data.data() + offset, p, n);
}

void pm4_seeds(const std::string& dir) {
  const pm4::Family& f = *pm4::family_for(90010);
  Dw v;
  const uint32_t four[] = {1, 2, 3, 4};
  add(v, 16, [&](uint32_t* o) { return pm4::write_write_data(o, {.address = D + 0x100}, four); });
  pm4::ReleaseMem rm;
  rm.data_sel = pm4::kData32;
  rm.address = D + 0x200;
  rm.data = 7;
  rm.cache = pm4::release_cache_writeback(f);
  add(v, 16, [&](uint32_t* o) { return pm4::write_release_mem(o, rm); });
  save(dir, "write_release", bytes(v), {});

  v.clear();
  add(v, 16, [&](uint32_t* o) { return pm4::write_wait_reg_mem(o, {.address = D + 0x40, .reference = 0}); });
  add(v, 16, [&](uint32_t* o) { return pm4::write_copy_data(o, {.src = D + 0x40, .dst = D + 0x80}); });
  add(v, 16, [&](uint32_t* o) { return pm4::write_atomic_mem(o, {.address = D + 0x300, .src = 5}); });
  add(v, 16, [&](uint32_t* o) { return pm4::write_dma_data(o, {.src = D + 0x400, .dst = D + 0x500, .byte_count = 256}); });
  add(v, 16, [&](uint32_t* o) { return pm4::write_event_write(o, pm4::kEventCsPartialFlush, pm4::kEventIndexCsPartialFlush); });
  add(v, 16, [&](uint32_t* o) { return pm4::write_acquire_mem(o, pm4::acquire_invalidate_all(f), f.acquire_mem); });
  add(v, 16, [&](uint32_t* o) { return pm4::write_nop(o, 3); });
  save(dir, "wait_copy_atomic_dma", bytes(v), {});

  // An IB in the data buffer, with a WRITE_DATA that CHAINs to a second IB.
  Dw ib2;
  add(ib2, 16, [&](uint32_t* o) { return pm4::write_write_data(o, {.address = D + 0x600}, four); });
  Dw ib1;
  add(ib1, 16, [&](uint32_t* o) { return pm4::write_write_data(o, {.address = D + 0x700}, four); });
  add(ib1, 16, [&](uint32_t* o) {
    return pm4::write_indirect_buffer(o, {.address = D + 0x900, .dwords = uint32_t(ib2.size()), .chain = true});
  });
  std::vector<uint8_t> data;
  place(data, 0x800, ib1.data(), ib1.size() * 4);
  place(data, 0x900, ib2.data(), ib2.size() * 4);
  v.clear();
  add(v, 16, [&](uint32_t* o) { return pm4::write_indirect_buffer(o, {.address = D + 0x800, .dwords = uint32_t(ib1.size())}); });
  save(dir, "indirect_chain", bytes(v), data);

  // DISPATCH_DIRECT of a one-wave kernel whose code (s_endpgm) is in the data buffer.
  namespace r = pm4::reg;
  v.clear();
  const uint32_t pgm[] = {uint32_t((D + 0x100) >> 8), uint32_t((D + 0x100) >> 40)};
  add(v, 8, [&](uint32_t* o) { return pm4::write_set_sh_reg(o, r::kComputePgmLo, pgm); });
  const uint32_t rsrc[] = {0, 0};
  add(v, 8, [&](uint32_t* o) { return pm4::write_set_sh_reg(o, r::kComputePgmRsrc1, rsrc); });
  const uint32_t threads[] = {63, 0, 0};
  add(v, 8, [&](uint32_t* o) { return pm4::write_set_sh_reg(o, r::kComputeNumThreadX, threads); });
  add(v, 8, [&](uint32_t* o) { return pm4::write_dispatch_direct(o, {{1, 1, 1}, 1}); });
  data.assign(0x104, 0);
  std::memcpy(data.data() + 0x100, &kEndpgm, 4);
  save(dir, "dispatch_direct", bytes(v), data);
}

void sdma_seeds(const std::string& dir) {
  namespace sd = pm4::sdma;
  Dw v;
  add(v, 16, [&](uint32_t* o) { return sd::write_copy_linear(o, {.src = D + 0x100, .dst = D + 0x200, .bytes = 64}); });
  add(v, 16, [&](uint32_t* o) { return sd::write_fence(o, D + 0x300, 1); });
  add(v, 16, [&](uint32_t* o) { return sd::write_trap(o, 0); });
  save(dir, "copy_fence_trap", bytes(v), {});

  v.clear();
  const uint32_t four[] = {1, 2, 3, 4};
  add(v, 16, [&](uint32_t* o) { return sd::write_write_untiled(o, D + 0x100, four); });
  add(v, 16, [&](uint32_t* o) { return sd::write_poll_regmem(o, {.address = D + 0x100, .value = 1, .mask = 0xff}); });
  add(v, 16, [&](uint32_t* o) { return sd::write_atomic(o, {.address = D + 0x400, .src = 3}); });
  add(v, 16, [&](uint32_t* o) { return sd::write_const_fill(o, {.dst = D + 0x500, .data = 0xabcd, .bytes = 128}); });
  add(v, 16, [&](uint32_t* o) { return sd::write_timestamp(o, 2, D + 0x600); });
  add(v, 16, [&](uint32_t* o) { return sd::write_hdp_flush(o); });
  add(v, 16, [&](uint32_t* o) { return sd::write_nop(o, 2); });
  save(dir, "write_poll_atomic_fill", bytes(v), {});

  v.clear();
  sd::CopyRect rect;
  rect.element_log2 = 2;
  rect.src = D + 0x1000;
  rect.dst = D + 0x2000;
  rect.src_pitch = rect.dst_pitch = 16;
  rect.src_slice = rect.dst_slice = 16 * 4;
  rect.width = 4;
  rect.height = 4;
  rect.depth = 2;
  add(v, 16, [&](uint32_t* o) { return sd::write_copy_rect(o, rect); });
  Dw ib;
  add(ib, 16, [&](uint32_t* o) { return sd::write_fence(o, D + 0x700, 9); });
  add(v, 16, [&](uint32_t* o) { return sd::write_indirect(o, {.address = D + 0x800, .dwords = uint32_t(ib.size())}); });
  std::vector<uint8_t> data;
  place(data, 0x800, ib.data(), ib.size() * 4);
  save(dir, "rect_indirect", bytes(v), data);
}

void aql_seeds(const std::string& dir) {
  namespace aql = pm4::aql;
  using pm4::aql::AmdSignal;
  std::vector<uint8_t> data(0x1000, 0);
  AmdSignal s{};
  s.kind = aql::kSignalKindUser;
  s.value = 1;
  place(data, 0x100, &s, sizeof s);  // completion signal
  place(data, 0x140, &s, sizeof s);  // a dependency, already 0 after the first packet
  // A kernel descriptor at 0x400 whose code (s_endpgm) is at 0x800.
  pm4::KernelDescriptor kd{};
  kd.kernel_code_entry_byte_offset = 0x400;
  place(data, 0x400, &kd, sizeof kd);
  place(data, 0x800, &kEndpgm, 4);

  std::vector<uint8_t> ring;
  auto packet = [&](const void* p) {
    ring.insert(ring.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + 64);
  };
  aql::KernelDispatchPacket k{};
  k.header = aql::make_header(aql::kTypeKernelDispatch, true, aql::kScopeSystem, aql::kScopeSystem);
  k.setup = 1;
  k.workgroup_size_x = 64;
  k.workgroup_size_y = k.workgroup_size_z = 1;
  k.grid_size_x = 128;
  k.grid_size_y = k.grid_size_z = 1;
  k.kernel_object = D + 0x400;
  k.kernarg_address = D + 0xc00;
  k.completion_signal = D + 0x100;
  packet(&k);
  aql::BarrierPacket b{};
  b.header = aql::make_header(aql::kTypeBarrierAnd, true, aql::kScopeNone, aql::kScopeSystem);
  b.dep_signal[0] = D + 0x100;
  b.completion_signal = D + 0x140;
  packet(&b);
  save(dir, "dispatch_barrier", ring, data);

  ring.clear();
  aql::BarrierValuePacket bv{};
  bv.header = aql::make_header(aql::kTypeVendor, true, aql::kScopeNone, aql::kScopeNone);
  bv.format = aql::kVendorBarrierValue;
  bv.signal = D + 0x180;
  bv.value = 0;
  bv.mask = -1;
  bv.cond = aql::kCondEq;
  packet(&bv);
  Dw ib;
  const uint32_t two[] = {5, 6};
  add(ib, 16, [&](uint32_t* o) { return pm4::write_write_data(o, {.address = D + 0x600}, two); });
  place(data, 0x900, ib.data(), ib.size() * 4);
  aql::Pm4IbPacket pib = pm4::make_aql_pm4_ib(
      D + 0x900, uint32_t(ib.size()), D + 0x100,
      aql::make_header(aql::kTypeVendor, true, aql::kScopeSystem, aql::kScopeSystem));
  packet(&pib);
  b.header = aql::make_header(aql::kTypeBarrierOr, false, aql::kScopeNone, aql::kScopeNone);
  packet(&b);
  save(dir, "barrier_value_pm4_ib", ring, data);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir (tests/fuzz/corpus)>\n", argv[0]);
    return 2;
  }
  const std::string root = argv[1];
  mkdir(root.c_str(), 0755);
  pm4_seeds(root + "/fuzz_pm4");
  sdma_seeds(root + "/fuzz_sdma");
  aql_seeds(root + "/fuzz_aql");
  return 0;
}
