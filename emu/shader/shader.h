// SPDX-License-Identifier: MIT
// Public interface of the emulated shader core: runs one AQL kernel dispatch of gfx9 machine code.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace emu::shader {

// Targets whose opcode tables we carry (names from llvm-mc-15 for each -mcpu).
enum class Target { gfx906, gfx908, gfx90a, gfx942 };

// One contiguous GPU mapping: [begin, end) maps to host memory at `host`.
struct Range {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint8_t* host = nullptr;
  bool writable = false;
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
};

// Side effects of a dispatch that leave the shader core.
class Hooks {
 public:
  virtual ~Hooks() = default;
  // s_sendmsg MSG_INTERRUPT: M0 holds the payload; the ROCm convention (hsa signal
  // interrupt) puts the KFD event id in M0[23:0]. Called from worker threads.
  virtual void interrupt(uint32_t m0) = 0;
};

// One AQL kernel dispatch. All three addresses are GPU virtual addresses read through Memory.
struct Dispatch {
  uint64_t packet_va = 0;   // hsa_kernel_dispatch_packet_t (64 bytes)
  uint64_t queue_va = 0;    // amd_queue_t, passed as the queue-pointer user SGPRs
  uint64_t dispatch_id = 0; // passed as the dispatch-id user SGPRs
};

struct Outcome {
  enum class Kind { Ok, MemoryFault, IllegalInstruction, Trap, Unimplemented };
  Kind kind = Kind::Ok;
  uint64_t fault_va = 0;   // MemoryFault: the first faulting address
  std::string message;     // instructions: "pc=0x... dwords=... name" ; faults: the access
  // Statistics of the dispatch (for benchmarks).
  uint64_t wave_instructions = 0;
  uint64_t lane_ops = 0;   // sum over executed VALU instructions of active lanes
  bool ok() const { return kind == Kind::Ok; }
};

// Frequency of s_memtime / s_memrealtime: a constant 100 MHz clock derived from the host's
// steady clock (10 ns per tick).
inline constexpr uint64_t kShaderClockHz = 100'000'000;

class Core;  // private implementation

// Executes dispatches. Thread-safe: run() may be called concurrently (each call uses its own
// workers). Decoded instructions are cached per code address for the core's lifetime, so code
// must not be rewritten at an address that already ran (call flush_code_cache() if it is).
class ShaderCore {
 public:
  ShaderCore(Target t, unsigned workers /*0 = one per host core*/);
  ~ShaderCore();
  ShaderCore(const ShaderCore&) = delete;
  ShaderCore& operator=(const ShaderCore&) = delete;

  Outcome run(const Dispatch& d, Memory& mem, Hooks& hooks);
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
