#include "report/merge.h"

#include <cstdio>

#include <gtest/gtest.h>

#include "load/shard_plan.h"
#include "report/histogram_json.h"
#include "stats/hdr_decode.h"
#include "util/rng.h"

namespace memstand {
namespace {

using Json = nlohmann::ordered_json;

// Three shards' run JSONs of one split sample; `whole` holds every value, `second[i]`
// every value of wall-clock second i (the shards' series seconds 0 and 1).
struct Fleet {
  HdrHistogram whole;
  HdrHistogram second[2];
  std::vector<MergeInput> inputs;
};

SeriesPoint Point(int second, const HdrHistogram& h) {
  SeriesPoint p;
  p.second = second;
  p.ops = static_cast<uint64_t>(h.total_count());
  SetPercentiles(h, &p);
  p.latency = EncodeHistogram(h);
  return p;
}

Fleet MakeFleet() {
  Fleet f;
  Rng rng(5);
  std::vector<HdrHistogram> parts(3);
  HdrHistogram by_second[3][2];
  for (int i = 0; i < 20000; ++i) {
    const int64_t v = 30'000 + static_cast<int64_t>(rng.Uniform(i % 11 == 0 ? 50'000'000 : 300'000));
    f.whole.Record(v);
    parts[i % 3].Record(v);
    const int second = i % 7 == 0 ? 1 : 0;
    f.second[second].Record(v);
    by_second[i % 3][second].Record(v);
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
    r.series = {{Point(0, by_second[k][0]), Point(1, by_second[k][1])}, {}};
    r.series[1] = r.series[0];
    for (SeriesPoint& p : r.series[1]) p.latency = {};  // all commands: none, as a run
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
  EXPECT_EQ((*m)->report.exit_code, 0) << (*m)->report.verdict;
  const Json j = MergedJson(**m);
  EXPECT_EQ(j["schema"], "memstand.run");
  EXPECT_EQ(j["merge"]["shards"].size(), 3u);
}

TEST(MergeTest, AddsThePerSecondHistogramsOfTheSameSecond) {
  Fleet f = MakeFleet();
  auto m = MergeRuns(f.inputs);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const Json j = MergedJson(**m);
  for (const char* label : {"SET", "Total"}) {
    const auto& series = label == std::string("SET") ? (*m)->result.series[0] : (*m)->result.series[1];
    ASSERT_EQ(series.size(), 2u) << label;
    for (int i = 0; i < 2; ++i) {
      const HdrHistogram& whole = f.second[i];
      const SeriesPoint& p = series[i];
      EXPECT_EQ(p.ops, static_cast<uint64_t>(whole.total_count())) << label << i;
      EXPECT_TRUE(p.percentiles_known);
      EXPECT_EQ(p.p50_ns, whole.ValueAtPercentile(50)) << label << i;
      EXPECT_EQ(p.p90_ns, whole.ValueAtPercentile(90)) << label << i;
      EXPECT_EQ(p.p99_ns, whole.ValueAtPercentile(99)) << label << i;
      EXPECT_EQ(p.p999_ns, whole.ValueAtPercentile(99.9)) << label << i;
      EXPECT_EQ(p.max_ns, whole.max()) << label << i;
      const Json& jp = j["series"][label][i];
      EXPECT_DOUBLE_EQ(jp["p99_us"].get<double>(), whole.ValueAtPercentile(99) / 1000.0);
      EXPECT_DOUBLE_EQ(jp["p99_9_us"].get<double>(), whole.ValueAtPercentile(99.9) / 1000.0);
    }
  }
  // The merged command series carries the summed histogram itself (bucket for bucket).
  auto e = IntervalHistogramFromJson(j["series"]["SET"][1]["histogram"]);
  ASSERT_TRUE(e.ok()) << e.status().message();
  auto h = DecodeHistogram(*e);
  ASSERT_TRUE(h.ok()) << h.status().message();
  for (int i = 0; i < h->counts_len(); ++i) ASSERT_EQ(h->count_at_index(i), f.second[1].count_at_index(i));
  EXPECT_FALSE(j["series"]["Total"][0].contains("histogram"));
}

TEST(MergeTest, AlignsPerSecondHistogramsByWallClockSecond) {
  Fleet f = MakeFleet();
  // Shard 2's series starts a second later: its second 0 is the fleet's second 1.
  f.inputs[2].doc["series_start_unix_s"] = 1001;
  auto m = MergeRuns(f.inputs);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const auto& set = (*m)->result.series[0];
  ASSERT_EQ(set.size(), 3u);
  const Json& s2 = f.inputs[2].doc["series"]["SET"];
  uint64_t second1 = 0;
  for (int k = 0; k < 2; ++k) second1 += f.inputs[k].doc["series"]["SET"][1]["ops"].get<uint64_t>();
  EXPECT_EQ(set[1].ops, second1 + s2[0]["ops"].get<uint64_t>());
  EXPECT_EQ(set[2].ops, s2[1]["ops"].get<uint64_t>());
  HdrHistogram expected;
  for (int k = 0; k < 2; ++k) {
    auto e = IntervalHistogramFromJson(f.inputs[k].doc["series"]["SET"][1]["histogram"]);
    expected.Add(*DecodeHistogram(*e));
  }
  expected.Add(*DecodeHistogram(*IntervalHistogramFromJson(s2[0]["histogram"])));
  EXPECT_EQ(set[1].p99_ns, expected.ValueAtPercentile(99));
  EXPECT_EQ(set[1].p50_ns, expected.ValueAtPercentile(50));
}

TEST(MergeTest, AnInputWithoutPerSecondHistogramsLeavesThePercentilesUnknown) {
  Fleet f = MakeFleet();
  for (Json& p : f.inputs[1].doc["series"]["SET"]) p.erase("histogram");
  auto m = MergeRuns(f.inputs);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const Json j = MergedJson(**m);
  for (const char* label : {"SET", "Total"}) {
    EXPECT_TRUE(j["series"][label][0]["p99_us"].is_null()) << label;
    EXPECT_TRUE(j["series"][label][0]["p50_us"].is_null()) << label;
    EXPECT_EQ(j["series"][label][0]["ops"].get<uint64_t>(),
              static_cast<uint64_t>(f.second[0].total_count()));
  }
  EXPECT_FALSE(j["series"]["SET"][0].contains("histogram"));
}

std::vector<std::string> MergedLines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find('\n', at);
    lines.push_back(text.substr(at, end - at));
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return lines;
}

