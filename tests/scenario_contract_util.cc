#include "scenario_contract_util.h"

#include <gtest/gtest.h>

#include "scenario/output.h"
#include "scenario/registry.h"
#include "util/csv.h"

namespace memstand::testutil {
namespace {

bool HasValue(const Chart& c) {
  for (size_t i = 1; i < c.data.size(); ++i) {
    for (const auto& v : c.data[i]) {
      if (v) return true;
    }
  }
  return false;
}

}  // namespace

ReportInput ContractInput(const ScenarioReport& report, bool evidence) {
  ScenarioRunInfo info;
  info.command_line = "memstand scenario run " + report.scenario;
  info.started_at = "2025-01-01T00:00:00Z";
  info.platform.kernel = "Linux 6.1";
  ReportInput in;
  in.path = in.json_path = "scenario.json";
  in.doc = nlohmann::json::parse(ScenarioJson(report, info).dump());
  auto kind = DetectKind(in.doc);
  EXPECT_TRUE(kind.ok() && *kind == ReportInputKind::kScenario) << in.doc.dump().substr(0, 200);
  in.kind = ReportInputKind::kScenario;
  if (evidence) {
    for (const Table& t : report.tables) {
      std::string csv;
      AppendCsvRow(t.columns, &csv);
      for (const auto& row : t.rows) AppendCsvRow(row, &csv);
      in.csv[t.name] = csv;
    }
  }
  // What the writer wrote passes the types its readers are checked for (read_rules).
  const Status checked = CheckScenarioResult(in);
  EXPECT_TRUE(checked.ok()) << checked.message();
  return in;
}

void ExpectEveryChartHasData(ScenarioChartsFn charts, const ReportInput& in, size_t expected) {
  ReportSection s;
  charts(in, &s);
  EXPECT_EQ(s.charts.size(), expected);
  for (const Chart& c : s.charts) {
    EXPECT_TRUE(HasValue(c)) << "no value to draw in chart '" << c.title << "'";
    for (size_t i = 1; i < c.data.size(); ++i) {
      EXPECT_EQ(c.data[i].size(), c.data[0].size()) << c.title << ", series " << i;
    }
  }
  for (const TextBlock& b : s.blocks) {
    std::string lines;
    for (const std::string& l : b.lines) lines += l + "\n";
    ADD_FAILURE() << "the charts added a block: " << b.title << ": " << lines;
  }
}

void ExpectEveryRowMeasured(const ReportInput& in, const std::vector<MeasuredChoiceRow>& rows) {
  ASSERT_FALSE(rows.empty());
  for (const ChoiceRow& r : ChoiceMap({{in.json_path, in.doc}}, rows, {})) {
    EXPECT_EQ(r.support, "measured here") << r.system << ": " << r.source;
  }
}

nlohmann::json WorkingSetChoiceResult() {
  return {{"scenario", "working-set"},
          {"configurations",
           {{{"name", "redis-allkeys-lru"},
             {"runs", {{{"outcome", "evicts"}, {"evicted", 168900}, {"attempted", 200000}, {"present", 31100},
                        {"exact_eviction", 31742}}}}},
            {{"name", "redis-noeviction"},
             {"runs", {{{"outcome", "rejects"}, {"first_rejected_write", 31408}, {"present", 31408},
                        {"first_error", "OOM command not allowed"}}}}},
            // Measured otherwise than expected: the row says what was measured.
            {{"name", "memcached-8m"}, {"runs", {{{"outcome", "keeps all"}, {"present", 200000}, {"attempted", 200000}}}}}}}};
}

}  // namespace memstand::testutil
