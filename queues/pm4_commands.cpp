// SPDX-License-Identifier: MIT
// PM4 command sequences: signals, waits, timestamps, and a kernel dispatch planned from its descriptor.
#include "queues/pm4_commands.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>

namespace queues {
namespace {

constexpr uint32_t lo32(uint64_t v) { return uint32_t(v); }
constexpr uint32_t hi32(uint64_t v) { return uint32_t(v >> 32); }

base::Error invalid(const std::string& what) { return base::Error::msg("PM4 dispatch: " + what, EINVAL); }

pm4::ReleaseMem end_of_pipe() {
  pm4::ReleaseMem r;
  r.event_type = pm4::kEventCacheFlushAndInvTs;
  r.event_index = pm4::kEventIndexEndOfPipe;
  return r;
}

}  // namespace

SignalTarget signal_target(const aql::AmdSignal& s) {
  return SignalTarget{reinterpret_cast<uint64_t>(&s.value), s.event_mailbox_ptr, s.event_id};
}

SignalTarget signal_target(const Signal& s) { return signal_target(*s.amd()); }

uint32_t pm4_signal_dwords(const SignalTarget& s) {
  return (s.value_address ? pm4::kReleaseMemDwords : 0) + (s.mailbox ? pm4::kReleaseMemDwords : 0);
}

size_t write_pm4_signal(uint32_t* out, const pm4::Family& f, const SignalTarget& s, int64_t value,
                        bool writeback) {
  size_t n = 0;
  if (s.value_address) {
    pm4::ReleaseMem r = end_of_pipe();
    r.cache = writeback ? pm4::release_cache_writeback(f) : 0;
    r.int_sel = pm4::kIntDataAfterConfirmNoInt;  // confirmed before the mailbox write below
    r.data_sel = pm4::kData64;
    r.address = s.value_address;
    r.data = uint64_t(value);
    n += pm4::write_release_mem(out + n, r);
  }
  if (s.mailbox) {
    pm4::ReleaseMem e = end_of_pipe();
    e.int_sel = pm4::kIntAfterWriteConfirm;
    e.data_sel = pm4::kData64;
    e.address = s.mailbox;
    e.data = s.event_id;
    e.int_ctxid = s.event_id;
    n += pm4::write_release_mem(out + n, e);
  }
  return n;
}

base::Result<size_t> write_pm4_wait_signal(uint32_t* out, uint64_t value_address, Cond cond,
                                           int64_t operand) {
  if (value_address == 0 || value_address % 8)
    return base::Error::msg("PM4 signal wait: signal value address " + base::hex(value_address) +
                                " is not 8-byte aligned", EINVAL);
  pm4::WaitRegMem hi, lo;
  hi.function = pm4::kCompareEqual;
  hi.address = value_address + 4;
  lo.address = value_address;
  if (cond == Cond::Eq) {
    hi.reference = hi32(uint64_t(operand));
    lo.function = pm4::kCompareEqual;
    lo.reference = lo32(uint64_t(operand));
  } else if (cond == Cond::Lt && operand > 0 && operand <= (int64_t(1) << 32)) {
    hi.reference = 0;
    // value < 2^32 is hi == 0 alone: the second wait always passes.
    lo.function = operand == (int64_t(1) << 32) ? pm4::kCompareAlways : pm4::kCompareLess;
    lo.reference = lo32(uint64_t(operand));
  } else {
    return base::Error::msg(std::string("PM4 signal wait: value ") + cond_name(cond) + " " +
                                std::to_string(operand) +
                                " cannot be split into two 32-bit waits (Eq, or Lt with 0 < operand <= 2^32)",
                            EINVAL);
  }
  size_t n = pm4::write_wait_reg_mem(out, hi);
  n += pm4::write_wait_reg_mem(out + n, lo);
  return n;
}

size_t write_pm4_timestamp(uint32_t* out, uint64_t address) {
  pm4::CopyData c;
  c.src_sel = pm4::kCopySrcGpuClock;
  c.dst_sel = pm4::kCopyDstMemory;
  c.count64 = true;
  c.wr_confirm = true;
  c.dst = address;
  return pm4::write_copy_data(out, c);
}

size_t write_pm4_end_timestamp(uint32_t* out, uint64_t address) {
  pm4::ReleaseMem r = end_of_pipe();
  r.int_sel = pm4::kIntDataAfterConfirmNoInt;
  r.data_sel = pm4::kDataGpuClock;
  r.address = address;
  return pm4::write_release_mem(out, r);
}

size_t write_pm4_write_memory(uint32_t* out, uint64_t address, std::span<const uint32_t> data) {
  pm4::WriteData w;
  w.dst_sel = pm4::kWriteDstMemory;
  w.wr_confirm = true;
  w.cache_policy = 2;  // BYPASS (kfdtest PM4WriteDataPacket)
  w.address = address;
  return pm4::write_write_data(out, w, data);
}

size_t write_pm4_fence(uint32_t* out, uint64_t address, uint32_t value, uint32_t cache) {
  pm4::ReleaseMem r = end_of_pipe();
  r.cache = cache;
  r.int_sel = pm4::kIntDataAfterConfirmNoInt;
  r.data_sel = pm4::kData32;
  r.address = address;
  r.data = value;
  return pm4::write_release_mem(out, r);
}

size_t write_pm4_wait_equal(uint32_t* out, uint64_t address, uint32_t value) {
  pm4::WaitRegMem w;
  w.function = pm4::kCompareEqual;
  w.address = address;
  w.reference = value;
  return pm4::write_wait_reg_mem(out, w);
}

size_t write_pm4_decrement(uint32_t* out, const SignalTarget& s, uint64_t fence, uint32_t seq) {
  size_t n = write_pm4_wait_equal(out, fence, seq);
  pm4::AtomicMem a;
  a.atomic = pm4::kAtomicSubRtn64;
  a.command = pm4::kAtomicCommandSinglePass;
  a.address = s.value_address;
  a.src = 1;
  n += pm4::write_atomic_mem(out + n, a);
  if (s.mailbox) {
    pm4::ReleaseMem e = end_of_pipe();
    e.int_sel = pm4::kIntAfterWriteConfirm;
    e.data_sel = pm4::kData64;
    e.address = s.mailbox;
    e.data = s.event_id;
    e.int_ctxid = s.event_id;
    n += pm4::write_release_mem(out + n, e);
  }
  return n;
}

// amd_signal_t start_ts and end_ts, from the address of its value (ROCr amd_hsa_signal.h).
constexpr uint64_t kStartTsFromValue = offsetof(aql::AmdSignal, start_ts) - offsetof(aql::AmdSignal, value);
constexpr uint64_t kEndTsFromValue = offsetof(aql::AmdSignal, end_ts) - offsetof(aql::AmdSignal, value);

size_t write_pm4_start_stamp(uint32_t* out, const SignalTarget& s) {
  return write_pm4_timestamp(out, s.value_address + kStartTsFromValue);
}

size_t write_pm4_end_stamp(uint32_t* out, const SignalTarget& s) {
  return write_pm4_end_timestamp(out, s.value_address + kEndTsFromValue);
}

base::Result<Pm4Kernel> make_pm4_kernel(const pm4::KernelDescriptor& kd, uint64_t kernel_object,
                                        const pm4::Family& f) {
  Pm4Kernel k;
  k.kernel_object = kernel_object;
  k.entry = kernel_object + uint64_t(kd.kernel_code_entry_byte_offset);
  k.rsrc1 = kd.compute_pgm_rsrc1;
  k.rsrc2 = kd.compute_pgm_rsrc2;
  k.rsrc3 = kd.compute_pgm_rsrc3;
  k.properties = kd.kernel_code_properties;
  k.user_sgpr_count = pm4::decode_rsrc2(kd.compute_pgm_rsrc2).user_sgpr_count;
  k.preload_length = pm4::kernarg_preload_length(kd.kernarg_preload);
  k.preload_offset = pm4::kernarg_preload_offset(kd.kernarg_preload);
  k.group_segment_fixed_size = kd.group_segment_fixed_size;
  k.private_segment_fixed_size = kd.private_segment_fixed_size;
  k.kernarg_size = kd.kernarg_size;
  k.wave32 = (k.properties & pm4::kEnableWavefrontSize32) != 0;
  const std::string at = "kernel descriptor at " + base::hex(kernel_object);
  if (kernel_object == 0 || k.entry % 256)
    return invalid(at + ": entry point " + base::hex(k.entry) +
                   " is not 256-byte aligned (COMPUTE_PGM_LO holds address >> 8)");
  if (k.wave32 && f.vgprs_wave32 == 0)
    return invalid(at + ": wave32 kernel on " + f.name + ", which has no wave32");
  const uint32_t need = pm4::user_sgprs_from_properties(k.properties) + k.preload_length;
  if (need > k.user_sgpr_count || k.user_sgpr_count > pm4::reg::kComputeUserDataCount)
    return invalid(at + ": " + std::to_string(need) + " user SGPRs enabled, USER_SGPR_COUNT " +
                   std::to_string(k.user_sgpr_count) + " (COMPUTE_USER_DATA holds " +
                   std::to_string(pm4::reg::kComputeUserDataCount) + ")");
  return k;
}

namespace {

base::Status check_shape(const Pm4Launch& l) {
  if (l.dims < 1 || l.dims > 3) return invalid("dims " + std::to_string(l.dims) + " is not 1..3");
  uint64_t items = 1;
  for (uint32_t i = 0; i < 3; ++i) {
    if (l.grid[i] == 0 || l.workgroup[i] == 0)
      return invalid("grid " + std::to_string(l.grid[i]) + " / workgroup " +
                     std::to_string(l.workgroup[i]) + " of zero along axis " + std::to_string(i));
    if (i >= l.dims && (l.grid[i] != 1 || l.workgroup[i] != 1))
      return invalid("axis " + std::to_string(i) + " beyond dims " + std::to_string(l.dims) +
                     " must have grid and workgroup 1");
    items *= l.workgroup[i];
  }
  if (items > 1024)
    return invalid("workgroup of " + std::to_string(items) + " work-items (at most 1024)");
  return {};
}

// User SGPRs in AMDGPUUsage order: private segment buffer, dispatch ptr, queue ptr, kernarg ptr,
// dispatch id, flat scratch init, private segment size, then preloaded kernargs.
base::Status fill_user_data(const Pm4Launch& l, const Pm4QueueContext& q, uint32_t lane_bytes,
                            Pm4DispatchRegs& r) {
  const Pm4Kernel& k = *l.kernel;
  const pm4::CodeProperties p = pm4::decode_code_properties(k.properties);
  uint32_t* u = r.user_data;
  uint32_t n = 0;
  auto put64 = [&](uint64_t v) {
    u[n++] = lo32(v);
    u[n++] = hi32(v);
  };
  if (p.private_segment_buffer)
    for (uint32_t w : q.scratch_srd) u[n++] = w;
  if (p.dispatch_ptr) {
    if (!q.dispatch_packet) return invalid("the kernel reads its dispatch packet but the queue gave none");
    put64(q.dispatch_packet);
  }
  if (p.queue_ptr) {
    if (!q.amd_queue) return invalid("the kernel reads its queue but the queue gave no amd_queue_t");
    put64(q.amd_queue);
  }
  if (p.kernarg_segment_ptr) put64(l.kernarg_address);
  if (p.dispatch_id) put64(q.dispatch_id);
  if (p.flat_scratch_init) put64(q.scratch_base);
  if (p.private_segment_size) u[n++] = lane_bytes;
  if (k.preload_length) {
    const size_t need = size_t(k.preload_offset + k.preload_length) * 4;
    if (l.kernarg.size() < need)
      return invalid("the kernel preloads kernarg dwords " + std::to_string(k.preload_offset) + ".." +
                     std::to_string(k.preload_offset + k.preload_length - 1) + " into SGPRs: " +
                     "Pm4Launch::kernarg holds " + std::to_string(l.kernarg.size()) + " bytes");
    std::memcpy(u + n, l.kernarg.data() + size_t(k.preload_offset) * 4, size_t(k.preload_length) * 4);
    n += k.preload_length;
  }
  r.user_count = n;
  return {};
}

}  // namespace

base::Result<Pm4DispatchRegs> plan_pm4_dispatch(const Pm4Launch& l, const Pm4QueueContext& q) {
  if (!l.kernel || !q.family) return invalid("no kernel or no queue family");
  const Pm4Kernel& k = *l.kernel;
  const pm4::Family& f = *q.family;
  KFD_TRY(check_shape(l));
  const uint64_t lds = uint64_t(k.group_segment_fixed_size) + l.dynamic_group_bytes;
  if (lds > q.lds_bytes)
    return invalid("LDS of " + std::to_string(lds) + " bytes (group_segment_fixed_size " +
                   std::to_string(k.group_segment_fixed_size) + " + dynamic " +
                   std::to_string(l.dynamic_group_bytes) + ") over the node's " +
                   std::to_string(q.lds_bytes));
  const uint32_t lds_blocks = uint32_t((lds + f.lds_granule_bytes - 1) / f.lds_granule_bytes);
  // The CP rounds the private segment size up to whole dwords (AMDGPUUsage).
  const uint32_t lane = (std::max(k.private_segment_fixed_size, l.private_segment_bytes) + 3u) & ~3u;
  const bool scratch = lane > 0 || (k.properties & pm4::kUsesDynamicStack);
  if (scratch && (q.scratch_lane_bytes == 0 || lane > q.scratch_lane_bytes))
    return invalid("the kernel needs " + std::to_string(lane) + " bytes of scratch per work-item" +
                   ((k.properties & pm4::kUsesDynamicStack) ? " (and a dynamic stack)" : "") +
                   " but the queue has " + std::to_string(q.scratch_lane_bytes) +
                   " (Pm4QueueOptions::scratch_lane_bytes)");
  Pm4DispatchRegs r;
  KFD_TRY(fill_user_data(l, q, lane, r));
  bool partial = false;
  for (uint32_t i = 0; i < 3; ++i) {
    const uint32_t rem = l.grid[i] % l.workgroup[i];
    partial |= rem != 0;
    r.at(pm4::reg::kComputeNumThreadX + i) = pm4::reg::num_thread(l.workgroup[i], rem);
    r.dispatch.dim[i] = l.grid[i];  // in threads: USE_THREAD_DIMENSIONS
  }
  const uint64_t code = k.entry + (k.preload_length ? pm4::kKernargPreloadPrologueBytes : 0);
  r.at(pm4::reg::kComputePgmLo) = pm4::reg::pgm_lo(code);
  r.at(pm4::reg::kComputePgmHi) = pm4::reg::pgm_hi(code);
  const uint64_t packet = pm4::decode_code_properties(k.properties).dispatch_ptr ? q.dispatch_packet : 0;
  r.at(pm4::reg::kComputeDispatchPktAddrLo) = lo32(packet);
  r.at(pm4::reg::kComputeDispatchPktAddrHi) = hi32(packet);
  // The scratch base in 256-byte units (architected flat scratch reads it; kfdtest Dispatch.cpp
  // writes it whenever the dispatch has scratch).
  const uint64_t sbase = scratch ? q.scratch_base : 0;
  r.at(pm4::reg::kComputeDispatchScratchBaseLo) = uint32_t(sbase >> 8);
  r.at(pm4::reg::kComputeDispatchScratchBaseHi) = uint32_t(sbase >> 40);
  r.at(pm4::reg::kComputePgmRsrc1) = k.rsrc1;
  uint32_t rsrc2 = (k.rsrc2 & ~pm4::reg::kRsrc2LdsSizeMask) | lds_blocks << pm4::reg::kRsrc2LdsSizeShift;
  if (q.trap_present && f.major < 12) rsrc2 |= pm4::reg::kRsrc2TrapPresent;
  r.at(pm4::reg::kComputePgmRsrc2) = rsrc2;
  r.rsrc3_reg = f.compute_pgm_rsrc3_reg;
  r.rsrc3 = r.rsrc3_reg ? k.rsrc3 : 0;
  r.tmpring_size = q.tmpring_size;
  namespace ini = pm4::reg::initiator;
  r.dispatch.initiator = ini::kComputeShaderEn | ini::kUseThreadDimensions |
                         (partial ? ini::kPartialTgEn : 0) | (k.wave32 ? ini::kCsW32En : 0);
  r.acquire = l.fence.acquire != aql::kScopeNone;
  r.acquire_form = f.acquire_mem;
  r.acquire_mem = pm4::acquire_for_scope(f, l.fence.acquire);
  return r;
}

uint32_t pm4_dispatch_dwords(const Pm4DispatchRegs& r) {
  return (r.acquire ? pm4::acquire_mem_dwords(r.acquire_form) : 0) + 2 + Pm4DispatchRegs::kBlockCount +
         (r.rsrc3_reg ? 3 : 0) + 3 + 3 + 2 + 4 + (r.user_count ? 2 + r.user_count : 0) +
         pm4::kDispatchDirectDwords;
}

size_t write_pm4_dispatch(uint32_t* out, const Pm4DispatchRegs& r) {
  using namespace pm4::reg;
  size_t n = 0;
  if (r.acquire) n += pm4::write_acquire_mem(out + n, r.acquire_mem, r.acquire_form);
  n += pm4::write_set_sh_reg(out + n, Pm4DispatchRegs::kBlockFirst, r.block);
  if (r.rsrc3_reg) n += pm4::write_set_sh_reg(out + n, r.rsrc3_reg, std::span(&r.rsrc3, 1));
  n += pm4::write_set_sh_reg(out + n, kComputeResourceLimits, std::span(&r.resource_limits, 1));
  n += pm4::write_set_sh_reg(out + n, kComputeTmpringSize, std::span(&r.tmpring_size, 1));
  // RESTART_X..Z and THREAD_TRACE_ENABLE cleared, as kfdtest's Dispatch.cpp does.
  const uint32_t restart[4] = {};
  n += pm4::write_set_sh_reg(out + n, kComputeRestartX, restart);
  if (r.user_count)
    n += pm4::write_set_sh_reg(out + n, kComputeUserData0, std::span(r.user_data, r.user_count));
  n += pm4::write_dispatch_direct(out + n, r.dispatch);
  return n;
}

base::Result<Packet> pm4_dispatch_packet(const Pm4Launch& l) {
  if (!l.kernel) return invalid("no kernel");
  DispatchParams p;
  p.fence.acquire = aql::kScopeNone;
  p.fence.release = aql::kScopeNone;
  p.dims = l.dims;
  for (int i = 0; i < 3; ++i) {
    p.workgroup[i] = l.workgroup[i];
    p.grid[i] = l.grid[i];
  }
  p.private_segment_size = l.private_segment_bytes;
  // HSA: the dispatch's whole group memory, static and dynamic (what an AQL CP is given, and
  // what a kernel reading its packet expects).
  p.group_segment_size = l.kernel->group_segment_fixed_size + l.dynamic_group_bytes;
  p.kernel_object = l.kernel->kernel_object;
  p.kernarg_address = l.kernarg_address;
  return make_dispatch(p);
}

}  // namespace queues
