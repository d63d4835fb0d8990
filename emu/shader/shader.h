// SPDX-License-Identifier: MIT
// Public interface of the emulated shader core: runs one AQL kernel dispatch of gfx9 machine code.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

// How a dispatch runs (the contract with the command processor and with kernels):
//
// * run() reads the 64-byte AQL packet at Dispatch::packet_va and the kernel descriptor at its
//   kernel_object through Memory (layouts: pm4/aql.h, pm4/kernel_descriptor.h). Workgroups (x fastest) run on a
//   pool of host threads (`workers`, 0 = one per host core), each workgroup independently on one
//   thread; the waves of a workgroup are interleaved on that thread and switch at s_barrier,
//   which releases when every wave that has not ended has arrived.
// * Initial state per wave: user SGPRs from s0 in AMDGPUUsage order as enabled by
//   kernel_code_properties (private segment buffer, dispatch ptr = packet_va, queue ptr =
//   queue_va, kernarg ptr, dispatch id, flat scratch init, private segment size), then from
//   s[USER_SGPR_COUNT]: workgroup id x/y/z (RSRC2 TGID_*_EN), workgroup info (number of waves),
//   private segment wave offset (see below). Work-item ids: packed in v0 (x [9:0], y [19:10], z [29:20])
//   on gfx90a/gfx942, v0/v1/v2 on gfx906/gfx908. Workgroups at the grid edge are partial: they
//   have min(workgroup size, grid - id*size) work-items per dimension, and EXEC has one bit per
//   existing work-item. MODE = RSRC1 float mode/DX10_CLAMP/IEEE.
// * LDS: descriptor group_segment_fixed_size + packet group_segment_size bytes per workgroup,
//   reached by DS instructions and by flat addresses in [1<<48, (1<<48) + 4 GiB).
//   Out-of-range DS reads give 0 and writes are dropped (as on hardware).
// * Private segment (scratch) is the queue's, as a gfx9 CP provides it: run() reads amd_queue_t
//   at queue_va (pm4/aql.h): compute_tmpring_size (WAVES slots of WAVESIZE KiB),
//   scratch_resource_descriptor (the V#, base = the queue's backing store) and
//   scratch_backing_memory_location (flat scratch init = Dispatch::private_base + that offset).
//   A kernel needs scratch when max(descriptor private_segment_fixed_size, packet
//   private_segment_size) > 0 or it uses a dynamic stack; it then stops with ScratchTooSmall,
//   naming the bytes, when the queue has none, less than that per work-item (WAVESIZE*1024/64),
//   or fewer slots than a workgroup has waves. Each running wave owns a slot < WAVES: worker k
//   gives wave j of its workgroup slot k*(waves per workgroup)+j (workers are limited to what
//   the slots allow). The wave gets the V# in its private segment buffer SGPRs, flat scratch
//   init = the queue's backing base, private segment size = that size rounded to dwords, and
//   scratch wave offset = slot*WAVESIZE*1024; FLAT_SCRATCH starts at base + wave offset on gfx942
//   (architected flat scratch) and 0 elsewhere (the kernel prologue sets it). Accesses use the
//   hardware's swizzled layout: byte o of lane L's private memory is at wave base +
//   (o/4)*256 + L*4 + o%4, the wave base being V# base + soffset for MUBUF (swizzled, ADD_TID,
//   element size 4, index stride 64, stride 0), FLAT_SCRATCH for scratch_* and for flat
//   addresses in the private aperture [2<<48, (2<<48) + 4 GiB). Those bytes are the queue's GPU
//   memory, checked like any access: an address outside the wave's slot, or unmapped, is a
//   MemoryFault naming that GPU address.
// * Global memory goes through Memory; every access is checked and an unmapped one stops the
//   dispatch with Outcome::MemoryFault and the first unmapped byte's address. The shader core
//   never touches host memory Memory did not hand out. Global atomics use host atomics
//   (__atomic builtins, sequentially consistent) on the bytes they update, so memory shared
//   with CPU threads stays coherent; LDS atomics need none (one thread per workgroup).
// * The memory model: when Memory::cache() gives a GpuCache (emu/shader/cache.h), the ranges
//   Memory::lookup returns carry their CachedRange and global accesses (vector, scalar, MUBUF
//   linear buffers) go through the GPU's L2 and the CU's vector L1 as their MTYPE says: a store
//   to RW/NC memory stays in the L2 until written back (buffer_wbl2, or the caller's release),
//   an NC line read once stays, stale, until invalidated (buffer_invl2, or the caller's
//   acquire), a line another CU writes stays stale in this CU's L1 until buffer_wbinvl1(_vol)
//   (see memmodel.h for glc/slc/scc). Each worker is one CU with an L1 of its own for the
//   dispatch. Scratch, LDS, code, kernel descriptors and packets are read straight from memory.
//   The caller (the command processor) applies the dispatch's acquire and release fences.
//   Without a GpuCache every access is sequentially consistent host memory (the `sc` model).
// * Arithmetic: IEEE binary32/64 on the host with round-to-nearest-even; MODE.FP_DENORM is
//   honoured for f32, f64 and f16 (denormal inputs/outputs flushed when the mode says so); a kernel
//   that sets another FP_ROUND mode stops with Unimplemented. Transcendentals (v_exp/log/rcp/
//   rsq/sqrt/sin/cos) are computed exactly by the host libm, i.e. at least as accurate as the
//   hardware's approximations. v_div_scale never scales (VCC = 0) and v_div_fixup returns the
//   correctly rounded quotient, so the division sequence clang emits is exact. The clamp bit
//   of integer add/sub/dot saturates; on float results it clamps to [0, 1] (DX10_CLAMP: NaN -> 0).
// * Buffers (MUBUF) through a linear V# are range checked per dword against num_records (raw:
//   bytes; structured: the index): out-of-range dwords read 0 and are not written; atomics
//   there do nothing and return 0. Swizzled V#s other than the private segment's layout are
//   refused (Unimplemented).
// * s_memrealtime: the constant 100 MHz reference clock (kShaderClockHz); s_memtime: the shader
//   clock at the device's engine clock (ShaderCore's engine_clock_mhz). s_sendmsg
//   MSG_INTERRUPT calls Hooks::interrupt(M0); other messages are ignored. s_trap 2 ends the
//   dispatch with Outcome::Trap; s_trap 3 is a no-op. Waves of a workgroup switch every 16 Ki
//   instructions and at s_sleep, so a wave spinning on memory another wave writes progresses.
//   Workgroups are co-resident as on the hardware: as many as fit the compute units (waves,
//   VGPRs, LDS, scratch slots; dispatch.h resident_groups) are in flight, each worker switching
//   between its share whenever the one it runs sleeps, spins through a slice or waits at a
//   global wave sync barrier (ds_gws_init / ds_gws_barrier, gws.h), so a workgroup spinning on
//   another resident one progresses; workgroups beyond that start only as others end.
// * Instructions are decoded once per code address (DecodeCache) into a pre-decoded form with a
//   handler pointer. Undecodable dwords stop with IllegalInstruction; decodable instructions
//   without a handler (gfx942's fp8 and xf32 MFMAs, SMFMAC, ...) stop with Unimplemented; both messages carry the
//   PC, the raw dwords and the mnemonic.

