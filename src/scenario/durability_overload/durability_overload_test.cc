#include "scenario/durability_overload/durability_overload.h"

#include <gtest/gtest.h>

#include "scenario/durability_overload/report.h"

namespace memstand {
namespace {

TEST(DurabilityOverloadFlagsTest, SizesParseWithUnitsInOrder) {
  auto s = ParseSizeList("100,10k,256k");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(*s, (std::vector<uint64_t>{100, 10240, 262144}));
  auto one = ParseSizeList("1MiB");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, std::vector<uint64_t>{1 << 20});
}

TEST(DurabilityOverloadFlagsTest, SizesRejectEmptyRepeatedTooLargeAndJunk) {
  for (const char* bad : {"", "100,", ",100", "100,,10k", "100,100", "1k,1024", "65MiB", "abc", "0"}) {
    auto s = ParseSizeList(bad);
    EXPECT_FALSE(s.ok()) << bad;
    if (!s.ok()) {
      EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument) << bad;
      EXPECT_NE(s.status().message().find("--sizes"), std::string::npos) << s.status().message();
    }
  }
}

TEST(DurabilityOverloadFlagsTest, PayloadsAndFsyncModesAreClosedLists) {
  auto p = ParsePayloadList("compressible,random,pattern");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, (std::vector<std::string>{"compressible", "random", "pattern"}));
  auto f = ParseFsyncList("everysec,always,no");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->size(), 3u);
  for (const char* bad : {"constant", "random,random", "", "random,", "pattern,pattern"}) {
    EXPECT_FALSE(ParsePayloadList(bad).ok()) << bad;
  }
  for (const char* bad : {"sometimes", "always,always", "", "everysec,,no", "none"}) {
    auto r = ParseFsyncList(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("--fsync"), std::string::npos);
    }
  }
  auto unknown = ParseFsyncList("sometimes");
  EXPECT_NE(unknown.status().message().find("known: always, everysec, no"), std::string::npos);
}

TEST(DurabilityOverloadFlagsTest, KeysBoundTheDataPerSize) {
  const uint64_t budget = uint64_t{64} << 20;
  EXPECT_EQ(DurabilityKeys(100, budget), 20000u);
  EXPECT_EQ(DurabilityKeys(10240, budget), 6553u);
  EXPECT_EQ(DurabilityKeys(262144, budget), 256u);
  EXPECT_EQ(DurabilityKeys(uint64_t{1} << 30, budget), 1u);
}

TEST(DurabilityOverloadFlagsTest, PlannedSecondsCountEveryCell) {
  DurabilityOverloadOptions o;  // 2 modes, 3 sizes, 2 payloads, GETs, legacy, 2 s
  EXPECT_DOUBLE_EQ(PlannedCellSeconds(o, 3), 3 * 2 * (3 * 3) * 2.0 + 2.0);
  o.gets = false;
  o.legacy = false;
  o.fsync = {"everysec", "always"};
  EXPECT_DOUBLE_EQ(PlannedCellSeconds(o, 1), 1 * 3 * (3 * 2) * 2.0);
}

TEST(DurabilityOverloadFlagsTest, ValidateNamesTheFlag) {
  DurabilityOverloadOptions o;
  EXPECT_TRUE(ValidateDurabilityOverload(o).ok());
  o.masters = 2;
  EXPECT_NE(ValidateDurabilityOverload(o).message().find("--masters"), std::string::npos);
  o = {};
  o.replicas = 4;
  EXPECT_NE(ValidateDurabilityOverload(o).message().find("--replicas"), std::string::npos);
  o.replicas = -1;
  EXPECT_NE(ValidateDurabilityOverload(o).message().find("--replicas"), std::string::npos);
  o.replicas = 3;
  EXPECT_TRUE(ValidateDurabilityOverload(o).ok());
  o = {};
  o.cell_duration_s = 0.01;
  EXPECT_NE(ValidateDurabilityOverload(o).message().find("--cell-duration"), std::string::npos);
  o = {};
  o.node_timeout_ms = 10;
  EXPECT_NE(ValidateDurabilityOverload(o).message().find("--node-timeout"), std::string::npos);
  o = {};
  o.probe_bytes = 1000;
  EXPECT_NE(ValidateDurabilityOverload(o).message().find("--probe-size"), std::string::npos);
  o = {};
  o.threads = 5;  // more than the 4 clients
  EXPECT_NE(ValidateDurabilityOverload(o).message().find("--threads"), std::string::npos);
  o = {};
  o.compress_ratio = 0.5;
  EXPECT_NE(ValidateDurabilityOverload(o).message().find("--compress-ratio"), std::string::npos);
  o = {};
  o.keys = 200'000'000;
  EXPECT_NE(ValidateDurabilityOverload(o).message().find("--keys"), std::string::npos);
}

