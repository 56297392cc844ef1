// A scenario's page section from its JSON: the validity table from the JSON's
// `validity` (scenario/output.cc writes it), tolerant of a document without one.
#include "report/scenario_sections.h"

#include <gtest/gtest.h>

#include "report_util.h"

namespace memstand {
namespace {

using testutil::ReportInputOf;

const ReportTable* TableNamed(const ReportSection& s, const std::string& csv_name) {
  for (const ReportTable& t : s.tables) {
    if (t.csv_name == csv_name) return &t;
  }
  return nullptr;
}

TEST(ScenarioSectionTest, TheValidityTableHasARowPerJudgedRunWithItsSuspectChecks) {
  ReportSection s = ScenarioSection(ReportInputOf(R"j({
    "format": 1, "scenario": "replication-cost", "platform": "P",
    "validity": {"verdict": "suspect", "valid": 1, "suspect": 1, "runs": [
      {"label": "run 1 redis set at concurrency 4", "verdict": "valid", "checks": [
         {"name": "rate", "status": "pass", "figure": "f", "threshold": "t", "reason": null}],
       "intervals": [{"command": "Total", "percentiles": [
         {"percentile": 50, "value_us": 10, "low_us": 9, "high_us": 11},
         {"percentile": 99, "value_us": 120.5, "low_us": 100, "high_us": 150}]}]},
      {"label": "run 1 redis set+wait1 at concurrency 4", "verdict": "suspect", "checks": [
         {"name": "stationarity", "status": "suspect", "figure": "last third 41%", "threshold": "t",
          "reason": "not a steady state"},
         {"name": "clock", "status": "not judged", "figure": "g", "threshold": "t", "reason": "r"}],
       "intervals": []}]}})j"), nullptr);
  const ReportTable* t = TableNamed(s, "validity");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->title, "Validity of the load runs' statistics: 1 valid, 1 suspect");
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0], (std::vector<std::string>{"run 1 redis set at concurrency 4", "valid", "", "120.5 [100 .. 150]"}));
  EXPECT_EQ(t->rows[1], (std::vector<std::string>{"run 1 redis set+wait1 at concurrency 4", "suspect",
                                                  "stationarity: last third 41%: not a steady state", ""}));
}

TEST(ScenarioSectionTest, NoValidityOrAMalformedOneGivesNoTable) {
  for (const char* doc : {R"j({"format": 1, "scenario": "x"})j", R"j({"format": 1, "scenario": "x", "validity": 3})j",
                          R"j({"format": 1, "scenario": "x", "validity": {"runs": {"a": 1}}})j",
                          R"j({"format": 1, "scenario": "x", "validity": {"verdict": null, "runs": []}})j"}) {
    ReportSection s = ScenarioSection(ReportInputOf(doc), nullptr);
    EXPECT_EQ(TableNamed(s, "validity"), nullptr) << doc;
  }
  // Runs of the wrong shapes still give rows, with what could be read.
  ReportSection s = ScenarioSection(
      ReportInputOf(R"j({"format": 1, "scenario": "x", "validity": {"runs": [1, {"label": 2, "checks": "no"}]}})j"),
      nullptr);
  const ReportTable* t = TableNamed(s, "validity");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->rows.size(), 2u);
}

}  // namespace
}  // namespace memstand
