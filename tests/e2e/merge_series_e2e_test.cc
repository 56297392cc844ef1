// The per-second series of a merged fleet (docs/scale-out.md): two shards started with
// one --start-at against a redis-server on loopback, then `memstand merge`. Every
// second of the merged series holds the sum of the shards' histograms of that
// wall-clock second, and its percentiles are those of that sum, recomputed here from
// the shards' own JSON (recorded values, no timing).
#include <filesystem>
#include <map>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/clock.h"
#include "e2e/e2e_util.h"
#include "report/histogram_json.h"
#include "stats/encoded_histogram.h"
#include "test_paths.h"

namespace memstand::e2e {
namespace {

using Json = nlohmann::json;

constexpr int kShards = 2;

HdrHistogram Decoded(const Json& histogram) {
  auto e = IntervalHistogramFromJson(nlohmann::ordered_json(histogram));
  EXPECT_TRUE(e.ok()) << e.status().message();
  if (!e.ok()) return HdrHistogram();
  auto h = DecodeHistogram(*e);
  EXPECT_TRUE(h.ok()) << h.status().message();
  return h.ok() ? std::move(*h) : HdrHistogram();
}

// The merged --hdr-log as HdrHistogram's own Java reader sees it: an interval per
// wall-clock second whose count is the sum of the shards' counts of that second (each
// command with -tag, all commands without), the totals the merged counts, StartTime the
// merged series' second 0 (the fleet's --start-at second).
void ExpectMergedLogHoldsTheShardsSeconds(const std::string& hlog, const Json (&shards)[kShards],
                                          const Json& m) {
  const double start_at = m["series_start_unix_s"].get<double>();  // --start-at's second
  std::map<std::string, std::map<int, int64_t>> by_second;  // label -> second -> ops
  for (const Json& shard : shards) {
    const int offset = static_cast<int>(shard["series_start_unix_s"].get<double>() - start_at);
    for (const char* label : {"SET", "GET"}) {
      for (const Json& q : shard["series"][label]) {
        const int64_t ops = q["ops"].get<int64_t>();
        by_second[label][q["second"].get<int>() + offset] += ops;
        by_second[""][q["second"].get<int>() + offset] += ops;
      }
    }
  }
  for (const auto& [tag, seconds] : by_second) {
    SCOPED_TRACE("tag '" + tag + "'");
    std::vector<int64_t> expected;
    int64_t total = 0;
    for (const auto& [second, ops] : seconds) {
      expected.push_back(ops);
      total += ops;
    }
    const HdrLogRead read = ReadHdrLogWithJava(hlog, tag);
    EXPECT_EQ(read.interval_counts, expected) << read.output;
    EXPECT_GE(read.interval_counts.size(), 2u);
    EXPECT_EQ(read.total, total);
    const Json& merged = tag.empty() ? m["totals"] : m["commands"][tag == "SET" ? 0 : 1];
    EXPECT_EQ(read.total, merged["ops"].get<int64_t>());
  }
  const std::string text = testutil::ReadFile(hlog);
  EXPECT_NE(text.find(fmt::format("#[StartTime: {:.3f} ", start_at)), std::string::npos)
      << text.substr(0, 300);
}

TEST(MergeSeriesE2E, PerSecondHistogramsOfTwoShardsAddExactly) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  const std::string dir = TempDir();
  const std::string target = fmt::format("redis://127.0.0.1:{}", redis->port());
  const int64_t before = CommandCalls(*redis, "set");
  // Open loop, 1,000 requests/s per shard, 1,500 each: about 1.5 s, two seconds of series.
  const int64_t at = static_cast<int64_t>(UnixNowS()) + 2;
  std::vector<std::unique_ptr<Running>> shards;
  for (int k = 0; k < kShards; ++k) {
    shards.push_back(Running::Start(
        {"run", "--target", target, fmt::format("--shard={}/{}", k, kShards),
         fmt::format("--start-at={}", at), "--warmup=0", "--ratio=1:1", "--rate=2000", "--requests=3000", "--clients=4",
         fmt::format("--json={}/s{}.json", dir, k), "-q"}));
    ASSERT_NE(shards.back(), nullptr);
  }
  for (int k = 0; k < kShards; ++k) {
    Outcome o = shards[k]->Wait(30);
    ASSERT_EQ(o.exit_code, 0) << "shard " << k << ": " << o.output;
  }
  Outcome merged = RunMemstand({"merge", dir + "/s0.json", dir + "/s1.json", "-o",
                                dir + "/merged.json", "--hdr-log", dir + "/merged.hlog"});
  ASSERT_EQ(merged.exit_code, 0) << merged.output;
  const Json m = ReadJson(dir + "/merged.json");
  const Json s[kShards] = {ReadJson(dir + "/s0.json"), ReadJson(dir + "/s1.json")};
  // The merge's totals equal the server's count (GETs are not SETs: half of the mix).
  const uint64_t sets = m["commands"][0]["ops"].get<uint64_t>();
  EXPECT_EQ(static_cast<int64_t>(sets), CommandCalls(*redis, "set") - before);