StoragePass Pass(const char* content, uint64_t bytes, double seconds) {
  StoragePass p;
  p.content = content;
  p.bytes = bytes;
  p.seconds = seconds;
  return p;
}

TEST(DurabilityOverloadReportTest, TheProbeSaysCompressesOnlyAboveOneAndAHalf) {
  StorageProbeResult r;
  r.passes = {Pass("random", 100, 1), Pass("repeated", 100, 1), Pass("repeated", 100, 1), Pass("random", 100, 1)};
  EXPECT_DOUBLE_EQ(r.BytesPerSecond("random"), 100);
  EXPECT_FALSE(StorageCompresses(r));
  r.passes[1].seconds = r.passes[2].seconds = 0.5;  // repeated 2x as fast
  EXPECT_DOUBLE_EQ(r.BytesPerSecond("repeated"), 200);
  EXPECT_TRUE(StorageCompresses(r));
}

CellResult Cell(const std::string& mode, uint64_t size, int run, double ops_per_s, bool errors) {
  CellResult c;
  c.plan.mode = mode;
  c.plan.op = "SET";
  c.plan.size = size;
  c.plan.payload = "random";
  c.plan.run = run;
  c.plan.aof = mode != "none";
  c.ran = true;
  c.seconds = 1;
  c.ops = c.ok_replies = static_cast<uint64_t>(ops_per_s);
  c.ops_per_s = ops_per_s;
  c.write_bytes = c.plan.aof ? static_cast<int64_t>(c.ops * size * 2) : 0;
  if (errors) {
    c.errors["CLUSTERDOWN"] = 7;
    c.error_replies = 7;
  }
  if (c.plan.aof) {
    c.invariant = MakeAtLeastInvariant("bytes written to storage", c.write_bytes, "successful SETs x value size",
                                       static_cast<int64_t>(c.ok_replies * size));
  }
  return c;
}

TEST(DurabilityOverloadReportTest, ACellWithErrorsCountsItsRunsAndFailsTheVerdict) {
  DurabilityOverloadOptions o;
  o.legacy = false;
  DurabilityMeasured m;
  m.modes = {"none", "aof-everysec"};
  for (int run = 1; run <= 3; ++run) {
    m.cells.push_back(Cell("none", 100, run, 1000, false));
    m.cells.push_back(Cell("aof-everysec", 100, run, 500, run != 2));
  }
  ScenarioReport report;
  FillDurabilityReport(o, m, &report);
  EXPECT_EQ(report.verdict, ScenarioVerdict::kFailed);
  ASSERT_FALSE(report.verdict_lines.empty());
  EXPECT_NE(report.verdict_lines[0].find("errors in 2 of 3 runs (CLUSTERDOWN 14)"), std::string::npos)
      << report.verdict_lines[0];
  ASSERT_EQ(report.json["durability_price"].size(), 1u);
  EXPECT_DOUBLE_EQ(report.json["durability_price"][0]["ratio"].get<double>(), 0.5);
  EXPECT_EQ(report.json["durability_price"][0]["n"], 3);
  EXPECT_EQ(report.json["matrix"][1]["runs_with_errors"], 2);
  std::string matrix;
  for (const auto& [title, body] : report.blocks) matrix += body;
  EXPECT_NE(matrix.find("ERRORS in 2 of 3 runs"), std::string::npos) << matrix;
  EXPECT_NE(matrix.find("no errors in 3 runs"), std::string::npos) << matrix;
}

TEST(DurabilityOverloadReportTest, AStorageInvariantBelowTheValuesSentFails) {
  DurabilityOverloadOptions o;
  o.legacy = false;
  DurabilityMeasured m;
  m.modes = {"none", "aof-everysec"};
  m.cells.push_back(Cell("aof-everysec", 10240, 1, 100, false));
  m.cells[0].write_bytes = 1000;  // less than 100 x 10240
  m.cells[0].invariant = MakeAtLeastInvariant("bytes written to storage", 1000, "successful SETs x value size", 1024000);
  ScenarioReport report;
  FillDurabilityReport(o, m, &report);
  EXPECT_EQ(report.verdict, ScenarioVerdict::kFailed);
  EXPECT_EQ(report.tables.back().rows.at(0).back(), "false");
  EXPECT_EQ(report.json["cells"][0]["invariant"]["relation"], ">=");
}

}  // namespace
}  // namespace memstand
