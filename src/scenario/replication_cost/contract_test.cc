// replication-cost's JSON contract (json.h), without servers: a report filled from
// fabricated cells of every path, its JSON read back by its charts (each with data) and
// its choice-map rows (each measured here).
#include <gtest/gtest.h>

#include "scenario/replication_cost/replication_cost.h"
#include "scenario/replication_cost/run.h"
#include "scenario_contract_util.h"

namespace memstand {
namespace {

ReplicationCell FabricatedCell(const std::string& system, const std::string& path, uint64_t concurrency,
                               double ops_per_sec) {
  ReplicationCell c;
  c.system = system;
  c.path = path;
  c.concurrency = concurrency;
  c.write = path.find("read") == std::string::npos;
  c.measured_s = 2;
  c.ops = static_cast<uint64_t>(ops_per_sec * 2);
  c.ops_per_sec = ops_per_sec;
  c.p50_us = 1e6 / ops_per_sec;
  c.p99_us = 3e6 / ops_per_sec;
  c.mean_us = c.p50_us;
  c.client_core_share = 0.5;
  return c;
}

ReplicationSystemRun FabricatedSystem(const std::string& system, const std::vector<std::string>& paths) {
  ReplicationSystemRun r;
  r.system = system;
  r.version = "1.0";
  r.description = "fabricated";
  double ops = 1000;
  for (uint64_t concurrency : {1, 4}) {
    for (const std::string& path : paths) r.cells.push_back(FabricatedCell(system, path, concurrency, ops += 500));
  }
  return r;
}

TEST(ReplicationCostContractTest, ItsJsonFeedsEveryChartAndEveryChoiceRow) {
  ReplicationCostOptions o;
  o.concurrency = {1, 4};
  const std::vector<ReplicationSystemRun> runs = {
      FabricatedSystem("tarantool", {"async-write", "sync-write", "sync-write-all", "read-master", "read-replicas"}),
      FabricatedSystem("redis", {"set", "set+wait1", "set+wait2"})};
  ScenarioReport report;
  report.scenario = "replication-cost";
  report.runs_made = 1;
  FillReplicationReport(o, runs, false, &report);
  ASSERT_EQ(report.verdict, ScenarioVerdict::kOk) << ::testing::PrintToString(report.verdict_lines);
  const ReportInput in = testutil::ContractInput(report, false);
  // Per system: throughput, p99 and the ratios against concurrency.
  testutil::ExpectEveryChartHasData(ReplicationCostCharts, in, 6);
  testutil::ExpectEveryRowMeasured(in, ReplicationCostChoiceRows());
}

// Replicas that hold more than the master after the wait diverged (the master rolled back
// what they kept): a finding, exit 4, with the counts; a replica holding fewer is the
// invariant broken (it may be lag the wait cut short): exit 1.
TEST(ReplicationCostContractTest, ReplicasAheadOfTheMasterAreAFindingBehindItAFailure) {
  ReplicationSystemRun run = FabricatedSystem("tarantool", {"sync-write"});
  ReplicationCell& c = run.cells.front();
  c.counted = true;
  c.settled = false;
  c.settle_ms = 5001;
  c.master_count = 61;
  c.replica_counts = {{"replica-1", 65}, {"replica-2", 65}, {"replica-3", 61}};
  ScenarioReport ahead;
  FillReplicationReport(ReplicationCostOptions{}, {run}, false, &ahead);
  EXPECT_EQ(ahead.verdict, ScenarioVerdict::kFinding) << ::testing::PrintToString(ahead.verdict_lines);
  EXPECT_EQ(ahead.ExitCode(), 4);
  ASSERT_EQ(ahead.anomalies.size(), 1u);
  EXPECT_EQ(ahead.anomalies[0].count, 8u);  // 4 tuples on each of two replicas
  EXPECT_EQ(ahead.anomalies[0].examples.size(), 2u);

  c.replica_counts = {{"replica-1", 60}, {"replica-2", 61}, {"replica-3", 61}};
  ScenarioReport behind;
  FillReplicationReport(ReplicationCostOptions{}, {run}, false, &behind);
  EXPECT_EQ(behind.verdict, ScenarioVerdict::kFailed);
  EXPECT_TRUE(behind.anomalies.empty());
}

}  // namespace
}  // namespace memstand