// The merged log: StartTime the series' second 0, per second an untagged line and a
// SET line, each the sum of the shards' histograms of that second (bucket for bucket),
// the last second as long as the measured window left it (1.5 s: 0.500).
TEST(MergeTest, HdrLogHasAnIntervalPerSecondOfTheShardsSum) {
  Fleet f = MakeFleet();
  auto m = MergeRuns(f.inputs);
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto log = MergedHdrLog(**m);
  ASSERT_TRUE(log.ok()) << log.status().message();
  const std::vector<std::string> lines = MergedLines(*log);
  ASSERT_EQ(lines.size(), 4u + 4u) << *log;
  EXPECT_EQ(lines[1].rfind("#[StartTime: 1000.000 (seconds since epoch), ", 0), 0u) << lines[1];
  const char* prefixes[] = {"0.000,1.000,", "Tag=SET,0.000,1.000,", "1.000,0.500,",
                            "Tag=SET,1.000,0.500,"};
  for (int i = 0; i < 4; ++i) {
    const std::string& line = lines[4 + i];
    ASSERT_EQ(line.rfind(prefixes[i], 0), 0u) << line;
    const HdrHistogram& whole = f.second[i / 2];
    auto h = DecodeCompressedV2Base64(line.substr(line.rfind(',') + 1), whole.min(), whole.max());
    ASSERT_TRUE(h.ok()) << h.status().message();
    ASSERT_EQ(h->total_count(), whole.total_count()) << line;
    for (int b = 0; b < h->counts_len(); ++b) ASSERT_EQ(h->count_at_index(b), whole.count_at_index(b));
  }
}

