// SPDX-License-Identifier: MIT
// Instructions the shader core decodes only to name them (ROCm's image and global-wave-sync
// kernels use them): encodings from llvm-mc-15, per target, named, sized and unimplemented.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "emu/shader/decode.h"
#include "emu/shader/shader.h"

namespace {

using emu::shader::Target;

struct Decoded {
  bool ok = false;
  std::string name;
  unsigned size = 0;
  bool implemented = false;
};

// Decodes the little-endian bytes llvm-mc-15 -show-encoding printed.
template <size_t N>
Decoded decode(Target t, const uint8_t (&bytes)[N]) {
  uint32_t dw[4] = {};
  std::memcpy(dw, bytes, N);
  emu::shader::Inst in;
  Decoded d;
  d.ok = emu::shader::decode(t, dw, N / 4, in);
  d.name = in.name ? in.name : "";
  d.size = in.size;
  d.implemented = d.ok && in.exec != emu::shader::exec_unimplemented && in.exec != emu::shader::exec_invalid;
  return d;
}

// image_load v[0:3], v0, s[0:7] dmask:0xf
constexpr uint8_t kImageLoad[] = {0x00, 0x0f, 0x00, 0xf0, 0x00, 0x00, 0x00, 0x00};
// image_store v[0:3], v[4:5], s[8:15] dmask:0xf unorm
constexpr uint8_t kImageStore[] = {0x00, 0x1f, 0x20, 0xf0, 0x04, 0x00, 0x02, 0x00};
// image_sample v[0:3], v[4:5], s[8:15], s[16:19] dmask:0xf
constexpr uint8_t kImageSample[] = {0x00, 0x0f, 0x80, 0xf0, 0x04, 0x00, 0x82, 0x00};
// image_atomic_add v1, v[2:3], s[4:11] dmask:0x1 unorm glc
constexpr uint8_t kImageAtomicAdd[] = {0x00, 0x31, 0x48, 0xf0, 0x02, 0x01, 0x01, 0x00};
// image_gather4 v[0:3], v[4:5], s[8:15], s[16:19] dmask:0x1 (gfx906 only)
constexpr uint8_t kImageGather4[] = {0x00, 0x01, 0x00, 0xf1, 0x04, 0x00, 0x82, 0x00};
// ds_gws_init v0 gds, ds_gws_barrier v0 gds, ds_gws_sema_release_all gds
constexpr uint8_t kGwsInit[] = {0x00, 0x00, 0x33, 0xd9, 0x00, 0x00, 0x00, 0x00};
constexpr uint8_t kGwsBarrier[] = {0x00, 0x00, 0x3b, 0xd9, 0x00, 0x00, 0x00, 0x00};
constexpr uint8_t kGwsReleaseAll[] = {0x00, 0x00, 0x31, 0xd9, 0x00, 0x00, 0x00, 0x00};

TEST(IsaNames, ImageInstructionsAreNamedAndLoadsStoresSamplesImplemented) {
  for (Target t : {Target::gfx90a, Target::gfx908, Target::gfx906}) {
    for (auto [bytes, name] : {std::pair{&kImageLoad, "image_load"}, std::pair{&kImageStore, "image_store"},
                               std::pair{&kImageSample, "image_sample"},
                               std::pair{&kImageAtomicAdd, "image_atomic_add"}}) {
      Decoded d = decode(t, *bytes);
      EXPECT_TRUE(d.ok) << name;
      EXPECT_EQ(d.name, name);
      EXPECT_EQ(d.size, 8u) << name;
      // image atomics are named only (image.cpp implements loads, stores, resinfo, samples).
      EXPECT_EQ(d.implemented, std::string(name) != "image_atomic_add") << name;
    }
  }
  // image_gather4 is gfx906/gfx908's, not gfx90a's; gfx942 has no image instructions.
  EXPECT_EQ(decode(Target::gfx906, kImageGather4).name, "image_gather4");
  EXPECT_FALSE(decode(Target::gfx906, kImageGather4).implemented);
  EXPECT_FALSE(decode(Target::gfx90a, kImageGather4).ok);
  EXPECT_FALSE(decode(Target::gfx942, kImageLoad).ok);
  EXPECT_FALSE(decode(Target::gfx942, kImageSample).ok);
}

// The barrier pair (cooperative launches) is executed; the semaphores are not.
TEST(IsaNames, GlobalWaveSyncIsNamedAndOnlyTheBarrierIsImplemented) {
  for (Target t : {Target::gfx90a, Target::gfx908, Target::gfx906, Target::gfx942}) {
    for (auto [bytes, name] : {std::pair{&kGwsInit, "ds_gws_init"}, std::pair{&kGwsBarrier, "ds_gws_barrier"},
                               std::pair{&kGwsReleaseAll, "ds_gws_sema_release_all"}}) {
      Decoded d = decode(t, *bytes);
      EXPECT_TRUE(d.ok) << name;
      EXPECT_EQ(d.name, name);
      EXPECT_EQ(d.size, 8u) << name;
      EXPECT_EQ(d.implemented, std::string(name) != "ds_gws_sema_release_all") << name;
    }
  }
}

}  // namespace
