#include "report/memtier_text.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "load/command_spec.h"

namespace memstand {
namespace {

// A RESP command as `memstand run --command` makes it.
CommandSpec Spec(const std::string& text, uint32_t weight) {
  auto c = MakeCommandSpec(Protocol::kResp, text, "memtier-", {}, weight, CommandLimits{});
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : CommandSpec{};
}

// 2 s: SET 1000 replies at 1 ms, GET 4000 (1000 hits) at 2 ms; 2 KiB/s each way.
struct FakeRun {
  LoadOptions options;
  RunResult result;
  RunReport report;

  explicit FakeRun(std::vector<CommandSpec> commands) {
    options.commands = std::move(commands);
    options.threads = 4;
    options.clients = 50;
    options.requests = 5000;
    options.percentiles = {50, 99, 99.9};
    result.measured_s = 2;
    result.totals = ThreadStats(options.commands.size());
    result.totals.cluster_moved = 10;
    for (size_t i = 0; i < options.commands.size(); ++i) {
      CommandStats& s = result.totals.commands[i];
      s.ops = i == 0 ? 1000 : 4000;
      s.hits = i == 0 ? 0 : 1000;
      s.misses = i == 0 ? 0 : 3000;
      s.bytes_in = s.bytes_out = 2048;
      s.latency_ns.RecordN(i == 0 ? 1'000'000 : 2'000'000, static_cast<int64_t>(s.ops));
    }
    report.options = &options;
    report.result = &result;
  }
};

std::vector<std::string> Lines(const RunReport& rep, const MemtierTextOptions& o, const char* title) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  PrintMemtierStats(f, rep, title, o);
  std::fclose(f);
  std::istringstream in(std::string(buf, len));
  std::free(buf);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

TEST(MemtierText, AllStatsTableInMemtiersShape) {
  FakeRun run({Spec("SET __key__ __data__", 1), Spec("GET __key__", 4)});
  MemtierTextOptions o;
  o.hide_histogram = true;
  auto lines = Lines(run.report, o, "ALL STATS");
  ASSERT_EQ(lines.size(), 10u);
  EXPECT_EQ(lines[2], "ALL STATS");
  EXPECT_EQ(lines[3], std::string(8 + 13 * 3 + 16 * 4 + 13, '='));
  EXPECT_EQ(lines[4],
            "Type         Ops/sec     Hits/sec   Misses/sec    Avg. Latency     p50 Latency     p99 Latency"
            "   p99.9 Latency       KB/sec ");
  EXPECT_EQ(lines[6].substr(0, 46), "Sets          500.00          ---          ---");
  EXPECT_EQ(lines[7].substr(0, 46), "Gets         2000.00       500.00      1500.00");
  EXPECT_EQ(lines[8],
            "Waits           0.00          ---          ---             ---             ---             ---"
            "             ---          --- ");
  EXPECT_EQ(lines[9].substr(0, 46), "Totals       2500.00       500.00      1500.00");
  EXPECT_NE(lines[6].find("        1.00000 "), std::string::npos) << lines[6];  // 1 ms mean
  EXPECT_NE(lines[7].find("        2.00000 "), std::string::npos) << lines[7];
  EXPECT_TRUE(lines[6].ends_with("         2.00 ")) << lines[6];  // 4 KiB in 2 s
  EXPECT_TRUE(lines[9].ends_with("         4.00 ")) << lines[9];
}

TEST(MemtierText, CommandRowsAndClusterColumns) {
  FakeRun run({Spec("HSET h __key__ __data__", 1), Spec("hget h __key__", 4)});
  MemtierTextOptions o;
  o.hide_histogram = true;
  o.arbitrary_commands = true;
  o.cluster_mode = true;
  auto lines = Lines(run.report, o, "ALL STATS");
  ASSERT_EQ(lines.size(), 9u);
  EXPECT_EQ(lines[4].substr(0, 46), "Type         Ops/sec    MOVED/sec      ASK/sec");
  EXPECT_EQ(lines[4].find("Hits/sec"), std::string::npos);
  EXPECT_EQ(lines[6].substr(0, 46), "Hsets         500.00          ---          ---");
  EXPECT_EQ(lines[7].substr(0, 21), "Hgets        2000.00 ");
  EXPECT_EQ(lines[8].substr(0, 46), "Totals       2500.00         5.00         0.00");
}

TEST(MemtierText, HistogramIsCumulativePercentPerType) {
  FakeRun run({Spec("SET __key__ __data__", 1), Spec("GET __key__", 4)});
  auto lines = Lines(run.report, MemtierTextOptions(), "ALL STATS");
  size_t at = 0;
  while (at < lines.size() && lines[at] != "Request Latency Distribution") ++at;
  ASSERT_LT(at + 2, lines.size());
  EXPECT_EQ(lines[at + 1], "Type     <= msec         Percent");
  std::vector<std::string> set, get;
  for (size_t i = at + 3; i < lines.size(); ++i) {
    if (lines[i].rfind("SET ", 0) == 0) set.push_back(lines[i]);
    if (lines[i].rfind("GET ", 0) == 0) get.push_back(lines[i]);
  }
  ASSERT_FALSE(set.empty());
  ASSERT_FALSE(get.empty());
  EXPECT_EQ(set.back(), "SET       1.000      100.000");  // every SET at 1 ms
  EXPECT_EQ(get.back(), "GET       2.000      100.000");
}

TEST(MemtierText, PercentileTitles) {
  EXPECT_EQ(MemtierPercentileTitle(50), "p50 Latency");
  EXPECT_EQ(MemtierPercentileTitle(99.9), "p99.9 Latency");
  // memtier counts decimals by truncating the fraction: 99.99 gets 3 ("p99.990").
  EXPECT_EQ(MemtierPercentileTitle(99.99), "p99.990 Latency");
  EXPECT_EQ(MemtierPercentileTitle(99.999), "p99.999 Latency");
}

TEST(MemtierText, RunInformation) {
  FakeRun run({Spec("SET __key__ __data__", 1)});
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  PrintMemtierRunInformation(f, run.options);
  std::fclose(f);
  EXPECT_EQ(std::string(buf, len),
            "4         Threads\n50        Connections per thread\n25        Requests per client\n");
  std::free(buf);
}

}  // namespace
}  // namespace memstand
