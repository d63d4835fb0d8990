// SPDX-License-Identifier: MIT
// Code objects of the HIP runtime: images (fat binaries, modules) loaded per device, kernels, variables.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/hip/runtime.h"
#include "loader/bundle.h"
#include "loader/code_object.h"
#include "loader/load.h"

namespace hip {

constexpr int kMaxDevices = 16;

// What a launch needs to know about a kernel on one device; laid out from the metadata.
struct KernelInfo {
  struct Arg {
    uint32_t offset = 0, size = 0;
  };
  struct Hidden {
    uint32_t offset = 0, size = 0;
    loader::ValueKind kind{};
  };
  std::string name;
  uint64_t serial = 0;  // unique in the process (an info's address can be reused once a module is unloaded)
  uint64_t kernel_object = 0;
  uint32_t kernarg_size = 0, kernarg_align = 16;
  uint32_t explicit_size = 0;  // end of the last explicit argument
  uint32_t group_segment = 0, private_segment = 0;  // private: private_segment_fixed_size
  bool dynamic_stack = false;  // the kernel needs a stack beyond private_segment (recursion, calls)
  uint32_t max_workgroup = 1024;
  uint32_t sgprs = 0, vgprs = 0;
  std::vector<Arg> args;       // explicit arguments, in order
  std::vector<Hidden> hidden;  // hidden arguments the runtime fills
  bool hostcall = false;       // has a hidden_hostcall_buffer argument (the kernel calls printf)
};

// GPU memory for loaded segments: executable VRAM the host can write (loader::SegmentMemory).
class SegmentAllocator : public loader::SegmentMemory {
 public:
  explicit SegmentAllocator(Device& dev) : dev_(dev) {}
  base::Result<loader::Span> allocate(size_t size, size_t align, bool executable) override;
  void free(loader::Span span) override;

 private:
  Device& dev_;
};

// A code object placed on one device.
class DeviceImage {
 public:
  DeviceImage(Device& dev) : dev_(dev), seg_(dev) {}
  base::Status load(loader::Bytes elf);
  base::Result<const KernelInfo*> kernel(std::string_view name);
  base::Result<loader::LoadedCodeObject::Global> global(std::string_view name) const;
  const loader::CodeObject& code_object() const { return *co_; }
  Device& device() { return dev_; }

 private:
  Device& dev_;
  SegmentAllocator seg_;
  std::optional<loader::CodeObject> co_;
  std::optional<loader::LoadedCodeObject> lco_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<KernelInfo>, std::less<>> kernels_;
};

struct ManagedVar {
  std::string name;
  void* allocation = nullptr;  // what the host's pointer variable holds
};

// A fat binary (offload bundle) or a bare code object, host-resident, loaded per device on use.
class Image {
 public:
  // A registered fat binary's bundle: the program's own bytes (its size read from its header).
  static std::unique_ptr<Image> borrowed(const uint8_t* data);
  // A module's image (bundle or ELF), copied.
  static std::unique_ptr<Image> owned(std::vector<uint8_t> bytes);

  base::Result<DeviceImage*> on(Device& dev);
  void add_managed(ManagedVar v);

 private:
  base::Result<loader::Bytes> select(Device& dev);
  base::Status init_managed(DeviceImage& di);

  std::mutex mu_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::vector<uint8_t> storage_;
  std::optional<loader::Bundle> bundle_;
  std::map<int, std::unique_ptr<DeviceImage>> loaded_;
  std::vector<ManagedVar> managed_;
};

// hipFunction_t, and what a registered host stub stands for.
struct Function {
  Image* image = nullptr;
  std::string name;
  std::atomic<const KernelInfo*> cache[kMaxDevices] = {};
  base::Result<const KernelInfo*> info(Device& dev);
  // The kernel's info on device `i` once info() found it there; nullptr before.
  const KernelInfo* cached(int i) const { return i < kMaxDevices ? cache[i].load(std::memory_order_acquire) : nullptr; }
};

struct Var {
  Image* image = nullptr;
  std::string name;
  size_t size = 0;
  base::Result<void*> address(Device& dev);
};

// Host stubs and shadow variables registered by the program's module constructors.
class Registry {
 public:
  static Registry& get();
  void** add_fatbin(const void* wrapper);
  void add_function(void** handle, const void* host_fn, const char* name);
  void add_var(void** handle, void* host_var, const char* name, size_t size);
  void add_managed(void** handle, void** pointer, const void* init, const char* name, size_t size,
                   unsigned align);
  void remove_fatbin(void** handle);
  Function* function(const void* host_fn);
  Var* var(const void* host_var);
  // The registered variable whose device symbol is `name`; null if none.
  Var* var_by_name(const std::string& name);

 private:
  struct FatBin {
    std::unique_ptr<Image> image;
    void* handle_slot = nullptr;  // what __hipRegisterFatBinary returns points here
  };
  Function* function_locked(const void* host_fn);

  std::mutex mu_;
  // Bumped whenever a Function is destroyed (its fat binary unregistered, or its host stub
  // registered again): what a thread's lookup cache holds is valid while this is unchanged.
  std::atomic<uint64_t> generation_{0};
  std::vector<std::unique_ptr<FatBin>> fatbins_;
  std::map<const void*, std::unique_ptr<Function>> functions_;
  std::map<const void*, std::unique_ptr<Var>> vars_;
};

// Size of a bundle or ELF image from its headers, reading none of the bytes past `avail`; 0 when
// unrecognised. An image whose headers reach past `avail` is cut there (its parse then fails).
size_t image_extent(const uint8_t* p, size_t avail);
// Bytes readable from `p` to the end of the mapping holding it (its loaded object's segment, else
// its /proc/self/maps line); 0 when `p` is in no readable mapping.
size_t mapped_extent(const void* p);

}  // namespace hip
