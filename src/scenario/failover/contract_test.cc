// failover's JSON contract (json.h), without servers: a report filled from fabricated
// cells, its JSON read back by its charts (each with data) and its choice-map rows (each
// measured here); a violated check is a finding (exit 4) with its evidence.
#include <gtest/gtest.h>

#include "scenario/failover/cell.h"
#include "scenario/failover/failover.h"
#include "scenario_contract_util.h"

namespace memstand {
namespace {

FailoverCell FabricatedCell(const std::string& configuration, const std::string& fault, bool lost) {
  FailoverCell c;
  c.configuration = configuration;
  c.fault = fault;
  c.version = "1.0";
  c.victim = "master-1";
  c.victim_address = "127.0.0.1:7000";
  c.fault_s = 2;
  c.promote_s = 3.5;
  c.new_primary = "replica-1-1";
  c.outage.first_ok_ns = 4'000'000'000;
  c.outage.outage_s = 2;
  c.seconds = {{100, 0, 0, 50, 1'000'000, 2'000'000, 3'000'000}, {100, 0, 0, 50, 1'000'000, 2'000'000, 3'000'000},
               {3, 90, 2, 1, 900'000'000, 990'000'000, 995'000'000}, {0, 100, 0, 0}, {100, 0, 0, 50, 1'000'000, 2'000'000, 3'000'000}};
  history::CheckResult lw;
  lw.check = "lost-writes";
  if (lost) {
    lw.verdict = history::Verdict::kViolated;
    lw.Add({"lost", true, 7, "key:7: 1 acknowledged write(s) are gone", {}});
  }
  history::CheckResult lin;
  lin.check = "linearizable";
  c.checks = {lw, lin};
  return c;
}

TEST(FailoverContractTest, ItsJsonFeedsEveryChartAndEveryChoiceRow) {
  const std::vector<FailoverCell> cells = {FabricatedCell("redis-cluster", "kill", false),
                                           FabricatedCell("redis-cluster", "pause", false),
                                           FabricatedCell("redis-sentinel", "kill", false),
                                           FabricatedCell("etcd", "kill", false),
                                           FabricatedCell("redis-cluster-wait", "kill", false),
                                           FabricatedCell("redis-sentinel-wait", "kill", false),
                                           FabricatedCell("tarantool", "kill", false)};
  ScenarioReport report;
  report.scenario = "failover";
  report.runs_made = 1;
  FillFailoverReport(FailoverOptions{}, cells, false, &report);
  ASSERT_EQ(report.verdict, ScenarioVerdict::kOk) << ::testing::PrintToString(report.verdict_lines);
  EXPECT_EQ(report.ExitCode(), 0);
  const ReportInput in = testutil::ContractInput(report, false);
  testutil::ExpectEveryChartHasData(FailoverCharts, in, 14);  // two per cell
  testutil::ExpectEveryRowMeasured(in, FailoverChoiceRows());
}

// A lost acknowledged write is the system's finding: exit 4, its evidence kept, the
// figures still there; a failed cell beside it makes the run exit 1 (the instrument's).
TEST(FailoverContractTest, ALostWriteIsAFindingWithItsEvidence) {
  ScenarioReport report;
  report.scenario = "failover";
  FillFailoverReport(FailoverOptions{}, {FabricatedCell("redis-cluster", "kill", true)}, false, &report);
  EXPECT_EQ(report.verdict, ScenarioVerdict::kFinding);
  EXPECT_EQ(report.ExitCode(), 4);
  ASSERT_EQ(report.anomalies.size(), 1u);
  EXPECT_EQ(report.anomalies[0].kind, "lost");
  EXPECT_EQ(report.anomalies[0].count, 1u);
  EXPECT_EQ(report.anomalies[0].configuration, "redis-cluster kill run 1");
  ASSERT_EQ(report.anomalies[0].examples.size(), 1u);
  EXPECT_EQ(report.anomalies[0].examples[0], "key:7: 1 acknowledged write(s) are gone");
  EXPECT_EQ(report.json["cells"][0]["lost"], 1);

  FailoverCell failed = FabricatedCell("etcd", "kill", false);
  failed.failure = "the history: cannot read";
  FillFailoverReport(FailoverOptions{}, {FabricatedCell("redis-cluster", "kill", true), failed}, false, &report);
  EXPECT_EQ(report.verdict, ScenarioVerdict::kFailed);
  EXPECT_EQ(report.ExitCode(), 1);
}

// A WAIT configuration's lost write is a finding too, against WAIT's documented contract
// (it narrows the window, it does not close it).
TEST(FailoverContractTest, AWaitConfigurationsLostWriteIsAFindingAgainstWaitsContract) {
  ScenarioReport report;
  report.scenario = "failover";
  FillFailoverReport(FailoverOptions{}, {FabricatedCell("redis-sentinel-wait", "kill", true)}, false, &report);
  EXPECT_EQ(report.ExitCode(), 4);
  ASSERT_EQ(report.anomalies.size(), 1u);
  EXPECT_EQ(report.anomalies[0].configuration, "redis-sentinel-wait kill run 1");
  EXPECT_EQ(report.json["cells"][0]["configuration"], "redis-sentinel-wait");
  bool contract = false;
  for (const std::string& line : report.verdict_lines) {
    contract |= line.find("WAIT does not make it strongly consistent") != std::string::npos;
  }
  EXPECT_TRUE(contract) << ::testing::PrintToString(report.verdict_lines);
}

// Tarantool's asynchronous replication allows the loss: a finding under its own contract.
TEST(FailoverContractTest, ATarantoolLostWriteIsAFindingUnderItsAsynchronousContract) {
  ScenarioReport report;
  report.scenario = "failover";
  FillFailoverReport(FailoverOptions{}, {FabricatedCell("tarantool", "kill", true)}, false, &report);
  EXPECT_EQ(report.ExitCode(), 4);
  ASSERT_EQ(report.anomalies.size(), 1u);
  EXPECT_EQ(report.anomalies[0].configuration, "tarantool kill run 1");
  EXPECT_EQ(report.json["cells"][0]["configuration"], "tarantool");
  const std::string all = ::testing::PrintToString(report.procedure) + ::testing::PrintToString(report.json.dump());
  EXPECT_NE(all.find("memstand is the orchestrator"), std::string::npos);
  EXPECT_NE(::testing::PrintToString(report.verdict_lines).find("Tarantool 2.6 replicates asynchronously"),
            std::string::npos)
      << ::testing::PrintToString(report.verdict_lines);
}

TEST(FailoverOptionsTest, BadOptionsAreRefusedNamingTheFlag) {
  auto refused = [](auto change, const std::string& part) {
    FailoverOptions o;
    change(o);
    const Status s = ValidateFailover(o);
    EXPECT_FALSE(s.ok()) << part;
    EXPECT_NE(s.message().find(part), std::string::npos) << s.message();
  };
  EXPECT_TRUE(ValidateFailover(FailoverOptions{}).ok());
  FailoverOptions waits;
  waits.configurations = {"redis-cluster-wait", "redis-sentinel-wait"};
  EXPECT_TRUE(ValidateFailover(waits).ok());
  FailoverOptions tarantool;
  tarantool.configurations = {"tarantool"};
  EXPECT_TRUE(ValidateFailover(tarantool).ok());
  EXPECT_EQ(FailoverConfigurations().back(), "tarantool");
  refused([](FailoverOptions& o) { o.configurations = {"mongodb"}; }, "--only: 'mongodb' is not a configuration");
  refused([](FailoverOptions& o) { o.configurations = {"etcd", "etcd"}; }, "given twice");
  refused([](FailoverOptions& o) { o.faults = {"partition"}; }, "--faults: 'partition' is not a fault");
  refused([](FailoverOptions& o) { o.fault_at_s = 10; }, "--fault-at");
  refused([](FailoverOptions& o) { o.pause_s = 8; }, "--pause");
  refused([](FailoverOptions& o) { o.rate = 0; }, "--rate");
  refused([](FailoverOptions& o) {
    o.plant_loss = true;
    o.fault_at_s = 0.5;
  }, "--plant-loss");
}

}  // namespace
}  // namespace memstand
