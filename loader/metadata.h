// SPDX-License-Identifier: MIT
// The AMDGPU code object metadata model (NT_AMDGPU_METADATA, code object v4..v6) and its decoder.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "loader/bytes.h"
#include "loader/msgpack.h"

namespace loader {

// Argument value kinds; AMDGPUUsage "AMDHSA Code Object V3+ Kernel Argument Metadata Map".
enum class ValueKind : uint8_t {
  ByValue, GlobalBuffer, DynamicSharedPointer, Sampler, Image, Pipe, Queue,
  HiddenGlobalOffsetX, HiddenGlobalOffsetY, HiddenGlobalOffsetZ, HiddenNone,
  HiddenPrintfBuffer, HiddenHostcallBuffer, HiddenDefaultQueue, HiddenCompletionAction,
  HiddenMultigridSyncArg, HiddenHeapV1,
  HiddenBlockCountX, HiddenBlockCountY, HiddenBlockCountZ,
  HiddenGroupSizeX, HiddenGroupSizeY, HiddenGroupSizeZ,
  HiddenRemainderX, HiddenRemainderY, HiddenRemainderZ,
  HiddenGridDims, HiddenPrivateBase, HiddenSharedBase, HiddenQueuePtr, HiddenDynamicLdsSize,
};

const char* value_kind_name(ValueKind k);
std::optional<ValueKind> value_kind_from_name(std::string_view s);
inline bool is_hidden(ValueKind k) { return k >= ValueKind::HiddenGlobalOffsetX; }

struct KernelArg {
  std::optional<std::string> name, type_name;
  uint64_t offset = 0, size = 0;
  std::optional<uint64_t> alignment;      // not emitted by every producer
  std::optional<uint64_t> pointee_align;
  ValueKind value_kind = ValueKind::ByValue;
  std::optional<std::string> address_space, access, actual_access;
  bool is_const = false, is_restrict = false, is_volatile = false, is_pipe = false;
};

struct KernelMeta {
  std::string name, symbol;
  std::optional<std::string> language;
  std::vector<KernelArg> args;
  uint64_t kernarg_segment_size = 0, kernarg_segment_align = 0;
  uint64_t group_segment_fixed_size = 0, private_segment_fixed_size = 0;
  uint64_t wavefront_size = 0, sgpr_count = 0, vgpr_count = 0, max_flat_workgroup_size = 0;
  std::optional<uint64_t> agpr_count, sgpr_spill_count, vgpr_spill_count;
  std::optional<bool> uses_dynamic_stack, uniform_work_group_size, workgroup_processor_mode;
  std::optional<std::vector<uint64_t>> reqd_workgroup_size, workgroup_size_hint;
  std::optional<std::string> kind;  // "normal", "init", "fini"
};

struct Metadata {
  uint64_t version_major = 0, version_minor = 0;  // amdhsa.version
  std::string target;                             // amdhsa.target, "amdgcn-amd-amdhsa--gfx90a"
  std::vector<std::string> printf;                // amdhsa.printf, when present
  std::vector<KernelMeta> kernels;
  msgpack::Value raw;                             // the whole map, for tools (views the note)
};

// Decodes the metadata note's msgpack bytes; `base` is the note's file offset, for messages.
base::Result<Metadata> parse_metadata(Bytes note_desc, uint64_t base = 0);

}  // namespace loader
