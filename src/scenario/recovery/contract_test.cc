// recovery's JSON contract (json.h), without servers: a report filled from fabricated
// cells, read back by its chart and its choice-map rows; a loss is a finding only where
// the configuration promised none (AOF always, Tarantool wal_mode fsync).
#include <gtest/gtest.h>

#include "scenario/recovery/cell.h"
#include "scenario/recovery/recovery.h"
#include "scenario_contract_util.h"

namespace memstand {
namespace {

RecoveryCell FabricatedCell(const std::string& configuration, uint64_t mib, uint64_t lost) {
  RecoveryCell c;
  c.configuration = configuration;
  c.memory = mib << 20;
  c.version = "7.0";
  c.fill_keys = 1000;
  c.used_memory = static_cast<int64_t>(mib << 20);
  c.kill_s = 2;
  c.restart_s = 2.1;
  c.accept_s = 2.12;
  c.loaded_s = 2.1 + 0.002 * static_cast<double>(mib);
  c.first_write_s = c.first_read_s = c.loaded_s + 0.01;
  c.fill_present = 1000;
  history::CheckResult lw;
  lw.check = "lost-writes";
  for (uint64_t k = 0; k < lost; ++k) {
    lw.verdict = history::Verdict::kViolated;
    lw.Add({"lost", true, k, "key:" + std::to_string(k) + ": 1 acknowledged write(s) are gone", {}});
  }
  c.checks = {lw};
  c.lost = lost;
  return c;
}

TEST(RecoveryContractTest, ItsJsonFeedsItsChartAndEveryChoiceRow) {
  std::vector<RecoveryCell> cells;
  for (const char* conf : {"none", "rdb", "aof-everysec", "aof-always", "tarantool-wal-write", "tarantool-wal-fsync"}) {
    for (uint64_t mib : {16, 64}) cells.push_back(FabricatedCell(conf, mib, std::string(conf) == "none" ? 50 : 0));
  }
  ScenarioReport report;
  report.scenario = "recovery";
  report.runs_made = 1;
  FillRecoveryReport(RecoveryOptions{}, cells, false, &report);
  // No persistence loses everything, as it promises: a figure, not a finding.
  ASSERT_EQ(report.verdict, ScenarioVerdict::kOk) << ::testing::PrintToString(report.verdict_lines);
  EXPECT_TRUE(report.anomalies.empty());
  EXPECT_NEAR(cells[0].SecondsPerGb(), 0.032 / (16.0 * (1 << 20) / 1e9), 1e-9);
  const ReportInput in = testutil::ContractInput(report, false);
  testutil::ExpectEveryChartHasData(RecoveryCharts, in, 1);
  testutil::ExpectEveryRowMeasured(in, RecoveryChoiceRows());
  EXPECT_EQ(RecoveryChoiceRows().size(), 5u);  // rdb, the two AOFs, Tarantool's two
  const nlohmann::json& tarantool = report.json["cells"][8];
  EXPECT_EQ(tarantool["configuration"], "tarantool-wal-write");
  EXPECT_EQ(tarantool["system"], "tarantool");
  EXPECT_EQ(report.json["cells"][0]["system"], "redis");
}

TEST(RecoveryContractTest, ALossUnderWalFsyncIsAFindingUnderWalWriteAFigure) {
  ScenarioReport report;
  report.scenario = "recovery";
  FillRecoveryReport(RecoveryOptions{},
                     {FabricatedCell("tarantool-wal-write", 16, 4), FabricatedCell("tarantool-wal-fsync", 16, 1)}, false,
                     &report);
  EXPECT_EQ(report.ExitCode(), 4);
  ASSERT_EQ(report.anomalies.size(), 1u);
  EXPECT_EQ(report.anomalies[0].configuration, "tarantool-wal-fsync at 16 MiB run 1");
  EXPECT_EQ(report.anomalies[0].count, 1u);
}

TEST(RecoveryContractTest, ALossUnderAofAlwaysIsAFinding) {
  ScenarioReport report;
  report.scenario = "recovery";
  FillRecoveryReport(RecoveryOptions{}, {FabricatedCell("aof-everysec", 16, 3), FabricatedCell("aof-always", 16, 2)},
                     false, &report);
  EXPECT_EQ(report.verdict, ScenarioVerdict::kFinding);
  EXPECT_EQ(report.ExitCode(), 4);
  ASSERT_EQ(report.anomalies.size(), 1u);
  EXPECT_EQ(report.anomalies[0].configuration, "aof-always at 16 MiB run 1");
  EXPECT_EQ(report.anomalies[0].count, 2u);
  EXPECT_EQ(report.anomalies[0].examples.size(), 2u);
}

TEST(RecoveryOptionsTest, BadOptionsAreRefusedNamingTheFlag) {
  auto refused = [](auto change, const std::string& part) {
    RecoveryOptions o;
    change(o);
    const Status s = ValidateRecovery(o);
    EXPECT_FALSE(s.ok()) << part;
    EXPECT_NE(s.message().find(part), std::string::npos) << s.message();
  };
  EXPECT_TRUE(ValidateRecovery(RecoveryOptions{}).ok());
  refused([](RecoveryOptions& o) { o.configurations = {"aof-never"}; }, "--only: 'aof-never'");
  refused([](RecoveryOptions& o) { o.configurations = {"tarantool-wal-none"}; }, "tarantool-wal-fsync");
  refused([](RecoveryOptions& o) { o.configurations = {"tarantool-wal-write", "tarantool-wal-write"}; }, "twice");
  refused([](RecoveryOptions& o) { o.memories = {1024}; }, "--memory");
  refused([](RecoveryOptions& o) { o.fill = 1.5; }, "--fill");
  refused([](RecoveryOptions& o) { o.kill_at_s = 0.5; }, "--kill-at");
}

}  // namespace
}  // namespace memstand
