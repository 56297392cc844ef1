// compare on crafted run documents: within the spread, outside it (with and without
// overlap), no verdict under N=3, mismatched workloads and platforms, failed runs left
// out, and documents compare refuses.
#include "report/compare.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace memstand {
namespace {

using nlohmann::json;

json RunDoc(double ops, double p99, int exit_code = 0, int pipeline = 1) {
  return {{"schema", "memstand.run"},
          {"version", 1},
          {"memstand_version", "0.1.0"},
          {"exit_code", exit_code},
          {"verdict", exit_code == 0 ? "OK" : "FAILED: lost the connection"},
          {"options", {{"threads", 1}, {"pipeline", pipeline}, {"commands", {{{"name", "GET"}}}}, {"seed", 7}}},
          {"platform", {{"kernel", "6.1"}, {"cpus", 2}}},
          {"server", {{"protocol", "resp"}, {"version", "7.0.15"}, {"cpu_us_per_request", 3.0}}},
          {"client", {{"cpu_us_per_request", 2.0}}},
          {"commands",
           {{{"command", "GET"},
             {"ops_per_sec", ops},
             {"latency", {{"mean_us", 30.0}, {"max_us", 900.0}, {"percentiles_us", {{"99.9", 200.0}, {"99", p99}, {"50", 28.0}}}}}}}},
          {"totals", {{"command", "Total"}, {"ops_per_sec", ops}, {"latency", {{"mean_us", 30.0}}}}}};
}

json Series(const std::vector<json>& runs) {
  json doc = {{"schema", "memstand.run"}, {"version", 1}, {"memstand_version", "0.1.0"}, {"runs", json::array()}};
  for (size_t i = 0; i < runs.size(); ++i) {
    json r = runs[i];
    r["run"] = i + 1;
    doc["runs"].push_back(r);
  }
  return doc;
}

CompareSide Side(const std::string& name, const json& doc) {
  auto s = ReadCompareSide(name, doc);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : CompareSide{};
}

const FigureComparison& Find(const Comparison& c, const std::string& row, const std::string& key) {
  for (const FigureComparison& f : c.figures) {
    if (f.row == row && f.key == key) return f;
  }
  static const FigureComparison kNone;
  ADD_FAILURE() << "no figure " << row << " " << key;
  return kNone;
}

TEST(CompareTest, FiguresOfARunDocumentInTheSummarysNames) {
  const RunFigures f = FiguresOfRunJson(RunDoc(1000, 80));
  std::vector<std::string> keys;
  for (const Figure& x : f.figures) keys.push_back(x.row + " " + x.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"GET ops_per_sec", "GET mean_us", "GET p50_us", "GET p99_us",
                                            "GET p99.9_us", "GET max_us", "Total ops_per_sec", "Total mean_us",
                                            "client cpu_us_per_request", "server cpu_us_per_request"}));
}

TEST(CompareTest, WithinTheSpreadOfThreeRunsIsNoDifference) {
  const Comparison c = Compare(Side("a", Series({RunDoc(1000, 80), RunDoc(1100, 90), RunDoc(1200, 100)})),
                               Side("b", Series({RunDoc(1050, 85), RunDoc(1150, 95), RunDoc(1250, 99)})));
  const FigureComparison& ops = Find(c, "GET", "ops_per_sec");
  EXPECT_EQ(ops.a.n, 3);
  EXPECT_EQ(ops.b.median, 1150);
  EXPECT_DOUBLE_EQ(ops.ratio, 1150.0 / 1100.0);
  EXPECT_EQ(ops.reading, CompareReading::kWithin);
  EXPECT_EQ(ops.text, "within the spread of 3 runs of A");
  EXPECT_TRUE(c.warnings.empty()) << c.warnings[0];
}

TEST(CompareTest, OutsideAsRangeWithAndWithoutOverlap) {
  const Comparison c = Compare(Side("a", Series({RunDoc(1000, 80), RunDoc(1100, 90), RunDoc(1200, 100)})),
                               Side("b", Series({RunDoc(1300, 50), RunDoc(1400, 95), RunDoc(1500, 60)})));
  const FigureComparison& ops = Find(c, "GET", "ops_per_sec");
  EXPECT_EQ(ops.reading, CompareReading::kOutside);
  EXPECT_TRUE(ops.higher);
  EXPECT_EQ(ops.text, "B higher (better): all 3 runs outside A's range");
  // p99: B's median 60 is below A's min 80, but B's 95 lies inside A's range.
  const FigureComparison& p99 = Find(c, "GET", "p99_us");
  EXPECT_EQ(p99.reading, CompareReading::kOutsideOverlap);
  EXPECT_EQ(p99.text, "B's median lower (better) outside A's range; the ranges overlap");
}