  size_t checked = 0, bytes = 0, histograms = 0;
  for (const char* label : {"SET", "GET"}) {
    const Json& series = m["series"][label];
    ASSERT_GE(series.size(), 2u) << label;
    HdrHistogram all;
    for (const Json& p : series) {
      const int second = p["second"].get<int>();
      // The shards' points of the same wall-clock second, summed and added here.
      uint64_t ops = 0;
      HdrHistogram sum;
      for (const Json& shard : s) {
        const int offset = static_cast<int>(shard["series_start_unix_s"].get<double>() -
                                            m["series_start_unix_s"].get<double>());
        for (const Json& q : shard["series"][label]) {
          if (q["second"].get<int>() + offset != second) continue;
          ops += q["ops"].get<uint64_t>();
          sum.Add(Decoded(q["histogram"]));
          bytes += q["histogram"].dump().size();
          ++histograms;
        }
      }
      ASSERT_TRUE(p.contains("histogram")) << label << " second " << second;
      EXPECT_EQ(p["ops"].get<uint64_t>(), ops) << label << " second " << second;
      EXPECT_EQ(p["histogram"]["count"].get<uint64_t>(), ops) << label << " second " << second;
      const HdrHistogram mine = Decoded(p["histogram"]);
      for (int i = 0; i < mine.counts_len(); ++i) {
        ASSERT_EQ(mine.count_at_index(i), sum.count_at_index(i)) << label << " second " << second;
      }
      for (auto [key, q] : {std::pair{"p50_us", 50.0}, {"p90_us", 90.0}, {"p99_us", 99.0},
                            {"p99_9_us", 99.9}}) {
        ASSERT_TRUE(p[key].is_number()) << key;
        EXPECT_EQ(p[key].get<double>(), sum.ValueAtPercentile(q) / 1000.0)
            << label << " second " << second << " " << key;
      }
      EXPECT_EQ(p["max_us"].get<double>(), sum.max() / 1000.0);
      all.Add(sum);
      ++checked;
    }
    // The seconds together are the command's whole histogram.
    EXPECT_EQ(all.total_count(), m["commands"][label == std::string("SET") ? 0 : 1]["ops"].get<int64_t>());
  }
  // All commands: the sum of both commands' seconds (no histogram of its own).
  for (const Json& p : m["series"]["Total"]) {
    HdrHistogram sum;
    for (const char* label : {"SET", "GET"}) {
      for (const Json& q : m["series"][label]) {
        if (q["second"] == p["second"]) sum.Add(Decoded(q["histogram"]));
      }
    }
    EXPECT_EQ(p["ops"].get<int64_t>(), sum.total_count());
    EXPECT_EQ(p["p99_us"].get<double>(), sum.ValueAtPercentile(99) / 1000.0);
    EXPECT_FALSE(p.contains("histogram"));
  }
  EXPECT_GE(checked, 4u);
  std::printf("MergeSeriesE2E: %zu per-second histograms in the shards' JSON, %zu bytes on "
              "average each (~1,000 requests/s per command and shard)\n",
              histograms, histograms == 0 ? 0 : bytes / histograms);

  ExpectMergedLogHoldsTheShardsSeconds(dir + "/merged.hlog", s, m);

  // The merged JSON renders.
  Outcome rep = RunMemstand({"report", dir + "/merged.json", "-o", dir + "/merged.html"}, 30);
  ASSERT_EQ(rep.exit_code, 0) << rep.output;
  EXPECT_TRUE(std::filesystem::exists(dir + "/merged.html"));
}

}  // namespace
}  // namespace memstand::e2e
