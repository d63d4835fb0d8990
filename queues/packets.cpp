// SPDX-License-Identifier: MIT
// AQL packet builders writing the layouts of pm4/aql.h (HSA Platform System Architecture spec).
#include "queues/packets.h"

#include <cerrno>
#include <cstring>

namespace queues {
namespace {

template <class T>
Packet to_packet(const T& t) {
  static_assert(sizeof(T) == sizeof(Packet));
  Packet p;
  std::memcpy(p.dw, &t, sizeof t);
  return p;
}

base::Result<Packet> barrier(aql::PacketType type, std::span<const uint64_t> deps,
                            uint64_t completion, const Fence& f) {
  if (deps.size() > 5)
    return base::Error::msg("barrier packet: " + std::to_string(deps.size()) +
                           " dependencies, at most 5", EINVAL);
  aql::BarrierPacket b{};
  b.header = make_fence_header(type, f);
  for (size_t i = 0; i < deps.size(); ++i) b.dep_signal[i] = deps[i];
  b.completion_signal = completion;
  return to_packet(b);
}

}  // namespace

base::Result<Packet> make_dispatch(const DispatchParams& p) {
  if (p.dims < 1 || p.dims > 3)
    return base::Error::msg("dispatch packet: dimensions " + std::to_string(p.dims) +
                           " not in 1..3", EINVAL);
  for (int i = 0; i < 3; ++i)
    if (p.workgroup[i] == 0 || p.grid[i] == 0)
      return base::Error::msg("dispatch packet: zero workgroup or grid size in dimension " +
                             std::to_string(i), EINVAL);
  aql::KernelDispatchPacket k{};
  k.header = make_fence_header(aql::kTypeKernelDispatch, p.fence);
  k.setup = uint16_t(p.dims);
  k.workgroup_size_x = p.workgroup[0];
  k.workgroup_size_y = p.workgroup[1];
  k.workgroup_size_z = p.workgroup[2];
  k.grid_size_x = p.grid[0];
  k.grid_size_y = p.grid[1];
  k.grid_size_z = p.grid[2];
  k.private_segment_size = p.private_segment_size;
  k.group_segment_size = p.group_segment_size;
  k.kernel_object = p.kernel_object;
  k.kernarg_address = p.kernarg_address;
  k.completion_signal = p.completion_signal;
  return to_packet(k);
}

base::Result<Packet> make_barrier_and(std::span<const uint64_t> deps, uint64_t completion_signal,
                                     Fence fence) {
  return barrier(aql::kTypeBarrierAnd, deps, completion_signal, fence);
}

base::Result<Packet> make_barrier_or(std::span<const uint64_t> deps, uint64_t completion_signal,
                                    Fence fence) {
  return barrier(aql::kTypeBarrierOr, deps, completion_signal, fence);
}

Packet make_barrier_value(uint64_t signal, aql::BarrierValueCond cond, int64_t value,
                          int64_t mask, uint64_t completion_signal, Fence fence) {
  aql::BarrierValuePacket b{};
  b.header = make_fence_header(aql::kTypeVendor, fence);
  b.format = aql::kVendorBarrierValue;
  b.signal = signal;
  b.value = value;
  b.mask = mask;
  b.cond = cond;
  b.completion_signal = completion_signal;
  return to_packet(b);
}

Packet make_marker(uint64_t completion_signal, Fence fence) {
  aql::BarrierPacket b{};
  b.header = make_fence_header(aql::kTypeBarrierAnd, fence);
  b.completion_signal = completion_signal;
  return to_packet(b);
}

}  // namespace queues
