// mvcc-quota's JSON contract (json.h), without servers: a report filled from a
// fabricated run (etcd failing at its quota, then recovered; Redis overwriting in place),
// its JSON read back by its charts (each with data) and its choice-map rows (each
// measured here).
#include <gtest/gtest.h>

#include "scenario/mvcc_quota/mvcc_quota.h"
#include "scenario/mvcc_quota/report.h"
#include "scenario_contract_util.h"

namespace memstand {
namespace {

TEST(MvccQuotaContractTest, ItsJsonFeedsEveryChartAndEveryChoiceRow) {
  MvccQuotaOptions o;
  o.quota_bytes = 4 << 20;
  o.keys = 100;
  o.writes = 3000;
  o.portion = 100;
  MvccQuotaRun run;
  MvccEtcdRun& e = run.etcd;
  e.attempted = 3000;
  e.first_failed_write = 2501;
  e.successful = 2500;
  e.failed = 500;
  e.error = "etcdserver: mvcc: database space exceeded";
  e.detected_in = PortionOf(2501, o.portion, o.writes);
  e.alarms = {"NOSPACE"};
  e.db_size_at_failure = 4 << 20;
  e.db_size_after_recovery = 1 << 20;
  e.canary_ok = true;
  for (int64_t w = 500; w <= 3000; w += 500) e.db_size_by_write.push_back({w, w * 1400});
  MvccRedisRun& r = run.redis;
  r.attempted = r.successful = 3000;
  r.keys = 100;
  r.used_memory_before = 1 << 20;
  r.used_memory_after = (1 << 20) + 150'000;
  run.ratio = double(e.db_size_at_failure) / double(r.delta());
  ScenarioReport report;
  report.scenario = "mvcc-quota";
  report.runs_requested = report.runs_made = 1;
  FillMvccQuotaReport(o, {run}, false, &report);
  ASSERT_EQ(report.verdict, ScenarioVerdict::kOk) << ::testing::PrintToString(report.verdict_lines);
  const ReportInput in = testutil::ContractInput(report, false);
  // One chart: etcd's backend size per write, the quota, the failure and the recovery.
  testutil::ExpectEveryChartHasData(MvccQuotaCharts, in, 1);
  testutil::ExpectEveryRowMeasured(in, MvccQuotaChoiceRows());
}

}  // namespace
}  // namespace memstand
