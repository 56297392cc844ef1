// Golden tests of the data each chart of mvcc-quota's report section receives
// (ChartJson, from crafted inputs).
#include <gtest/gtest.h>

#include "report/scenario_sections.h"
#include "report_util.h"
#include "scenario/mvcc_quota/mvcc_quota.h"

namespace memstand {
namespace {

using nlohmann::json;
using OJson = nlohmann::ordered_json;
using testutil::ChartData;
using testutil::ChartTitled;
using testutil::Golden;
using testutil::ReportInputOf;

TEST(HtmlReportTest, MvccQuotaDrawsSizePerWriteWithFailureAndRecovery) {
  ReportSection s = ScenarioSection(ReportInputOf(R"j({
    "format": 1, "scenario": "mvcc-quota", "platform": "P",
    "profile": {"quota_bytes": 4194304, "portion": 500, "keys": 10, "value_size": 1024},
    "etcd": {"first_failed_write": 1200, "detected_in": [1000, 1500], "db_size_after_recovery": 1048576,
             "error": "database space exceeded", "canary_ok": true,
             "db_size_by_write": [[500, 1048576], [1000, 3145728], [1500, 4194304]]}})j"), MvccQuotaCharts);
  EXPECT_EQ(ChartData(s, "mvcc-quota: etcd backend size per write"), Golden(R"j({
    "x": {"label": "writes", "unit": "writes", "log": false},
    "y": {"label": "etcd backend size (dbSize)", "unit": "MiB", "log": false},
    "series": ["db size"], "data": [[500, 1000, 1500], [1, 3, 4]],
    "bands": [{"from": 1000, "to": 1500, "label": "portion of the first failure"}],
    "x_lines": [{"at": 1200, "label": "first failed write 1200"}],
    "y_lines": [{"at": 4, "label": "quota 4 MiB"}, {"at": 1, "label": "after the recovery, at the end: 1 MiB"}]})j"));
}

}  // namespace
}  // namespace memstand
