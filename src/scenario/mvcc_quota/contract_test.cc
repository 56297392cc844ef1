// mvcc-quota's JSON contract (json.h), without servers: a report filled from a
// fabricated run of both profiles (etcd failing at its quota, then recovered; Redis
// overwriting in place; etcd under the intended profile, compacted and far below the
// quota), its JSON read back by its charts (each with data) and its choice-map rows
// (each measured here).
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
  o.intended = true;
  MvccQuotaRun run;
  run.misuse_ran = run.intended_ran = true;
  MvccIntendedRun& in = run.intended;
  in.attempted = in.successful = 1000;
  in.db_size_before = 20480;
  in.db_size_peak = 1 << 20;
  in.db_size_end = in.db_size_in_use_end = 1 << 20;
  in.revision_before = 1;
  in.revision_end = 1001;
  in.compacted = true;
  in.compaction_probe = "etcdserver: mvcc: required revision has been compacted";
  for (int64_t w = 100; w <= 1000; w += 100) in.db_size_by_write.push_back({w, 20480 + w * 1000});
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
  // Two charts: the intended profile's backend size per write against the quota; the
  // misuse's, with the failure and the recovery.
  const ReportInput input = testutil::ContractInput(report, false);
  testutil::ExpectEveryChartHasData(MvccQuotaCharts, input, 2);
  testutil::ExpectEveryRowMeasured(input, MvccQuotaChoiceRows());
  // Both profiles side by side.
  bool side_by_side = false;
  for (const auto& [title, body] : report.blocks) side_by_side |= title.starts_with("Both profiles side by side");
  EXPECT_TRUE(side_by_side);
}

}  // namespace
}  // namespace memstand
