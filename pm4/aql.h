// SPDX-License-Identifier: MIT
// AQL packet, hsa_queue_t / amd_queue_t and amd_signal_t layouts: one header for the runtime and the emulator.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pm4::aql {

// Packet header (u16). layout: HSA Platform System Architecture spec, "Packet header".
enum PacketType : uint8_t {
  kTypeVendor = 0,
  kTypeInvalid = 1,
  kTypeKernelDispatch = 2,
  kTypeBarrierAnd = 3,
  kTypeAgentDispatch = 4,
  kTypeBarrierOr = 5,
};
enum FenceScope : uint8_t { kScopeNone = 0, kScopeAgent = 1, kScopeSystem = 2 };

constexpr unsigned kHeaderTypeShift = 0;
constexpr unsigned kHeaderBarrierShift = 8;
constexpr unsigned kHeaderAcquireShift = 9;
constexpr unsigned kHeaderReleaseShift = 11;
constexpr uint32_t kPacketSize = 64;

constexpr uint16_t make_header(PacketType type, bool barrier, FenceScope acquire,
                               FenceScope release) {
  return uint16_t(type << kHeaderTypeShift | (barrier ? 1u : 0u) << kHeaderBarrierShift |
                  unsigned(acquire) << kHeaderAcquireShift |
                  unsigned(release) << kHeaderReleaseShift);
}
constexpr PacketType header_type(uint16_t h) { return PacketType(h & 0xff); }
constexpr bool header_barrier(uint16_t h) { return (h >> kHeaderBarrierShift) & 1; }
constexpr FenceScope header_acquire(uint16_t h) { return FenceScope((h >> kHeaderAcquireShift) & 3); }
constexpr FenceScope header_release(uint16_t h) { return FenceScope((h >> kHeaderReleaseShift) & 3); }

struct KernelDispatchPacket {
  uint16_t header;
  uint16_t setup;  // dimensions in bits 0..1
  uint16_t workgroup_size_x, workgroup_size_y, workgroup_size_z;
  uint16_t reserved0;
  uint32_t grid_size_x, grid_size_y, grid_size_z;
  uint32_t private_segment_size;
  uint32_t group_segment_size;
  uint64_t kernel_object;
  uint64_t kernarg_address;
  uint64_t reserved2;
  uint64_t completion_signal;
};
static_assert(sizeof(KernelDispatchPacket) == 64);
static_assert(offsetof(KernelDispatchPacket, grid_size_x) == 12);
static_assert(offsetof(KernelDispatchPacket, private_segment_size) == 24);
static_assert(offsetof(KernelDispatchPacket, kernel_object) == 32);
static_assert(offsetof(KernelDispatchPacket, kernarg_address) == 40);
static_assert(offsetof(KernelDispatchPacket, completion_signal) == 56);

struct BarrierPacket {  // BARRIER_AND and BARRIER_OR
  uint16_t header;
  uint16_t reserved0;
  uint32_t reserved1;
  uint64_t dep_signal[5];
  uint64_t reserved2;
  uint64_t completion_signal;
};
static_assert(sizeof(BarrierPacket) == 64);
static_assert(offsetof(BarrierPacket, dep_signal) == 8);

// AMD vendor packets: u16 header (type 0), u8 format at byte 2. layout: ROCr amd_hsa_queue.h facts.
enum VendorFormat : uint8_t { kVendorPm4Ib = 1, kVendorBarrierValue = 2 };
enum BarrierValueCond : uint32_t {
  kCondEq = 0,
  kCondNe = 1,
  kCondLt = 2,
  kCondGte = 3,
};

struct BarrierValuePacket {
  uint16_t header;
  uint8_t format;  // kVendorBarrierValue
  uint8_t reserved0;
  uint32_t reserved1;
  uint64_t signal;
  int64_t value;
  int64_t mask;
  uint32_t cond;
  uint32_t reserved2;
  uint64_t reserved3;
  uint64_t reserved4;
  uint64_t completion_signal;
};
static_assert(sizeof(BarrierValuePacket) == 64);
static_assert(offsetof(BarrierValuePacket, signal) == 8);
static_assert(offsetof(BarrierValuePacket, cond) == 32);
static_assert(offsetof(BarrierValuePacket, completion_signal) == 56);

