// SPDX-License-Identifier: MIT
// Host-only tests of the trace recorder and its file: sessions, records from many threads, merging.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "trace/trace.h"
#include "trace/trace_file.h"

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

std::string temp_path(const char* name) {
  return testing::TempDir() + "kfdrt-trace-" + std::to_string(getpid()) + "-" + name;
}

TEST(TraceFile, MergesEventsOfTheSameProcess) {
  const std::string p = temp_path("merge.json");
  ASSERT_EQ(trace::write_events(p, "{\"name\":\"a\",\"ph\":\"i\"}"), "");
  ASSERT_EQ(trace::write_events(p, "{\"name\":\"b\",\"ph\":\"i\"}"), "");
  const std::string s = read(p);
  EXPECT_EQ(count(s, "\"name\":\"a\""), 1u);
  EXPECT_EQ(count(s, "\"name\":\"b\""), 1u);
  EXPECT_EQ(s.substr(s.size() - 4), "\n]}\n");
  std::remove(p.c_str());
}

TEST(TraceFile, ReplacesAnotherProcessesFile) {
  const std::string p = temp_path("replace.json");
  {
    std::ofstream f(p);
    f << "{\"otherData\":{\"session\":\"1:1\"},\"traceEvents\":[\n{\"name\":\"old\"}\n]}\n";
  }
  ASSERT_EQ(trace::write_events(p, "{\"name\":\"new\",\"ph\":\"i\"}"), "");
  const std::string s = read(p);
  EXPECT_EQ(count(s, "\"old\""), 0u);
  EXPECT_EQ(count(s, "\"new\""), 1u);
  std::remove(p.c_str());
}

TEST(TraceFile, WritesNothingForNoEventsAndExpandsThePid) {
  const std::string p = temp_path("empty-%p.json");
  const std::string expanded = trace::expand_path(p);
  EXPECT_NE(expanded.find(std::to_string(getpid())), std::string::npos);
  ASSERT_EQ(trace::write_events(p, ""), "");
  EXPECT_FALSE(std::ifstream(expanded).good());
  ASSERT_EQ(trace::write_events(p, "{\"name\":\"x\",\"ph\":\"i\"}"), "");
  EXPECT_TRUE(std::ifstream(expanded).good());
  std::remove(expanded.c_str());
}

TEST(TraceFile, ReportsAnUnwritablePath) {
  const std::string e = trace::write_events("/nonexistent-dir/x.json", "{\"name\":\"x\"}");
  EXPECT_NE(e.find("/nonexistent-dir/x.json"), std::string::npos) << e;
}

TEST(TraceFile, EscapesJsonStrings) {
  EXPECT_EQ(trace::json_escape("a\"b\\c\n"), "a\\\"b\\\\c\\u000a");
}

TEST(TraceSession, RecordsFromManyThreadsAndRejectsMisuse) {
  if (trace::on()) GTEST_SKIP() << "KFDRT_TRACE is set for this process";
  EXPECT_FALSE(trace::stop().ok());  // no session
  EXPECT_FALSE(trace::start("").ok());
  const std::string p = temp_path("session.json");
  ASSERT_TRUE(trace::start(p).ok());
  EXPECT_FALSE(trace::start(p).ok());  // one at a time
  EXPECT_TRUE(trace::on());
  constexpr int kThreads = 4, kEach = 3000;  // several chunks per thread
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([] {
      for (int i = 0; i < kEach; ++i) trace::ApiScope s("hipUnitTestCall");
    });
  for (auto& t : ts) t.join();
  ASSERT_TRUE(trace::stop().ok());
  EXPECT_FALSE(trace::on());
  const std::string s = read(p);
  EXPECT_EQ(count(s, "\"name\":\"hipUnitTestCall\""), size_t(kThreads) * kEach);
  { trace::ApiScope after("hipAfterStop"); }  // off again: nothing recorded, nothing written
  EXPECT_EQ(count(read(p), "hipAfterStop"), 0u);
  std::remove(p.c_str());
}

}  // namespace