TEST(MergeTest, HdrLogRefusesASecondWithoutHistograms) {
  Fleet f = MakeFleet();
  f.inputs[1].doc["series"]["SET"][1].erase("histogram");
  auto m = MergeRuns(f.inputs);
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto log = MergedHdrLog(**m);
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.status().message().find("series \"SET\" second 1 has no histogram"),
            std::string::npos) << log.status().message();
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
  auto per_second = f.inputs;
  per_second[1].doc["series"]["SET"][1]["histogram"]["count"] = 1;
  ExpectRefused(per_second, "s1.json: series \"SET\" second 1: histogram: count 1");
  auto other_settings = f.inputs;
  HdrHistogram two_digits(1, 3'600'000'000'000LL, 2);
  two_digits.Record(40'000);
  other_settings[0].doc["series"]["SET"][0]["histogram"] =
      IntervalHistogramJson(EncodeHistogram(two_digits));
  ExpectRefused(other_settings, "settings differ");
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

// Every value's JSON pointer in `j`, containers included.
void MutationPaths(const Json& j, const Json::json_pointer& at, std::vector<Json::json_pointer>* out) {
  out->push_back(at);
  if (j.is_object()) {
    for (const auto& [key, v] : j.items()) MutationPaths(v, at / key, out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) MutationPaths(j[i], at / i, out);
  }
}

// The automated check (#25 row 1: 136 of 623 single-field type mutations of a
// shard JSON aborted merge): every field of a shard replaced by a value of each other
// type, or an out-of-range one, merges or is refused naming the file; never an exception.
TEST(MergeTest, EverySingleFieldMutationMergesOrIsRefusedNamingTheFile) {
  Fleet f = MakeFleet();
  std::vector<Json::json_pointer> paths;
  MutationPaths(f.inputs[1].doc, Json::json_pointer(), &paths);
  ASSERT_GT(paths.size(), 100u);
  const Json replacements[] = {Json::object(), Json::array(), nullptr, 5, -1, 1.5, "x", true, 1e300,
                               Json{{"p99", 1}}};
  int refused = 0, merged = 0;
  for (const Json::json_pointer& path : paths) {
    for (const Json& r : replacements) {
      std::vector<MergeInput> inputs = f.inputs;
      inputs[1].doc[path] = r;
      SCOPED_TRACE(path.to_string() + " = " + r.dump());
      try {
        auto m = MergeRuns(inputs);
        if (!m.ok()) {
          ++refused;
          EXPECT_EQ(m.status().code(), Status::Code::kInvalidArgument);
          EXPECT_NE(m.status().message().find(".json"), std::string::npos) << m.status().message();
          continue;
        }
        ++merged;
        std::FILE* null = std::fopen("/dev/null", "w");
        PrintMergeReport(null, **m);
        std::fclose(null);
        (void)MergedJson(**m).dump();
        (void)MergedHdrLog(**m);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "threw: " << e.what();
      }
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(merged, 0);
}

TEST(MergeTest, TheSameUnshardedRunTwiceIsRefused) {
  Fleet f = MakeFleet();
  std::vector<MergeInput> twice = {f.inputs[0], f.inputs[0]};
  for (MergeInput& in : twice) in.doc.erase("shard");
  twice[1].path = "copy.json";
  ExpectRefused(twice, "copy.json: the same run as s0.json (the same document): given twice");
}

TEST(MergeTest, PercentileKeysThatAreNotNumbersAreRefusedNamingTheField) {
  Fleet f = MakeFleet();
  f.inputs[2].doc["totals"]["latency"]["percentiles_us"]["p99"] = 5;
  ExpectRefused(f.inputs, "s2.json: field totals.latency.percentiles_us: key \"p99\" is not a number");
}

bool HasWarning(const MergedRun& m, const std::string& text) {
  for (const std::string& w : m.report.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(MergeTest, ShardsOfDifferentTargetsAreWarnedAboutNotCalledShared) {
  Fleet f = MakeFleet();
  f.inputs[1].doc["server"]["url"] = "redis://127.0.0.1:16380";
  auto m = MergeRuns(f.inputs);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_TRUE(HasWarning(**m, "the runs named 2 different targets")) << (*m)->report.server_note;
  EXPECT_NE((*m)->report.server_note.find("redis://127.0.0.1:16380 (s1.json)"), std::string::npos)
      << (*m)->report.server_note;
  EXPECT_EQ((*m)->report.exit_code, 0);
}

TEST(MergeTest, WindowsThatDoNotOverlapAreWarnedAbout) {
  Fleet f = MakeFleet();
  auto together = MergeRuns(f.inputs);
  ASSERT_TRUE(together.ok());
  EXPECT_FALSE(HasWarning(**together, "measured windows"));
  f.inputs[2].doc["start_at"]["measured_start_unix_s"] = 1000.0001 + 1380;
  f.inputs[2].doc["series_start_unix_s"] = 1000 + 1380;
  auto apart = MergeRuns(f.inputs);
  ASSERT_TRUE(apart.ok()) << apart.status().message();
  EXPECT_TRUE(HasWarning(**apart, "the runs' measured windows do not overlap (the last started 1378.5 s "
                                  "after the first ended)"));
  f.inputs[2].doc["start_at"]["measured_start_unix_s"] = 1000.0001 + 0.5;
  auto partly = MergeRuns(f.inputs);
  ASSERT_TRUE(partly.ok());
  EXPECT_TRUE(HasWarning(**partly, "overlap for 1.0 s of the merged 2.0 s"));
}

}  // namespace
}  // namespace memstand
