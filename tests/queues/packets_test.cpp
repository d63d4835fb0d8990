// SPDX-License-Identifier: MIT
// Unit tests of the pure AQL packet builders (field placement per the HSA spec).
#include <gtest/gtest.h>

#include <cstring>

#include "queues/packets.h"

namespace {

using pm4::aql::FenceScope;

template <class T>
T as(const queues::Packet& p) {
  T t;
  std::memcpy(&t, p.dw, sizeof t);
  return t;
}

TEST(Packets, BuildsKernelDispatch) {
  queues::DispatchParams d;
  d.dims = 2;
  d.workgroup[0] = 64;
  d.workgroup[1] = 4;
  d.grid[0] = 1024;
  d.grid[1] = 8;
  d.kernel_object = 0x1000;
  d.kernarg_address = 0x2000;
  d.completion_signal = 0x3000;
  d.group_segment_size = 512;
  d.fence.acquire = pm4::aql::kScopeAgent;
  d.fence.release = pm4::aql::kScopeSystem;
  auto p = queues::make_dispatch(d);
  ASSERT_TRUE(p.ok()) << p.message();
  auto k = as<pm4::aql::KernelDispatchPacket>(*p);
  EXPECT_EQ(pm4::aql::header_type(k.header), pm4::aql::kTypeKernelDispatch);
  EXPECT_EQ(pm4::aql::header_acquire(k.header), pm4::aql::kScopeAgent);
  EXPECT_EQ(pm4::aql::header_release(k.header), pm4::aql::kScopeSystem);
  EXPECT_FALSE(pm4::aql::header_barrier(k.header));
  EXPECT_EQ(k.setup, 2);
  EXPECT_EQ(k.workgroup_size_x, 64);
  EXPECT_EQ(k.workgroup_size_y, 4);
  EXPECT_EQ(k.workgroup_size_z, 1);
  EXPECT_EQ(k.grid_size_x, 1024u);
  EXPECT_EQ(k.grid_size_y, 8u);
  EXPECT_EQ(k.kernel_object, 0x1000u);
  EXPECT_EQ(k.kernarg_address, 0x2000u);
  EXPECT_EQ(k.completion_signal, 0x3000u);
  EXPECT_EQ(k.group_segment_size, 512u);
  EXPECT_EQ(p->dw[0], uint32_t(k.header) | 2u << 16);  // header and setup in one dword
}

TEST(Packets, RejectsBadDispatchDimensions) {
  queues::DispatchParams d;
  d.dims = 4;
  EXPECT_EQ(queues::make_dispatch(d).err(), EINVAL);
  d.dims = 1;
  d.workgroup[0] = 0;
  EXPECT_EQ(queues::make_dispatch(d).err(), EINVAL);
}

TEST(Packets, BuildsBarrierAndOrWithDependencies) {
  const uint64_t deps[] = {0x10, 0x20, 0x30};
  queues::Fence f;
  f.barrier = true;
  f.acquire = pm4::aql::kScopeNone;
  auto a = queues::make_barrier_and(deps, 0x99, f);
  auto o = queues::make_barrier_or(deps, 0x98);
  ASSERT_TRUE(a.ok() && o.ok());
  auto ba = as<pm4::aql::BarrierPacket>(*a);
  auto bo = as<pm4::aql::BarrierPacket>(*o);
  EXPECT_EQ(pm4::aql::header_type(ba.header), pm4::aql::kTypeBarrierAnd);
  EXPECT_EQ(pm4::aql::header_type(bo.header), pm4::aql::kTypeBarrierOr);
  EXPECT_TRUE(pm4::aql::header_barrier(ba.header));
  EXPECT_EQ(pm4::aql::header_acquire(ba.header), pm4::aql::kScopeNone);
  EXPECT_EQ(ba.dep_signal[2], 0x30u);
  EXPECT_EQ(ba.dep_signal[3], 0u);
  EXPECT_EQ(ba.completion_signal, 0x99u);
  EXPECT_EQ(bo.completion_signal, 0x98u);
  const uint64_t six[6] = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(queues::make_barrier_and(six, 0).err(), EINVAL);
}

TEST(Packets, BuildsBarrierValueVendorPacket) {
  auto p = queues::make_barrier_value(0x4000, pm4::aql::kCondGte, 5, 0xff, 0x5000);
  auto b = as<pm4::aql::BarrierValuePacket>(p);
  EXPECT_EQ(pm4::aql::header_type(b.header), pm4::aql::kTypeVendor);
  EXPECT_EQ(b.format, pm4::aql::kVendorBarrierValue);
  EXPECT_EQ(b.signal, 0x4000u);
  EXPECT_EQ(b.value, 5);
  EXPECT_EQ(b.mask, 0xff);
  EXPECT_EQ(b.cond, uint32_t(pm4::aql::kCondGte));
  EXPECT_EQ(b.completion_signal, 0x5000u);
}

}  // namespace
