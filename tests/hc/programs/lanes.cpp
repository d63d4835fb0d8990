// SPDX-License-Identifier: MIT
// hc test: wavefront lane operations (lane id, ballot, any/all, shuffles, permutes, swizzle, DPP), bit operations, 24-bit multiplies, clocks.
#include "hc_check.hpp"

#include <vector>

using hc_test::check;

enum { LANE, BALLOT_LO, BALLOT_HI, COUNT, ANY, ALL, SHFL, SHFL_UP, SHFL_DOWN, SHFL_XOR, SHFL_W16,
       BPERM, PERM, SWZ, DPP, FSHFL, kCols };

void lane_ops() {
  const int n = 256;  // four wavefronts
  std::vector<int> out(n * kCols, -1);
  hc::array_view<int, 2> v(n, kCols, out.data());
  hc::parallel_for_each(hc::extent<1>(n).tile(256), [=](hc::tiled_index<1> t) {
    const int i = t.global[0];
    const int lane = static_cast<int>(hc::__lane_id());
    const uint64_t b = hc::__ballot(lane % 3 == 0);
    v(i, LANE) = lane;
    v(i, BALLOT_LO) = static_cast<int>(b & 0xffffffffu);
    v(i, BALLOT_HI) = static_cast<int>(b >> 32);
    v(i, COUNT) = static_cast<int>(hc::__activelanecount_u32_b1(lane < 10));
    v(i, ANY) = hc::__any(lane == 63);
    v(i, ALL) = hc::__all(lane < 63) * 2 + hc::__all(lane < 64);
    v(i, SHFL) = hc::__shfl(lane * 10, 5);
    v(i, SHFL_UP) = hc::__shfl_up(lane, 3u);
    v(i, SHFL_DOWN) = hc::__shfl_down(lane, 3u);
    v(i, SHFL_XOR) = hc::__shfl_xor(lane, 1);
    v(i, SHFL_W16) = hc::__shfl(lane, 2, 16);
    v(i, BPERM) = hc::__amdgcn_ds_bpermute(((lane + 1) & 63) << 2, lane);
    v(i, PERM) = hc::__amdgcn_ds_permute(((lane + 1) & 63) << 2, lane);
    v(i, SWZ) = __amdgcn_ds_swizzle(lane, 0x041F);       // bitmask mode: xor 1 within 32 lanes
    v(i, DPP) = __amdgcn_move_dpp(lane, 0x111, 0xF, 0xF, false);  // row_shr:1
    v(i, FSHFL) = static_cast<int>(hc::__shfl(static_cast<float>(lane) + 0.5f, 7) * 2.0f);
  }).wait();
  bool ok[kCols];
  for (bool& b : ok) b = true;
  uint64_t want_ballot = 0;
  for (int l = 0; l < 64; ++l) want_ballot |= (l % 3 == 0 ? 1ull : 0ull) << l;
  for (int i = 0; i < n; ++i) {
    const int l = i % 64;
    ok[LANE] &= v(i, LANE) == l;
    ok[BALLOT_LO] &= static_cast<uint32_t>(v(i, BALLOT_LO)) == static_cast<uint32_t>(want_ballot);
    ok[BALLOT_HI] &= static_cast<uint32_t>(v(i, BALLOT_HI)) == static_cast<uint32_t>(want_ballot >> 32);
    ok[COUNT] &= v(i, COUNT) == 10;
    ok[ANY] &= v(i, ANY) == 1;
    ok[ALL] &= v(i, ALL) == 1;
    ok[SHFL] &= v(i, SHFL) == 50;
    ok[SHFL_UP] &= v(i, SHFL_UP) == (l >= 3 ? l - 3 : l);
    ok[SHFL_DOWN] &= v(i, SHFL_DOWN) == (l + 3 < 64 ? l + 3 : l);
    ok[SHFL_XOR] &= v(i, SHFL_XOR) == (l ^ 1);
    ok[SHFL_W16] &= v(i, SHFL_W16) == (l & ~15) + 2;
    ok[BPERM] &= v(i, BPERM) == ((l + 1) & 63);
    ok[PERM] &= v(i, PERM) == ((l + 63) & 63);
    ok[SWZ] &= v(i, SWZ) == (l ^ 1);
    ok[DPP] &= l % 16 == 0 || v(i, DPP) == l - 1;  // row starts have no source lane
    ok[FSHFL] &= v(i, FSHFL) == 15;
  }
  const char* names[kCols] = {"__lane_id", "__ballot (low 32)", "__ballot (high 32)", "__activelanecount_u32_b1",
                              "__any", "__all", "__shfl", "__shfl_up", "__shfl_down", "__shfl_xor",
                              "__shfl with width 16", "__amdgcn_ds_bpermute", "__amdgcn_ds_permute",
                              "__amdgcn_ds_swizzle", "__amdgcn_move_dpp (row_shr:1)", "__shfl on float"};
  for (int c = 0; c < kCols; ++c) check(ok[c], names[c]);
}

