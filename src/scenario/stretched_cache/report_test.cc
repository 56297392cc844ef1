// stretched-cache's instrument check on block (d) (kMaxOneChunkPercent), from fabricated
// runs: a cell whose serializing relay read too many of the sequential client's SET
// propagations and GETACKs as one chunk prints no figure, fails the report, and is left
// out of the JSON's figures, the ranges over the runs and the chart.
#include <algorithm>

#include <gtest/gtest.h>

#include "report/report_input.h"
#include "report/report_section.h"
#include "scenario/stretched_cache/figures.h"
#include "scenario/stretched_cache/report.h"
#include "scenario/stretched_cache/stretched_cache.h"

namespace memstand {
namespace {

using nlohmann::json;

constexpr int64_t kValidityOneWay = 20'000'000;
constexpr int kValidityOps = 100;

// A (d) series of kValidityOps operations at kValidityOneWay, each taking `ns`; the first
// `one_chunk` of them read by the relay as one chunk primary -> replica, the others as two.
Series ValiditySeries(const char* relay, ClientMode mode, int64_t ns, int one_chunk) {
  Series s;
  s.block = "d";
  s.condition = DistanceText(kValidityOneWay) + " " + relay;
  s.mode = mode;
  s.one_way_ns = kValidityOneWay;
  s.relay_mode = relay;
  for (int i = 1; i <= kValidityOps; ++i) {
    OpSample o;
    o.index = o.position = i;
    o.ns = ns;
    o.wait = 1;
    o.repl.back.chunks = i <= one_chunk ? 1 : 2;
    o.repl.forward.chunks = 1;
    s.samples.push_back(o);
  }
  return s;
}

// Block (d) at one distance: the serializing relay adds one one-way delay to the
// sequential client (60.1 against 40.1 ms) and none to the pipelined one, whose
// operations are all one chunk.
StretchedRun ValidityRun(int run, int sequential_one_chunk) {
  StretchedRun r;
  r.run = run;
  r.series.push_back(ValiditySeries("pipelined", ClientMode::kSequential, 40'100'000, 0));
  r.series.push_back(ValiditySeries("serializing", ClientMode::kSequential, 60'100'000, sequential_one_chunk));
  r.series.push_back(ValiditySeries("pipelined", ClientMode::kPipelined, 40'050'000, kValidityOps));
  r.series.push_back(ValiditySeries("serializing", ClientMode::kPipelined, 40'050'000, kValidityOps));
  return r;
}

ScenarioReport ValidityReport(const std::vector<StretchedRun>& runs) {
  StretchedCacheOptions o;
  o.ops = kValidityOps;
  o.distances_ns = {kValidityOneWay};
  ScenarioReport report;
  report.scenario = "stretched-cache";
  report.runs_made = static_cast<int>(runs.size());
  FillStretchedReport(o, runs, false, &report);
  return report;
}

std::string ValidityBlock(const ScenarioReport& report, const std::string& prefix) {
  for (const auto& [title, body] : report.blocks) {
    if (title.starts_with(prefix)) return body;
  }
  ADD_FAILURE() << "no block " << prefix;
  return "";
}

const json& ValidityDifference(const ScenarioReport& report, const char* client) {
  for (const json& d : report.json["mode_differences"]) {
    if (d["client"] == client) return d;
  }
  static const json kNone;
  ADD_FAILURE() << "no mode difference of the " << client << " client";
  return kNone;
}

TEST(StretchedValidityTest, FivePercentIsTheMostOneChunkOperationsThatKeepACellValid) {
  EXPECT_TRUE(OneChunkWithinLimit(0, 100));
  EXPECT_TRUE(OneChunkWithinLimit(5, 100));
  EXPECT_FALSE(OneChunkWithinLimit(6, 100));
  EXPECT_TRUE(OneChunkWithinLimit(1, 20));
  EXPECT_FALSE(OneChunkWithinLimit(2, 20));
  EXPECT_EQ(kMaxOneChunkPercent, 5);
}

TEST(StretchedValidityTest, FiveOfAHundredInOneChunkKeepTheFigure) {
  const ScenarioReport report = ValidityReport({ValidityRun(1, 5)});
  EXPECT_EQ(report.verdict, ScenarioVerdict::kOk);
  const std::string d = ValidityBlock(report, "(d)");
  EXPECT_NE(d.find("serializing - pipelined, sequential client: +20.000 ms = 1.00 one-way delays\n"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("serializing relay, sequential client: 5 of 100 operations had SET's propagation and its GETACK "
                   "read as one chunk"),
            std::string::npos)
      << d;
  EXPECT_EQ(d.find("not valid"), std::string::npos) << d;
  const json& seq = ValidityDifference(report, "sequential");
  EXPECT_EQ(seq["valid"], true);
  EXPECT_DOUBLE_EQ(seq["serializing_minus_pipelined_ns"].get<double>(), 20'000'000);
  EXPECT_DOUBLE_EQ(seq["in_one_way"].get<double>(), 1.0);
  EXPECT_EQ(seq["serializing_one_chunk_ops"], 5);
  EXPECT_FALSE(seq.contains("not_valid"));
  for (const json& c : report.json["cells"]) EXPECT_EQ(c["valid"], true) << c.dump();
}

TEST(StretchedValidityTest, SixOfAHundredInOneChunkPrintNoFigureAndFailTheReport) {
  const ScenarioReport report = ValidityReport({ValidityRun(1, 6)});
  EXPECT_EQ(report.verdict, ScenarioVerdict::kFailed);
  EXPECT_EQ(report.ExitCode(), kScenarioExitFailed);
  const std::string reason =
      "6 of 100 operations (6.0%) had SET's propagation and its GETACK read as one chunk, above 5%: the relay "
      "could not keep them apart";
  ASSERT_EQ(report.verdict_lines.size(), 1u);
  EXPECT_EQ(report.verdict_lines[0], "run 1, one-way 20ms: serializing - pipelined, sequential client not valid: "
                                     "the serializing relay's " + reason);
  const std::string d = ValidityBlock(report, "(d)");
  EXPECT_NE(d.find("serializing - pipelined, sequential client: not valid: " + reason + "; no figure\n"),
            std::string::npos)
      << d;
  EXPECT_EQ(d.find("sequential client: +"), std::string::npos) << d;
  EXPECT_EQ(d.find("one-way delays\n      serializing relay"), std::string::npos) << d;
  // The pipelined client's difference does not depend on the check: it stands.
  EXPECT_NE(d.find("serializing - pipelined, pipelined client: +0.000 ms = 0.00 one-way delays"), std::string::npos)
      << d;
  const json& seq = ValidityDifference(report, "sequential");
  EXPECT_EQ(seq["valid"], false);
  EXPECT_TRUE(seq["serializing_minus_pipelined_ns"].is_null()) << seq.dump();
  EXPECT_TRUE(seq["in_one_way"].is_null()) << seq.dump();
  EXPECT_EQ(seq["not_valid"], reason);
  EXPECT_EQ(seq["serializing_one_chunk_ops"], 6);
  EXPECT_EQ(seq["serializing_ops"], 100);
  const json& pip = ValidityDifference(report, "pipelined");
  EXPECT_EQ(pip["valid"], true);
  EXPECT_DOUBLE_EQ(pip["serializing_minus_pipelined_ns"].get<double>(), 0);
  // Of the cells, only the serializing relay's sequential one is not valid.
  for (const json& c : report.json["cells"]) {
    EXPECT_EQ(c["valid"], !(c["relay_mode"] == "serializing" && c["client"] == "sequential")) << c.dump();
  }
}

TEST(StretchedValidityTest, TheRangesLeaveOutTheRunsWhoseCellIsNotValid) {
  const ScenarioReport report = ValidityReport({ValidityRun(1, 0), ValidityRun(2, 40), ValidityRun(3, 2)});
  EXPECT_EQ(report.verdict, ScenarioVerdict::kFailed);
  ASSERT_EQ(report.verdict_lines.size(), 1u);
  EXPECT_TRUE(report.verdict_lines[0].starts_with("run 2, one-way 20ms:")) << report.verdict_lines[0];
  const std::string ranges = ValidityBlock(report, "Ranges over the runs");
  const size_t at = ranges.find("(d) 20ms serializing - pipelined, sequential");
  ASSERT_NE(at, std::string::npos) << ranges;
  const std::string row = ranges.substr(at, ranges.find('\n', at) - at);
  EXPECT_NE(row.find("N=2"), std::string::npos) << row;
  EXPECT_NE(row.find("; 1 run(s) not valid, left out"), std::string::npos) << row;
  EXPECT_EQ(ValidityReport({ValidityRun(1, 30), ValidityRun(2, 40)}).verdict_lines.size(), 2u);
  const std::string none = ValidityBlock(ValidityReport({ValidityRun(1, 30), ValidityRun(2, 40)}), "Ranges");
  EXPECT_NE(none.find("no figure: 2 run(s) not valid, left out"), std::string::npos) << none;
}

TEST(StretchedValidityTest, TheChartDrawsNoCellThatIsNotValid) {
  ScenarioReport report = ValidityReport({ValidityRun(1, 6)});
  ReportInput in;
  in.doc = report.json;
  ReportSection section;
  StretchedCacheCharts(in, &section);
  ASSERT_EQ(section.charts.size(), 1u);
  const std::vector<std::string>& names = section.charts[0].series;
  EXPECT_EQ(std::count(names.begin(), names.end(), "serializing relay, sequential client"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "pipelined relay, sequential client"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "serializing relay, pipelined client"), 1);
}

}  // namespace
}  // namespace memstand
