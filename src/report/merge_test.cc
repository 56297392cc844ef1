#include "report/merge.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

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

// What a field's mutation is replaced by: a value of each type, and out-of-range ones.
const Json kMutations[] = {Json::object(), Json::array(), nullptr, 5, -1, 1.5, "x", true, 1e300, Json{{"p99", 1}}};

struct MutationCounts {
  int refused = 0, merged = 0;
};

// Merges `inputs` and reads the result every way (the report, the JSON, the HdrHistogram
// log), or sees them refused as bad input with a message holding `names` (the file);
// an exception is a failure. Counted in *n.
void MergeOrRefuse(const std::vector<MergeInput>& inputs, const char* names, MutationCounts* n) {
  try {
    auto m = MergeRuns(inputs);
    if (!m.ok()) {
      ++n->refused;
      EXPECT_EQ(m.status().code(), Status::Code::kInvalidArgument);
      EXPECT_NE(m.status().message().find(names), std::string::npos) << m.status().message();
      return;
    }
    ++n->merged;
    std::FILE* null = std::fopen("/dev/null", "w");
    PrintMergeReport(null, **m);
    std::fclose(null);
    (void)MergedJson(**m).dump();
    (void)MergedHdrLog(**m);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw: " << e.what();
  }
}

// A field of a shard's document replaced by `by` for the life of this object, then put
// back: the mutation tests change the fleet in place rather than copy its three
// documents for each of their thousands of cases.
class Mutated {
 public:
  Mutated(Json* field, const Json& by) : field_(field), saved_(std::move(*field)) { *field_ = by; }
  Mutated(Mutated&& o) noexcept
      : field_(std::exchange(o.field_, nullptr)), saved_(std::move(o.saved_)) {}
  Mutated(const Mutated&) = delete;
  Mutated& operator=(const Mutated&) = delete;
  Mutated& operator=(Mutated&&) = delete;
  ~Mutated() {
    if (field_ != nullptr) *field_ = std::move(saved_);
  }

 private:
  Json* field_;
  Json saved_;
};

