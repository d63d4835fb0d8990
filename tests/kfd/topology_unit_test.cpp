// SPDX-License-Identifier: MIT
// Unit tests of the topology parsers on canned sysfs text in a temporary directory (no device).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "kfd/topology.h"

namespace {

// A canned topology tree: node 0 a CPU, node 1 an MI210-like gfx90a.
class CannedTopology : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kfd_topo_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    write("generation_id", "7\n");
    write("system_properties", "platform_oem 0\nplatform_id 0\nplatform_rev 0\n");
    write("nodes/0/gpu_id", "0\n");
    write("nodes/0/name", "\n");
    write("nodes/0/properties", "cpu_cores_count 16\nsimd_count 0\nmem_banks_count 1\n"
                                "caches_count 0\nio_links_count 1\ngfx_target_version 0\n");
    write("nodes/0/mem_banks/0/properties", "heap_type 0\nsize_in_bytes 67108864000\nflags 0\n"
                                            "width 64\nmem_clk_max 3200\n");
    write("nodes/0/io_links/0/properties", "type 2\nversion_major 0\nnode_from 0\nnode_to 1\n"
                                           "weight 20\n");
    write("nodes/1/gpu_id", "15663\n");
    write("nodes/1/name", "aldebaran\n");
    write("nodes/1/properties",
          "cpu_cores_count 0\nsimd_count 416\nmem_banks_count 1\ncaches_count 1\n"
          "io_links_count 1\nmax_waves_per_simd 8\nlds_size_in_kb 64\nwave_front_size 64\n"
          "array_count 8\nsimd_arrays_per_engine 1\ncu_per_simd_array 13\nsimd_per_cu 4\n"
          "gfx_target_version 90010\nvendor_id 4098\ndevice_id 29711\ndrm_render_minor 128\n"
          "unique_id 18446744073709551615\nnum_cp_queues 24\nnum_xcc 1\n");
    write("nodes/1/mem_banks/0/properties", "heap_type 1\nsize_in_bytes 68702699520\nflags 0\n"
                                            "width 4096\nmem_clk_max 1600\n");
    write("nodes/1/caches/0/properties",
          "processor_id_low 2147487744\nlevel 2\nsize 8192\ncache_line_size 128\n"
          "cache_lines_per_tag 1\nassociation 16\nlatency 1\ntype 5\n"
          "sibling_map 1,1,1,1,1,1,1,1\n");
    write("nodes/1/io_links/0/properties", "type 2\nnode_from 1\nnode_to 0\nweight 20\n");
  }
  void TearDown() override {
    if (!root_.empty()) std::system(("rm -rf '" + root_ + "'").c_str());
  }
  void write(const std::string& rel, const std::string& text) {
    std::string path = root_ + "/" + rel;
    std::string dir = path.substr(0, path.rfind('/'));
    std::system(("mkdir -p '" + dir + "'").c_str());
    std::ofstream(path) << text;
  }
  std::string root_;
};

TEST(ParseProperties, ParsesKeyValueLines) {
  auto m = kfd::parse_properties("simd_count 416\nunique_id 18446744073709551615\n\nwidth 64");
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->size(), 3u);
  EXPECT_EQ(m->at("simd_count"), 416u);
  EXPECT_EQ(m->at("unique_id"), 18446744073709551615ull);
  EXPECT_EQ(m->at("width"), 64u);
}

TEST(ParseProperties, SkipsNonNumericValues) {
  auto m = kfd::parse_properties("level 2\nsibling_map 1,1,0,0\n");
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->count("sibling_map"), 0u);
  EXPECT_EQ(m->at("level"), 2u);
}

TEST(ParseProperties, RejectsLineWithoutValue) {
  auto m = kfd::parse_properties("simd_count 4\nbroken\n");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.err(), EINVAL);
  EXPECT_NE(m.message().find("line 2"), std::string::npos) << m.message();
}

TEST(NodeProperties, TypedFieldsAndDefaults) {
  auto m = kfd::parse_properties("simd_count 416\nsimd_per_cu 4\ngfx_target_version 90010\n");
  ASSERT_TRUE(m.ok());
  kfd::NodeProperties p = kfd::node_properties_from(*m);
  EXPECT_EQ(p.simd_count, 416u);
  EXPECT_EQ(p.simd_per_cu, 4u);
  EXPECT_EQ(p.gfx_target_version, 90010u);
  EXPECT_EQ(p.num_xcc, 1u);  // absent on older kernels: one XCC
  EXPECT_EQ(p.cwsr_size, 0u);
}

TEST(GfxName, FromTargetVersion) {
  EXPECT_EQ(kfd::gfx_name(90010), "gfx90a");
  EXPECT_EQ(kfd::gfx_name(90402), "gfx942");
  EXPECT_EQ(kfd::gfx_name(90008), "gfx908");
  EXPECT_EQ(kfd::gfx_name(90006), "gfx906");
  EXPECT_EQ(kfd::gfx_name(110000), "gfx1100");
  EXPECT_EQ(kfd::gfx_name(100300), "gfx1030");
  EXPECT_EQ(kfd::gfx_name(120001), "gfx1201");
  EXPECT_EQ(kfd::gfx_name(90012), "gfx90c");
  EXPECT_EQ(kfd::gfx_name(0), "");
}

