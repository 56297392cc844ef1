// partition's JSON contract (json.h), without servers: a report filled from fabricated
// cells, its JSON read back by its charts (two per cell, each with data) and its
// choice-map rows (each measured here); a lost write is a finding (exit 4) with its
// evidence; a cell whose old primary did not settle fails the run.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "scenario/partition/cell.h"
#include "scenario/partition/partition.h"
#include "scenario_contract_util.h"

namespace memstand {
namespace {

PartitionCell FabricatedCell(const std::string& side, int min_replicas, uint64_t lost) {
  PartitionCell c;
  c.side = side;
  c.min_replicas = min_replicas;
  c.version = "7.0.15";
  c.old_primary = "primary";
  c.old_primary_address = "127.0.0.1:40001";
  c.new_primary = "replica-1";
  c.cut_s = 3;
  c.heal_s = 11;
  c.promote_s = 5.2;
  c.demote_s = 19.5;
  c.old_primary_writes_ok = lost * 2;
  c.writes_ok_after_cut = 3000;
  c.seconds = {{100, 0, 0, 50, 1'000'000, 2'000'000, 3'000'000}, {100, 0, 0, 50, 1'000'000, 2'000'000, 3'000'000},
               {0, 10, 90, 0, -1, -1, -1}};
  history::CheckResult lw;
  lw.check = "lost-writes";
  for (uint64_t k = 0; k < lost; ++k) {
    lw.verdict = history::Verdict::kViolated;
    lw.Add({"lost", true, k, fmt::format("partition-{}: 1 acknowledged write(s) are gone", k), {}});
  }
  history::CheckResult lin;
  lin.check = "linearizable";
  c.checks = {lw, lin};
  return c;
}

TEST(PartitionContractTest, ItsJsonFeedsEveryChartAndEveryChoiceRow) {
  const std::vector<PartitionCell> cells = {FabricatedCell("with-primary", 0, 0), FabricatedCell("with-primary", 1, 0),
                                            FabricatedCell("with-majority", 0, 0)};
  ScenarioReport report;
  report.scenario = "partition";
  report.runs_made = 1;
  FillPartitionReport(PartitionOptions{}, cells, false, &report);
  ASSERT_EQ(report.verdict, ScenarioVerdict::kOk) << ::testing::PrintToString(report.verdict_lines);
  EXPECT_EQ(report.ExitCode(), 0);
  const ReportInput in = testutil::ContractInput(report, false);
  testutil::ExpectEveryChartHasData(PartitionCharts, in, 6);  // two per cell
  testutil::ExpectEveryRowMeasured(in, PartitionChoiceRows());
  EXPECT_TRUE(report.json["cells"][0]["seconds"][2]["p50_ms"].is_null());
  EXPECT_EQ(report.json["cells"][0]["seconds"][0]["p99_ms"], 2.0);
}

// Lost acknowledged writes: a finding with the contract beside it (exit 4), the count
// of every one, the first as evidence, and a verdict line saying what they were.
TEST(PartitionContractTest, LostWritesAreAFindingWithTheirEvidence) {
  ScenarioReport report;
  report.scenario = "partition";
  FillPartitionReport(PartitionOptions{}, {FabricatedCell("with-primary", 0, 120)}, false, &report);
  EXPECT_EQ(report.verdict, ScenarioVerdict::kFinding);
  EXPECT_EQ(report.ExitCode(), 4);
  ASSERT_EQ(report.anomalies.size(), 1u);
  EXPECT_EQ(report.anomalies[0].kind, "lost");
  EXPECT_EQ(report.anomalies[0].count, 120u);
  EXPECT_EQ(report.json["cells"][0]["lost"], 120);
  EXPECT_EQ(report.json["cells"][0]["old_primary_writes_ok"], 240);
  bool said = false;
  for (const std::string& l : report.verdict_lines) {
    said |= l.find("120 acknowledged write(s) lost; the old primary acknowledged 240") != std::string::npos;
  }
  EXPECT_TRUE(said) << ::testing::PrintToString(report.verdict_lines);

  PartitionCell unsettled = FabricatedCell("with-majority", 0, 0);
  unsettled.settled = "not settled within 20 s: primary role master";
  FillPartitionReport(PartitionOptions{}, {unsettled}, false, &report);
  EXPECT_EQ(report.verdict, ScenarioVerdict::kFailed);
  EXPECT_EQ(report.ExitCode(), 1);
}

TEST(PartitionOptionsTest, BadOptionsAreRefusedNamingTheFlag) {
  auto refused = [](auto change, const std::string& part) {
    PartitionOptions o;
    change(o);
    const Status s = ValidatePartition(o);
    EXPECT_FALSE(s.ok()) << part;
    EXPECT_NE(s.message().find(part), std::string::npos) << s.message();
  };
  EXPECT_TRUE(ValidatePartition(PartitionOptions{}).ok());
  refused([](PartitionOptions& o) { o.sides = {"both"}; }, "--sides: 'both' is not a side");
  refused([](PartitionOptions& o) { o.sides = {"with-primary", "with-primary"}; }, "given twice");
  refused([](PartitionOptions& o) { o.min_replicas = {3}; }, "--min-replicas-to-write: each 0, 1 or 2");
  refused([](PartitionOptions& o) { o.link_fault = "drop"; }, "--link-fault: 'drop'");
  refused([](PartitionOptions& o) { o.partition_s = 30; }, "--cut-at, --partition");
  refused([](PartitionOptions& o) { o.fault = "blackhole replicas at 3s"; }, "no node or link 'replicas'");
  refused([](PartitionOptions& o) { o.fault = "kill primary at 30s"; }, "past --duration");
  refused([](PartitionOptions& o) { o.rate = 0; }, "--rate");
  PartitionOptions custom;
  custom.fault = "blackhole peers at 3s; kill replica-2 at 4s; heal peers at 9s; restart replica-2 at 10s";
  EXPECT_TRUE(ValidatePartition(custom).ok()) << ValidatePartition(custom).message();
}

}  // namespace
}  // namespace memstand