// The automated check (#25 row 1: 136 of 623 single-field type mutations of a
// shard JSON aborted merge): every field of a shard replaced by a value of each other
// type, or an out-of-range one, merges or is refused naming the file; never an exception.
TEST(MergeTest, EverySingleFieldMutationMergesOrIsRefusedNamingTheFile) {
  Fleet f = MakeFleet();
  std::vector<Json::json_pointer> paths;
  MutationPaths(f.inputs[1].doc, Json::json_pointer(), &paths);
  ASSERT_GT(paths.size(), 100u);
  const Json pristine = f.inputs[1].doc;
  MutationCounts n;
  for (const Json::json_pointer& path : paths) {
    for (const Json& r : kMutations) {
      Mutated mutated(&f.inputs[1].doc[path], r);
      SCOPED_TRACE(path.to_string() + " = " + r.dump());
      MergeOrRefuse(f.inputs, ".json", &n);
    }
  }
  EXPECT_EQ(f.inputs[1].doc, pristine) << "a mutation was not put back";
  EXPECT_GT(n.refused, 0);
  EXPECT_GT(n.merged, 0);
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

// A shard's availability section as `run` writes it, with SET's listed outages
// {start_s, length_s, recovered, fail, unknown}.
Json AvailabilityOf(uint64_t lost, const std::string& first_loss, const std::vector<Json>& longest) {
  Json commands = Json::object();
  double unavailable = 0;
  for (const Json& o : longest) unavailable += o[1].get<double>();
  Json listed = Json::array();
  for (const Json& o : longest) {
    listed.push_back({{"start_s", o[0]}, {"length_s", o[1]}, {"recovered", o[2]}, {"fail", o[3]}, {"unknown", o[4]}});
  }
  commands["SET"] = {{"outages", longest.size()}, {"unavailable_s", unavailable}, {"longest", listed}};
  Json a = {{"connections_lost", lost}, {"reconnects", lost}, {"reconnect_failures", 2 * lost}};
  if (!first_loss.empty()) a["first_loss"] = first_loss;
  a["commands"] = commands;
  a["seconds_without_ok"] = Json::array();
  return a;
}

// Every shard's series: every operation ok, but in shard k's second 1 when `down[k]`
// (none ok, 3 failed).
void SetOutcomes(Fleet* f, const std::vector<bool>& down) {
  for (size_t k = 0; k < f->inputs.size(); ++k) {
    for (const char* label : {"SET", "Total"}) {
      for (Json& p : f->inputs[k].doc["series"][label]) {
        const bool none = down[k] && p["second"] == 1;
        p["ok"] = none ? 0 : p["ops"].get<uint64_t>();
        p["fail"] = none ? 3 : 0;
      }
    }
  }
}

void WithReconnect(Fleet* f) {
  for (MergeInput& in : f->inputs) {
    in.doc["options"]["reconnect"] = {{"backoff_min_ms", 20}, {"backoff_max_ms", 400}, {"max_attempts", 0}};
  }
}

// Each shard's outages, placed on the wall clock by its measured start, are joined where
// they overlap, as one run joins its threads'; losses are summed; the seconds without an
// ok operation are those of the merged series (a second is down when no shard had an ok).
TEST(MergeTest, AvailabilityOutagesOfShardsAreJoinedOnTheWallClock) {
  Fleet f = MakeFleet();
  WithReconnect(&f);
  SetOutcomes(&f, {true, true, true});
  f.inputs[0].doc["availability"] = AvailabilityOf(0, "", {{0.25, 0.5, true, 1, 2}});
  f.inputs[1].doc["availability"] = AvailabilityOf(1, "127.0.0.1:6379: the server closed the connection",
                                                   {{0.625, 0.25, true, 3, 0}});
  // Shard 2 started 0.25 s after the others: its 1.0 s is the fleet's 1.25 s. It ended down.
  f.inputs[2].doc["start_at"]["measured_start_unix_s"] = 1000.2501;
  f.inputs[2].doc["availability"] = AvailabilityOf(2, "x", {{1.0, 0.25, false, 0, 4}});
  auto m = MergeRuns(f.inputs);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const Availability& a = (*m)->result.availability;
  EXPECT_EQ(a.connections_lost, 3u);
  EXPECT_EQ(a.reconnects, 3u);
  EXPECT_EQ(a.reconnect_failures, 6u);
  EXPECT_EQ(a.first_loss, "s1.json: 127.0.0.1:6379: the server closed the connection");
  ASSERT_EQ(a.commands.size(), 1u);
  const CommandAvailability& c = a.commands[0];
  EXPECT_TRUE(c.exact);
  EXPECT_EQ(c.outages, 2u);
  EXPECT_NEAR(c.unavailable_s, 0.625 + 0.25, 1e-9);
  ASSERT_EQ(c.longest.size(), 2u);
  EXPECT_NEAR(c.longest[0].start_s, 0.25, 1e-9);
  EXPECT_NEAR(c.longest[0].length_s, 0.625, 1e-9);
  EXPECT_TRUE(c.longest[0].recovered);
  EXPECT_EQ(c.longest[0].failed, 4u);
  EXPECT_EQ(c.longest[0].unknown, 2u);
  EXPECT_NEAR(c.longest[1].start_s, 1.25, 1e-9);
  EXPECT_FALSE(c.longest[1].recovered);
  EXPECT_EQ(c.longest[1].unknown, 4u);
  // Second 1 had no ok in any shard: 9 failed, and it is the last.
  ASSERT_EQ(a.seconds.size(), 1u);
  EXPECT_EQ(a.seconds[0].first_second, 1);
  EXPECT_EQ(a.seconds[0].failed, 9u);
  EXPECT_FALSE(a.seconds[0].recovered);
  // Written and printed as a run's, --reconnect's options the shards'.
  const Json j = MergedJson(**m);
  EXPECT_EQ(j["options"]["reconnect"]["backoff_max_ms"], 400);
  EXPECT_EQ(j["availability"]["commands"]["SET"]["outages"], 2);
  EXPECT_FALSE(j["availability"]["commands"]["SET"].contains("exact"));
  EXPECT_EQ(j["availability"]["seconds_without_ok"].size(), 1u);
  char* text = nullptr;
  size_t len = 0;
  std::FILE* out = open_memstream(&text, &len);
  PrintMergeReport(out, **m);
  std::fclose(out);
  const std::string printed(text, len);
  std::free(text);
  EXPECT_NE(printed.find("availability: connections lost 3, opened again 3, failed attempts 6"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("SET      2 outage(s) with no ok operation, 0.875 s in all"), std::string::npos) << printed;
}

// A second in which one shard had no ok but another had: the fleet had an ok then.
TEST(MergeTest, AvailabilitySecondsWithoutOkAreTheFleets) {
  Fleet f = MakeFleet();
  WithReconnect(&f);
  SetOutcomes(&f, {true, false, false});
  for (MergeInput& in : f.inputs) in.doc["availability"] = AvailabilityOf(0, "", {});
  f.inputs[0].doc["availability"]["seconds_without_ok"] = Json::array({{{"first_second", 1}, {"seconds", 1}}});
  auto m = MergeRuns(f.inputs);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_TRUE((*m)->result.availability.seconds.empty());
  EXPECT_FALSE((*m)->result.availability.any());
  EXPECT_EQ(MergedJson(**m)["availability"]["connections_lost"], 0);  // --reconnect: written
}

// Without --reconnect a shard writes the section only when it had an outage: one
// without it had none, so the fleet's is the other shards'. None with it: none merged.
TEST(MergeTest, AShardWithoutAvailabilityHadNoOutage) {
  Fleet f = MakeFleet();
  SetOutcomes(&f, {false, false, false});
  EXPECT_FALSE(MergedJson(**MergeRuns(f.inputs)).contains("availability"));
  f.inputs[1].doc["availability"] = AvailabilityOf(0, "", {{0.5, 0.125, true, 7, 0}});
  auto m = MergeRuns(f.inputs);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const CommandAvailability& c = (*m)->result.availability.commands.at(0);
  EXPECT_EQ(c.outages, 1u);
  EXPECT_TRUE(c.exact);
  EXPECT_EQ(c.longest.at(0).failed, 7u);
  const Json j = MergedJson(**m);
  EXPECT_TRUE(j["options"]["reconnect"].is_null());
  EXPECT_EQ(j["availability"]["commands"]["SET"]["unavailable_s"], 0.125);
}

// A shard lists only its 10 longest outages: where its others fell is not in its JSON,
// so the fleet's count and time are upper bounds (its unlisted ones as if apart from
// every other shard's), said as such.
TEST(MergeTest, AShardThatListedOnlyItsLongestMakesUpperBounds) {
  Fleet f = MakeFleet();
  WithReconnect(&f);
  SetOutcomes(&f, {false, false, false});
  std::vector<Json> ten;
  for (int i = 0; i < 10; ++i) ten.push_back({i * 0.125, 0.0625, true, 1, 0});
  f.inputs[0].doc["availability"] = AvailabilityOf(0, "", ten);
  f.inputs[0].doc["availability"]["commands"]["SET"]["outages"] = 14;
  f.inputs[0].doc["availability"]["commands"]["SET"]["unavailable_s"] = 0.625 + 0.125;
  f.inputs[1].doc["availability"] = AvailabilityOf(0, "", {{0.03125, 0.0625, true, 1, 0}});  // overlaps the first
  f.inputs[2].doc["availability"] = AvailabilityOf(0, "", {});
  auto m = MergeRuns(f.inputs);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const CommandAvailability& c = (*m)->result.availability.commands.at(0);
  EXPECT_FALSE(c.exact);
  EXPECT_EQ(c.outages, 10u + 4u);
  EXPECT_NEAR(c.unavailable_s, 0.625 + 0.03125 + 0.125, 1e-9);
  const Json j = MergedJson(**m);
  EXPECT_EQ(j["availability"]["commands"]["SET"]["exact"], false);
  char* text = nullptr;
  size_t len = 0;
  std::FILE* out = open_memstream(&text, &len);
  PrintMergeReport(out, **m);
  std::fclose(out);
  const std::string printed(text, len);
  std::free(text);
  EXPECT_NE(printed.find("at most 14 outage(s) with no ok operation, at most 0.781 s in all; longest listed"),
            std::string::npos)
      << printed;
}

TEST(MergeTest, BadAvailabilityIsRefusedNamingTheFileAndTheField) {
  Fleet f = MakeFleet();
  WithReconnect(&f);
  for (MergeInput& in : f.inputs) in.doc["availability"] = AvailabilityOf(1, "x", {{0.5, 0.25, true, 1, 0}});
  ASSERT_TRUE(MergeRuns(f.inputs).ok());
  auto type = f.inputs;
  type[1].doc["availability"]["commands"]["SET"]["outages"] = "2";
  ExpectRefused(type, "s1.json: field availability.commands.SET.outages: a string, expected a whole number >= 0");
  auto span = f.inputs;
  span[2].doc["availability"]["commands"]["SET"]["longest"][0]["recovered"] = 1;
  ExpectRefused(span, "s2.json: field availability.commands.SET.longest[0].recovered: a whole number, expected true or false");
  auto negative = f.inputs;
  negative[0].doc["availability"]["commands"]["SET"]["longest"][0]["length_s"] = -0.5;
  ExpectRefused(negative, "s0.json: field availability.commands.SET.longest[0].length_s: -0.5 is negative");
  auto more = f.inputs;
  more[1].doc["availability"]["commands"]["SET"]["outages"] = 0;
  ExpectRefused(more, "s1.json: field availability.commands.SET.longest: 1 outages listed, more than its outages (0)");
  auto label = f.inputs;
  label[1].doc["availability"]["commands"]["GET"] = label[1].doc["availability"]["commands"]["SET"];
  ExpectRefused(label, "s1.json: field availability.commands.GET: no command of options.commands has this label");
  auto lost = f.inputs;
  lost[0].doc["availability"]["connections_lost"] = -1;
  ExpectRefused(lost, "s0.json: field availability.connections_lost");
  auto section = f.inputs;
  section[0].doc["availability"] = Json::array();
  ExpectRefused(section, "s0.json: field availability: an array, expected an object");
  auto reconnect = f.inputs;
  for (MergeInput& in : reconnect) in.doc["options"]["reconnect"]["backoff_min_ms"] = "20ms";
  ExpectRefused(reconnect, "s0.json: field options.reconnect.backoff_min_ms: a string");
  auto not_object = f.inputs;
  for (MergeInput& in : not_object) in.doc["options"]["reconnect"] = true;
  ExpectRefused(not_object, "s0.json: field options.reconnect: a boolean, expected an object or null");
}

// EverySingleFieldMutation..., over the availability section and --reconnect's options.
TEST(MergeTest, EveryAvailabilityFieldMutationMergesOrIsRefusedNamingTheFile) {
  Fleet f = MakeFleet();
  WithReconnect(&f);
  for (MergeInput& in : f.inputs) {
    in.doc["availability"] = AvailabilityOf(1, "x", {{0.5, 0.25, true, 1, 0}, {0.875, 0.0625, false, 0, 2}});
  }
  std::vector<Json::json_pointer> paths;
  MutationPaths(f.inputs[1].doc["availability"], Json::json_pointer("/availability"), &paths);
  MutationPaths(f.inputs[1].doc["options"]["reconnect"], Json::json_pointer("/options/reconnect"), &paths);
  const std::vector<MergeInput> pristine = f.inputs;
  MutationCounts n;
  for (const Json::json_pointer& path : paths) {
    for (const Json& r : kMutations) {
      std::vector<Mutated> mutated;
      mutated.reserve(f.inputs.size());
      for (MergeInput& in : f.inputs) {  // the options of every shard (else: another workload)
        if (path.to_string().rfind("/options", 0) == 0 || &in == &f.inputs[1]) {
          mutated.emplace_back(&in.doc[path], r);
        }
      }
      SCOPED_TRACE(path.to_string() + " = " + r.dump());
      MergeOrRefuse(f.inputs, ".json: ", &n);
    }
  }
  for (size_t i = 0; i < f.inputs.size(); ++i) {
    EXPECT_EQ(f.inputs[i].doc, pristine[i].doc) << "a mutation was not put back";
  }
  EXPECT_GT(n.refused, 0);
  EXPECT_GT(n.merged, 0);
}

}  // namespace
}  // namespace memstand