TEST_F(CannedTopology, ReadsNodesBanksCachesLinks) {
  auto t = kfd::read_topology_at(root_);
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t->generation_id, 7u);
  ASSERT_EQ(t->nodes.size(), 2u);
  const kfd::Node& cpu = t->nodes[0];
  EXPECT_FALSE(cpu.is_gpu());
  EXPECT_EQ(cpu.cu_count(), 16u);
  ASSERT_EQ(cpu.mem_banks.size(), 1u);
  EXPECT_EQ(cpu.mem_banks[0].size_in_bytes, 67108864000ull);
  const kfd::Node& gpu = t->nodes[1];
  EXPECT_TRUE(gpu.is_gpu());
  EXPECT_EQ(gpu.gpu_id, 15663u);
  EXPECT_EQ(gpu.name, "aldebaran");
  EXPECT_EQ(gpu.gfx_name(), "gfx90a");
  EXPECT_EQ(gpu.cu_count(), 104u);
  EXPECT_EQ(gpu.props.drm_render_minor, 128u);
  EXPECT_EQ(gpu.props.unique_id, 18446744073709551615ull);
  EXPECT_EQ(gpu.vram_size(), 68702699520ull);
  ASSERT_EQ(gpu.caches.size(), 1u);
  EXPECT_EQ(gpu.caches[0].size_kb, 8192u);
  EXPECT_EQ(gpu.caches[0].level, 2u);
  ASSERT_EQ(gpu.io_links.size(), 1u);
  EXPECT_EQ(gpu.io_links[0].node_to, 0u);
  EXPECT_EQ(t->gpus().size(), 1u);
  EXPECT_EQ(t->find_gpu(15663), &t->nodes[1]);
  EXPECT_EQ(t->find_gpu(0), nullptr);
  EXPECT_EQ(t->find_gpu(1234), nullptr);
}

TEST_F(CannedTopology, ReportsMissingRoot) {
  auto t = kfd::read_topology_at(root_ + "/does-not-exist");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.err(), ENOENT);
  EXPECT_NE(t.message().find("generation_id"), std::string::npos) << t.message();
}

TEST_F(CannedTopology, ReportsMalformedPropertiesWithPath) {
  write("nodes/1/properties", "simd_count 416\ngarbage\n");
  auto t = kfd::read_topology_at(root_);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.err(), EINVAL);
  EXPECT_NE(t.message().find("nodes/1/properties"), std::string::npos) << t.message();
}

TEST_F(CannedTopology, ReportsMissingGpuId) {
  unlink((root_ + "/nodes/1/gpu_id").c_str());
  auto t = kfd::read_topology_at(root_);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("gpu_id"), std::string::npos) << t.message();
}

// Serves generation_id as a sequence of values, one per read: the file is a FIFO whose writer
// hands out the next value each time a reader opens it. Before writing a value the writer renames
// a fresh FIFO (or, after the last value, a regular file holding `final`) over the path, so the
// reader's next open can only reach the next value. Deterministic: no sleeps.
class GenerationSequence {
 public:
  GenerationSequence(const std::string& root, std::vector<std::string> values, std::string final)
      : path_(root + "/generation_id"), values_(std::move(values)), final_(std::move(final)) {
    unlink(path_.c_str());
    EXPECT_EQ(mkfifo(path_.c_str(), 0600), 0);
    writer_ = std::thread([this] { serve(); });
  }
  ~GenerationSequence() {
    stop_ = true;
    // A writer still blocked in open() (the reader read less often than expected) is released
    // by a non-blocking reader.
    while (!done_) {
      int fd = open(path_.c_str(), O_RDONLY | O_NONBLOCK);
      if (fd >= 0) close(fd);
      std::this_thread::yield();
    }
    writer_.join();
  }
  size_t served() const { return served_; }

 private:
  void serve() {
    for (size_t i = 0; i < values_.size() && !stop_; ++i) {
      int fd = open(path_.c_str(), O_WRONLY);  // blocks until the reader opens this FIFO
      if (fd < 0) break;
      const bool last = i + 1 == values_.size();
      const std::string next = path_ + ".next";
      if (last) std::ofstream(next) << final_ << "\n";
      else mkfifo(next.c_str(), 0600);
      rename(next.c_str(), path_.c_str());
      if (!stop_) {
        std::string v = values_[i] + "\n";
        if (write(fd, v.data(), v.size()) == ssize_t(v.size())) ++served_;
      }
      close(fd);
    }
    done_ = true;
  }
  std::string path_;
  std::vector<std::string> values_;
  std::string final_;
  std::thread writer_;
  std::atomic<bool> stop_{false}, done_{false};
  std::atomic<size_t> served_{0};
};

// The tree changed between the first read of generation_id (7) and its re-read (8): the reader
// reads the whole tree again and returns the second, consistent pass.
TEST_F(CannedTopology, RereadsTheTreeWhenGenerationIdChanges) {
  GenerationSequence gen(root_, {"7", "8"}, "8");
  auto t = kfd::read_topology_at(root_);
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t->generation_id, 8u);
  EXPECT_EQ(gen.served(), 2u);
  EXPECT_EQ(t->gpus().size(), 1u);
}

TEST_F(CannedTopology, GivesUpWhenGenerationIdKeepsChanging) {
  std::vector<std::string> values;
  for (int i = 0; i < 2 * kfd::kTopologyAttempts; ++i) values.push_back(std::to_string(100 + i));
  GenerationSequence gen(root_, values, "999");
  auto t = kfd::read_topology_at(root_);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.err(), EAGAIN);
  EXPECT_NE(t.message().find("kept changing (generation_id)"), std::string::npos) << t.message();
  EXPECT_EQ(gen.served(), values.size());
}

}  // namespace