TEST(CompareTest, SingleRunsGetARatioAndNoVerdict) {
  const Comparison c = Compare(Side("a", RunDoc(1000, 80)), Side("b", RunDoc(2000, 40)));
  const FigureComparison& ops = Find(c, "GET", "ops_per_sec");
  EXPECT_DOUBLE_EQ(ops.ratio, 2.0);
  EXPECT_EQ(ops.reading, CompareReading::kNoVerdict);
  EXPECT_EQ(ops.text, "no verdict: N=1 and N=1 (at least 3 runs each)");
  const std::string text = CompareText(c);
  EXPECT_NE(text.find("2.000x"), std::string::npos) << text;
  const auto j = CompareJson(c);
  EXPECT_EQ(j["schema"], "memstand.compare");
  EXPECT_EQ(j["figures"][0]["reading"], "no_verdict");
}

TEST(CompareTest, MismatchedWorkloadsPlatformsAndVersionsAreWarnings) {
  json b = RunDoc(1000, 80, 0, 16);
  b["platform"]["cpus"] = 8;
  b["server"]["version"] = "7.2.4";
  b["options"]["seed"] = 99;  // another seed is the same workload
  const Comparison c = Compare(Side("a", RunDoc(1000, 80)), Side("b", b));
  ASSERT_EQ(c.warnings.size(), 3u);
  EXPECT_EQ(c.warnings[0], "the workloads differ: pipeline 1 (A) vs 16 (B)");
  EXPECT_EQ(c.warnings[1], "the platforms differ: cpus 2 (A) vs 8 (B)");
  EXPECT_EQ(c.warnings[2], "the server versions differ: 7.0.15 (A) vs 7.2.4 (B)");
}

// A report from before --schedule (no "schedule" in its open loop's options) ran one
// schedule per connection: the same workload as "per-connection", not as "per-thread".
TEST(CompareTest, AnOpenLoopWithoutAScheduleRanPerConnection) {
  json old = RunDoc(1000, 80);
  old["options"]["loop"] = "open";
  json now = old;
  now["options"]["schedule"] = "per-connection";
  EXPECT_TRUE(Compare(Side("a", old), Side("b", now)).warnings.empty());
  now["options"]["schedule"] = "per-thread";
  const Comparison c = Compare(Side("a", old), Side("b", now));
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0], "the workloads differ: schedule per-connection (A) vs per-thread (B)");
}

TEST(CompareTest, FailedRunsAreLeftOutAndCounted) {
  const CompareSide a = Side("a", Series({RunDoc(1000, 80), RunDoc(5, 9000, 1), RunDoc(1100, 90), RunDoc(1200, 95)}));
  EXPECT_EQ(a.runs, 4);
  EXPECT_EQ(a.ok, 3);
  ASSERT_EQ(a.not_ok.size(), 1u);
  EXPECT_EQ(a.not_ok[0], "run 2: FAILED: lost the connection");
  const Comparison c = Compare(a, Side("b", Series({RunDoc(1000, 80), RunDoc(1100, 90), RunDoc(1200, 95)})));
  EXPECT_EQ(Find(c, "GET", "ops_per_sec").a.min, 1000);
  ASSERT_FALSE(c.warnings.empty());
  EXPECT_EQ(c.warnings.back(), "a: 1 of 4 runs did not end OK and are left out");
}

TEST(CompareTest, DocumentsCompareRefuses) {
  const std::pair<json, std::string> cases[] = {
      {json::array(), "f: not a JSON object"},
      {json{{"x", 1}}, "f: not a memstand run document (no \"schema\")"},
      {json{{"schema", "memstand.sweep"}, {"version", 1}}, "f: schema 'memstand.sweep': compare takes memstand.run"},
      {json{{"schema", "memstand.run"}, {"version", 2}}, "f: memstand.run version 2: this memstand reads version 1"},
      {json{{"schema", "memstand.run"}, {"version", 1}, {"runs", 3}}, "f: \"runs\" is not an array"},
      {RunDoc(1, 1, 1), "f: no run ended OK (FAILED: lost the connection): failed runs are never compared"},
      {json{{"schema", "memstand.run"}, {"version", 1}, {"exit_code", 0}}, "f: run 1 carries no figures"},
  };
  for (const auto& [doc, what] : cases) {
    auto s = ReadCompareSide("f", doc);
    ASSERT_FALSE(s.ok()) << what;
    EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(s.status().message().rfind(what, 0), 0u) << s.status().message();
  }
}

}  // namespace
}  // namespace memstand
