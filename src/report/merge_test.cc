#include "report/merge.h"

#include <gtest/gtest.h>

#include "load/shard_plan.h"
#include "workload/rng.h"

namespace memstand {
namespace {

using Json = nlohmann::ordered_json;

// Three shards' run JSONs of one split sample; `whole` holds every value.
struct Fleet {
  HdrHistogram whole;
  std::vector<MergeInput> inputs;
};

Fleet MakeFleet() {
  Fleet f;
  Rng rng(5);
  std::vector<HdrHistogram> parts(3);
  for (int i = 0; i < 20000; ++i) {
    const int64_t v = 30'000 + static_cast<int64_t>(rng.Uniform(i % 11 == 0 ? 50'000'000 : 300'000));
    f.whole.Record(v);
    parts[i % 3].Record(v);
  }
  for (uint64_t k = 0; k < 3; ++k) {
    LoadOptions o;
    o.commands.resize(1);
    o.commands[0].label = "SET";
    o.commands[0].tmpl.name = "SET";
    o.commands[0].key_pattern.kind = KeyPatternSpec::Kind::kSequential;
    o.key_min = 0;
    o.key_max = 2999;
    o.requests = 3000;
    o.start_at_unix_s = 1000;
    EXPECT_TRUE(ApplyShard({k, 3}, &o).ok());
    RunResult r;
    r.totals = ThreadStats(1);
    r.totals.commands[0].latency_ns = parts[k];
    r.totals.commands[0].ops = static_cast<uint64_t>(parts[k].total_count());
    r.totals.commands[0].bytes_out = 10 * (k + 1);
    r.totals.commands[0].errors_by_prefix["ERR"] = {k + 1, "ERR x", 1};
    r.totals.cpu_user_s = 0.5;
    r.measured_s = 1.5;
    r.measured_start_unix_s = 1000.0001;
    r.series_start_unix_s = 1000;
    r.series = {{{0, 100 * (k + 1), 0, 0, 0, 5000}, {1, 10, 0, 0, 0, 7000}}, {}};
    r.series[1] = r.series[0];
    RunReport rep;
    rep.options = &o;
    rep.result = &r;
    rep.verdict = "OK";
    f.inputs.push_back({"s" + std::to_string(k) + ".json", RunReportJson(rep)});
  }
  return f;
}

TEST(MergeTest, AddsHistogramsExactlyAndSumsCounts) {
  Fleet f = MakeFleet();
  auto m = MergeRuns(f.inputs);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const CommandStats all = (*m)->result.AllCommands();
  ASSERT_EQ(all.latency_ns.total_count(), f.whole.total_count());
  for (double p = 0; p <= 100; p += 0.25) {
    ASSERT_EQ(all.latency_ns.ValueAtPercentile(p), f.whole.ValueAtPercentile(p)) << "p" << p;
  }
  EXPECT_EQ(all.latency_ns.ValueAtPercentile(99.99), f.whole.ValueAtPercentile(99.99));
  EXPECT_EQ(all.latency_ns.max(), f.whole.max());
  EXPECT_EQ(all.ops, 20000u);
  EXPECT_EQ(all.bytes_out, 60u);
  EXPECT_EQ(all.errors_by_prefix.at("ERR").count, 6u);
  EXPECT_DOUBLE_EQ((*m)->result.client_cpu_s(), 1.5);
  // The fleet's options, not shard 0's.
  EXPECT_EQ((*m)->options.key_min, 0u);
  EXPECT_EQ((*m)->options.key_max, 2999u);
  EXPECT_EQ((*m)->options.requests, 3000u);
  // Series summed by wall-clock second.
  ASSERT_EQ((*m)->result.series.back().size(), 2u);
  EXPECT_EQ((*m)->result.series.back()[0].ops, 600u);
  EXPECT_EQ((*m)->result.series.back()[1].ops, 30u);
  EXPECT_EQ((*m)->result.series.back()[1].max_ns, 7000);
  EXPECT_EQ((*m)->report.exit_code, 0) << (*m)->report.verdict;
  const Json j = MergedJson(**m);
  EXPECT_EQ(j["schema"], "memstand.run");
  EXPECT_EQ(j["merge"]["shards"].size(), 3u);
  EXPECT_TRUE(j["series"]["Total"][0]["p99_us"].is_null());
}

void ExpectRefused(std::vector<MergeInput> inputs, const std::string& says) {
  auto m = MergeRuns(inputs);
  ASSERT_FALSE(m.ok()) << says;
  EXPECT_EQ(m.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(m.status().message().find(says), std::string::npos) << m.status().message();
}

TEST(MergeTest, RefusesInputsOfDifferentRuns) {
  Fleet f = MakeFleet();
  auto version = f.inputs;
  version[1].doc["version"] = 2;
  ExpectRefused(version, "version");
  auto settings = f.inputs;
  settings[2].doc["totals"]["latency"]["histogram"]["significant_figures"] = 2;
  ExpectRefused(settings, "histogram settings");
  auto workload = f.inputs;
  workload[1].doc["options"]["pipeline"] = 8;
  ExpectRefused(workload, "options.pipeline");
  auto twice = f.inputs;
  twice[2] = twice[0];
  twice[2].path = "copy.json";
  ExpectRefused(twice, "given twice");
  auto other_fleet = f.inputs;
  other_fleet[1].doc["shard"]["count"] = 4;
  ExpectRefused(other_fleet, "another fleet");
  auto no_histogram = f.inputs;
  no_histogram[0].doc["totals"]["latency"].erase("histogram");
  ExpectRefused(no_histogram, "no histograms");
  auto damaged = f.inputs;
  damaged[1].doc["commands"][0]["latency"]["histogram"]["data"] = "AAAA";
  ExpectRefused(damaged, "histogram");
}

TEST(MergeTest, AMissingOrFailedShardFailsTheMerge) {
  Fleet f = MakeFleet();
  auto partial = f.inputs;
  partial.pop_back();
  auto m = MergeRuns(partial);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ((*m)->report.exit_code, 1);
  EXPECT_NE((*m)->report.verdict.find("2 of 3 shards"), std::string::npos);
  auto failed = f.inputs;
  failed[1].doc["verdict"] = "FAILED: lost the connection";
  auto n = MergeRuns(failed);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ((*n)->report.exit_code, 1);
  EXPECT_NE((*n)->report.verdict.find("1 of 3 runs"), std::string::npos);
}

}  // namespace
}  // namespace memstand
