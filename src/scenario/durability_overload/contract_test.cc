// durability-overload's JSON contract (json.h), without servers: a report filled from
// fabricated SET cells of every mode, one with a cluster interval, its JSON read back by
// its charts (each with data) and its choice-map rows (each measured here).
#include <gtest/gtest.h>

#include "scenario/durability_overload/durability_overload.h"
#include "scenario/durability_overload/report.h"
#include "scenario_contract_util.h"

namespace memstand {
namespace {

CellResult FabricatedCell(const std::string& mode, double ops_per_s) {
  CellResult c;
  c.plan.mode = mode;
  c.plan.op = "SET";
  c.plan.size = 100;
  c.plan.payload = "random";
  c.plan.aof = mode != "none";
  c.ran = true;
  c.seconds = 2;
  c.ops = c.ok_replies = static_cast<uint64_t>(ops_per_s * 2);
  c.ops_per_s = ops_per_s;
  c.p50_ns = 100'000;
  c.p99_ns = c.max_ns = 900'000;
  c.write_bytes = static_cast<int64_t>(c.ops * 100);
  c.client_cpu_s = 1.5;
  c.server_cpu_s = 1.2;
  c.rss_max = 8 << 20;
  c.cluster.samples = 2;
  return c;
}

TEST(DurabilityOverloadContractTest, ItsJsonFeedsEveryChartAndEveryChoiceRow) {
  DurabilityOverloadOptions o;
  o.fsync = {"everysec", "always"};
  o.sizes = {100};
  o.payloads = {"random"};
  DurabilityMeasured m;
  m.modes = {"none", "aof-everysec", "aof-always"};
  m.cells = {FabricatedCell("none", 50000), FabricatedCell("aof-everysec", 30000),
             FabricatedCell("aof-always", 5000)};
  m.cells[2].cluster.intervals.push_back({"master-2 pfail", 0.5, 1.5, false});
  ScenarioReport report;
  report.scenario = "durability-overload";
  report.runs_made = 1;
  FillDurabilityReport(o, m, &report);
  const ReportInput in = testutil::ContractInput(report, false);
  // Throughput and runs with errors per cell and mode; storage writes, p99, server and
  // client CPU, largest RSS; the cluster's state over time.
  testutil::ExpectEveryChartHasData(DurabilityOverloadCharts, in, 8);
  testutil::ExpectEveryRowMeasured(in, DurabilityOverloadChoiceRows());
}

}  // namespace
}  // namespace memstand