enum { POP, POP64, FB, FB64, FBS, LB, LB64, BXU, BXS, BI, BR, BR64, M24, MAD24, M24U, CLK, kBits };

void bit_ops() {
  std::vector<long long> out(kBits, 0);
  hc::array_view<long long, 1> v(kBits, out);
  hc::parallel_for_each(hc::extent<1>(1), [=](hc::index<1>) {
    v[POP] = hc::__popcount_u32_b32(0xF0F00001u);
    v[POP64] = hc::__popcount_u32_b64(0xFFFF00000000000Full);
    v[FB] = hc::__firstbit_u32_u32(0x00010000u);
    v[FB64] = hc::__firstbit_u32_u64(1ull << 40);
    v[FBS] = hc::__firstbit_u32_s32(-2);
    v[LB] = hc::__lastbit_u32_u32(0x00010000u) * 100 + (hc::__lastbit_u32_u32(0) + 1);
    v[LB64] = hc::__lastbit_u32_u64(1ull << 40);
    v[BXU] = hc::__bitextract_u32(0xABCD1234u, 8, 8);
    v[BXS] = hc::__bitextract_s32(0x0000F000, 12, 4);
    v[BI] = hc::__bitinsert_u32(0xFFFFFFFFu, 0x5u, 4, 4);
    v[BR] = hc::__bitrev_b32(1u);
    v[BR64] = static_cast<long long>(hc::__bitrev_b64(2ull) >> 32);
    v[M24] = hc::__mul24(0x01000003, -2);  // bits above 24 ignored: 3 * -2
    v[MAD24] = hc::__mad24(1000, 1000, 7);
    v[M24U] = hc::__mul24(0xFF000010u, 0x10u);
    const uint64_t c0 = hc::__clock_u64(), k0 = hc::__cycle_u64();
    int x = 1;
    for (int k = 0; k < 1000; ++k) x = x * 3 + k;
    v[CLK] = (hc::__clock_u64() >= c0 && hc::__cycle_u64() >= k0) ? 1 + (x & 0) : 0;
  }).wait();
  check(v[POP] == 9 && v[POP64] == 20, "__popcount_u32_b32 / _b64");
  check(v[FB] == 15 && v[FB64] == 23, "__firstbit_u32_u32 / _u64 count from the MSB");
  check(v[FBS] == 31, "__firstbit_u32_s32 of a negative number finds the first 0");
  check(v[LB] == 1600 && v[LB64] == 40, "__lastbit_u32_u32 (and -1 for 0) / _u64");
  check(v[BXU] == 0x12 && v[BXS] == -1, "__bitextract_u32 / _s32 (sign-extends)");
  check(v[BI] == static_cast<long long>(0xFFFFFF5Fu), "__bitinsert_u32");
  check(v[BR] == static_cast<long long>(0x80000000u) && v[BR64] == 0x40000000ll, "__bitrev_b32 / _b64");
  check(v[M24] == -6 && v[MAD24] == 1000007 && v[M24U] == 0x100, "__mul24 / __mad24 use the low 24 bits");
  check(v[CLK] == 1, "__clock_u64 and __cycle_u64 do not go backwards");
}

int main() {
  hc_test::run("lanes", lane_ops);
  hc_test::run("bits", bit_ops);
  return hc_test::finish();
}