struct Pm4IbPacket {
  uint16_t header;
  uint8_t format;  // kVendorPm4Ib
  uint8_t reserved0;
  uint32_t ib_jump_cmd[4];  // a PM4 INDIRECT_BUFFER packet
  uint32_t dw_cnt_remain;   // 0xA
  uint32_t reserved1[8];
  uint64_t completion_signal;
};
static_assert(sizeof(Pm4IbPacket) == 64);
static_assert(offsetof(Pm4IbPacket, ib_jump_cmd) == 4);

// hsa_queue_t (40 bytes) at the start of amd_queue_t.
struct HsaQueue {
  uint32_t type;
  uint32_t features;
  uint64_t base_address;
  uint64_t doorbell_signal;
  uint32_t size;  // in packets
  uint32_t reserved1;
  uint64_t id;
};
static_assert(sizeof(HsaQueue) == 40);
// hsa_queue_t.type and .features values (HSA runtime hsa.h: HSA_QUEUE_TYPE_MULTI,
// HSA_QUEUE_FEATURE_KERNEL_DISPATCH).
constexpr uint32_t kQueueTypeMulti = 0;
constexpr uint32_t kQueueFeatureKernelDispatch = 1;

// amd_queue_t (256 bytes, 64-aligned). layout: ROCr amd_hsa_queue.h (amd_queue_t).
struct alignas(64) AmdQueue {
  HsaQueue hsa_queue;
  uint32_t caps;
  uint32_t reserved1[3];
  uint64_t write_dispatch_id;
  uint32_t group_segment_aperture_base_hi;
  uint32_t private_segment_aperture_base_hi;
  uint32_t max_cu_id;
  uint32_t max_wave_id;
  uint64_t max_legacy_doorbell_dispatch_id_plus_1;
  uint32_t legacy_doorbell_lock;
  uint32_t reserved2[9];
  uint64_t read_dispatch_id;
  uint32_t read_dispatch_id_field_base_byte_offset;
  uint32_t compute_tmpring_size;
  uint32_t scratch_resource_descriptor[4];
  uint64_t scratch_backing_memory_location;
  uint64_t scratch_backing_memory_byte_size;
  uint32_t scratch_wave64_lane_byte_size;
  uint32_t queue_properties;
  uint64_t reserved3[1];
  uint64_t queue_inactive_signal;
  uint32_t reserved4[14];
};
static_assert(sizeof(AmdQueue) == 256);
static_assert(offsetof(AmdQueue, caps) == 40);
static_assert(offsetof(AmdQueue, write_dispatch_id) == 56);
static_assert(offsetof(AmdQueue, group_segment_aperture_base_hi) == 64);
static_assert(offsetof(AmdQueue, max_wave_id) == 76);
static_assert(offsetof(AmdQueue, read_dispatch_id) == 128);
static_assert(offsetof(AmdQueue, read_dispatch_id_field_base_byte_offset) == 136);
static_assert(offsetof(AmdQueue, compute_tmpring_size) == 140);
static_assert(offsetof(AmdQueue, scratch_resource_descriptor) == 144);
static_assert(offsetof(AmdQueue, scratch_backing_memory_location) == 160);
static_assert(offsetof(AmdQueue, scratch_wave64_lane_byte_size) == 176);
static_assert(offsetof(AmdQueue, queue_properties) == 180);
static_assert(offsetof(AmdQueue, queue_inactive_signal) == 192);

// amd_signal_t (64 bytes). layout: ROCr amd_hsa_signal.h (amd_signal_t).
constexpr int64_t kSignalKindUser = 1;
struct alignas(64) AmdSignal {
  int64_t kind;
  int64_t value;
  uint64_t event_mailbox_ptr;
  uint32_t event_id;
  uint32_t reserved1;
  uint64_t start_ts;
  uint64_t end_ts;
  uint64_t queue_ptr;
  uint32_t reserved3[2];
};
static_assert(sizeof(AmdSignal) == 64);
static_assert(offsetof(AmdSignal, value) == 8);
static_assert(offsetof(AmdSignal, event_mailbox_ptr) == 16);
static_assert(offsetof(AmdSignal, event_id) == 24);
static_assert(offsetof(AmdSignal, start_ts) == 32);
static_assert(offsetof(AmdSignal, end_ts) == 40);
static_assert(offsetof(AmdSignal, queue_ptr) == 48);

}  // namespace pm4::aql