namespace emu::shader {

class GpuCache;
class CachedRange;

// Targets whose opcode tables we carry (names from llvm-mc-15 for each -mcpu).
enum class Target { gfx906, gfx908, gfx90a, gfx942 };

// One contiguous GPU mapping: [begin, end) maps to host memory at `host`.
struct Range {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint8_t* host = nullptr;
  bool writable = false;
  CachedRange* cache = nullptr;  // the memory model's state of this mapping (nullptr: uncached)
};

// GPU virtual memory as the shader core sees it; implemented by the emulated device.
// Both functions may be called concurrently from worker threads.
class Memory {
 public:
  virtual ~Memory() = default;
  // Host pointer for [va, va+size) if that whole range is mapped to this GPU (writable when
  // `write`), else nullptr. Used on slow paths only.
  virtual uint8_t* translate(uint64_t va, uint64_t size, bool write) = 0;
  // The whole mapping that contains `va` (host == nullptr when unmapped). Waves cache the
  // result, so an implementation should return the largest range it can. The default asks
  // translate() for the containing 4 KiB page.
  virtual Range lookup(uint64_t va);
  // The GPU's caches (the memory model), or nullptr: sequentially consistent memory.
  virtual GpuCache* cache() { return nullptr; }
};

// Side effects of a dispatch that leave the shader core.
class Hooks {
 public:
  virtual ~Hooks() = default;
  // s_sendmsg MSG_INTERRUPT: M0 holds the payload; the ROCm convention (hsa signal
  // interrupt) puts the KFD event id in M0[23:0]. Called from worker threads.
  virtual void interrupt(uint32_t m0) = 0;
  // A workgroup ran on worker `worker` in [t0_ns, t1_ns] (CLOCK_BOOTTIME): called only when
  // trace_groups is set (the emulator's trace), from worker threads.
  virtual void group_ran(uint64_t kernel_object, const uint32_t id[3], unsigned worker, uint64_t t0_ns,
                         uint64_t t1_ns) {
    (void)kernel_object, (void)id, (void)worker, (void)t0_ns, (void)t1_ns;
  }
  bool trace_groups = false;
};

// One AQL kernel dispatch. All three addresses are GPU virtual addresses read through Memory.
struct Dispatch {
  uint64_t packet_va = 0;   // hsa_kernel_dispatch_packet_t (64 bytes)
  uint64_t queue_va = 0;    // amd_queue_t, passed as the queue-pointer user SGPRs
  uint64_t dispatch_id = 0; // passed as the dispatch-id user SGPRs
  // SH_HIDDEN_PRIVATE_BASE: the process's scratch backing base (SET_SCRATCH_BACKING_VA's
  // va_addr << 16); amd_queue_t.scratch_backing_memory_location is relative to it.
  uint64_t private_base = 0;
  // Preemption request (may be null): once it reads true, the waves stop at their next time slice
  // and run() returns Outcome::Kind::Preempted. The device sets it when the queue is destroyed,
  // which amdkfd does by preempting the queue (its waves' state goes to the CWSR area, never to
  // be restored), so destroying a queue that runs an endless kernel returns.
  const std::atomic<bool>* preempt = nullptr;
  // The queue holds the device's global wave sync (AMDKFD_IOC_ALLOC_QUEUE_GWS): without it the
  // dispatch's ds_gws_* instructions stop it with Unimplemented.
  bool gws = false;
  // The compute units the queue's CU mask enables (AMDKFD_IOC_SET_CU_MASK), in the order the
  // workgroup distributor deals workgroups out to them, each as the HW_ID bits of the CU (CU_ID
  // [11:8], SH_ID [12], SE_ID [15:13]) with its XCC in [19:16] (null: the core's `cus`, none in
  // particular). An empty list: no workgroup starts, as on a GPU whose queue has no CU enabled,
  // until the queue is preempted (destroyed).
  const std::vector<uint32_t>* cus = nullptr;
};

// One kernel dispatch as a PM4 DISPATCH_DIRECT starts it: from the COMPUTE_* registers the queue's
// SET_SH_REG packets wrote (pm4/regs.h), not from an AQL packet and kernel descriptor. User SGPRs
// are COMPUTE_USER_DATA_0.. as the runtime wrote them (RSRC2.USER_SGPR_COUNT of them); the private
// segment V# is in USER_DATA_0..3 when RSRC2.SCRATCH_EN is set; scratch slots come from
// COMPUTE_TMPRING_SIZE; LDS is RSRC2.LDS_SIZE in the family's granule.
struct RegisterDispatch {
  uint32_t gfx_target_version = 0;
  uint64_t code = 0;             // COMPUTE_PGM_LO/HI
  uint32_t rsrc1 = 0, rsrc2 = 0, rsrc3 = 0;
  uint32_t user_data[16] = {};
  uint32_t num_thread[3] = {1, 1, 1};  // COMPUTE_NUM_THREAD_X/Y/Z (NUM_THREAD_FULL)
  uint32_t dim[3] = {1, 1, 1};   // DISPATCH_DIRECT DIM_X/Y/Z: where the dispatch ends
  uint32_t start[3] = {};        // COMPUTE_START_X/Y/Z: the first workgroup
  bool thread_dims = false;      // DISPATCH_INITIATOR.USE_THREAD_DIMENSIONS: dim counts threads
  bool wave32 = false;           // DISPATCH_INITIATOR.CS_W32_EN
  uint32_t tmpring = 0;          // COMPUTE_TMPRING_SIZE
  uint32_t resource_limits = 0;  // COMPUTE_RESOURCE_LIMITS (occupancy only)
  uint64_t scratch_base = 0;     // COMPUTE_DISPATCH_SCRATCH_BASE (architected flat scratch)
  const std::atomic<bool>* preempt = nullptr;  // as Dispatch::preempt
  bool gws = false;              // as Dispatch::gws: the queue holds the global wave sync
  const std::vector<uint32_t>* cus = nullptr;  // as Dispatch::cus
};

// What the memory model saw during a dispatch (with a GpuCache): loads that returned stale data
// (when the cache's config asks for reports) and the cache instructions executed.
struct MemoryReport {
  struct StaleLoad {
    uint64_t va = 0;   // the address loaded
    uint64_t pc = 0;   // the load instruction
    uint8_t level = 0; // 1: a CU's L1 copy older than the L2; 2: an L2 copy older than memory
  };
  uint64_t stale_loads = 0;          // lane loads that returned stale bytes
  std::vector<StaleLoad> first;      // the first few lines (64 bytes) read stale, one address each
  uint64_t wbl2 = 0, invl2 = 0, wbinvl1 = 0;  // cache instructions executed (per wave)
  std::string kernel;                // the kernel's name when reported (symbol, or code address)
};

struct Outcome {
  // ScratchTooSmall: the kernel needs more scratch than the queue provides (no wave ran).
  // Preempted: Dispatch::preempt was set (the waves were stopped, nothing is reported).
  // InvalidPacket: the packet processor rejected the dispatch (`error`: its queue error bits).
  enum class Kind { Ok, MemoryFault, IllegalInstruction, Trap, Unimplemented, ScratchTooSmall, Preempted,
                    InvalidPacket };
  Kind kind = Kind::Ok;
  uint64_t error = 0;      // InvalidPacket: pm4/queue_error.h bits
  uint64_t fault_va = 0;   // MemoryFault: the first faulting address
  std::string message;     // instructions: "pc=0x... dwords=... name" ; faults: the access
  // Statistics of the dispatch (for benchmarks).
  uint64_t wave_instructions = 0;
  uint64_t lane_ops = 0;   // sum over executed VALU instructions of active lanes
  MemoryReport memory;
  bool ok() const { return kind == Kind::Ok; }
};

// Clocks, from the host's steady clock: s_memrealtime reads the GPU's constant 100 MHz reference
// clock; s_memtime the shader (engine) clock, which counts at the core's clock frequency (LLVM
// lowers readcyclecounter to s_memtime on gfx9 and readsteadycounter to s_memrealtime), taken
// as the part's maximum engine clock (the topology's max_engine_clk_fcompute, which HIP reports
// as the clock rate of clock64()).
inline constexpr uint64_t kShaderClockHz = 100'000'000;  // s_memrealtime
inline constexpr uint32_t kDefaultEngineClockMhz = 1700;  // s_memtime when the core is not told
// GB_ADDR_CONFIG, which the swizzled image layouts depend on (pipes, banks, shader engines, RBs),
// when the core is not told: Linux gfx_v9_0.c gfx_v9_0_gpu_early_init programs 0x22014042 for
// vega20, arcturus and aldebaran.
inline constexpr uint32_t kDefaultGbAddrConfig = 0x22014042;

class Core;  // private implementation

// Executes dispatches. Thread-safe: run() may be called concurrently (one call at a time uses
// the core's persistent worker threads, the others start short-lived ones). Decoded
// instructions are cached per code address; each dispatch re-checks the cached dwords of the
// pages it enters, so code replaced at an address that already ran is decoded again.
// flush_code_cache() drops everything (only while no dispatch runs).
// Validated targets: gfx90a (corpus, ISA tests, objdump oracle) and gfx906/gfx908 (corpus
// subset). gfx942 has its opcode tables (from llvm-mc-15's gfx940) and FLAT_SCRATCH loaded
// with the wave's scratch base (architected flat scratch), but its scratch SVS addressing and
// new opcodes are untested.
class ShaderCore {
 public:
  // `cus`: the compute units workgroups are resident on (0: as many as scratch allows).
  // `engine_clock_mhz`: the rate s_memtime counts at; `gb_addr_config`: the device's
  // GB_ADDR_CONFIG (the image instructions' swizzled layouts).
  ShaderCore(Target t, unsigned workers /*0 = one per host core*/, unsigned cus = 0,
             uint32_t engine_clock_mhz = kDefaultEngineClockMhz, uint32_t gb_addr_config = kDefaultGbAddrConfig);
  ~ShaderCore();
  ShaderCore(const ShaderCore&) = delete;
  ShaderCore& operator=(const ShaderCore&) = delete;

  Outcome run(const Dispatch& d, Memory& mem, Hooks& hooks);
  Outcome run_registers(const RegisterDispatch& d, Memory& mem, Hooks& hooks);
  void flush_code_cache();
  unsigned workers() const;

 private:
  std::unique_ptr<Core> core_;
};

// Name of an instruction (e.g. "v_add_f32") for diagnostics and the decoder oracle; `len` gets
// the instruction length in bytes (0 if undecodable). Reads at most 3 dwords from `dw`.
std::string disassemble_name(Target t, const uint32_t* dw, unsigned* len);
// Whether the interpreter executes `mnemonic` (as in the opcode tables, e.g. "v_add_f32").
bool implemented(const std::string& mnemonic);

}  // namespace emu::shader
