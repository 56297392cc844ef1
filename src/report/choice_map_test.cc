// The choice map's machinery, with rows made up here (the scenarios' own rows are tested in
// their folders, src/scenario/<name>/choices_test.cc): a row of a scenario given is
// measured and names its scenario, figure and file; one the input cannot fill says why,
// with no figure; a scenario not given leaves its rows "not measured here" without a
// number; judgment rows follow as they are.
#include "report/choice_map.h"

#include <gtest/gtest.h>

#include "report_util.h"

namespace memstand {
namespace {

using nlohmann::json;
using testutil::ChoiceRowOf;

// A row of the scenario "a" filled from its document's "figure", when it has one.
MeasuredChoiceRow RowOfA(const std::string& system) {
  return {"a", "a task", system, "what it is about", [](const json& doc, ChoiceRow* row, std::string* figure) {
            const json v = ChoiceAt(doc, {"figure"});
            if (v.is_null()) return false;
            row->faster = "faster by " + ChoiceValue(v);
            row->pay = "pays " + ChoiceRatio(v);
            *figure = "figure " + ChoiceValue(v);
            return true;
          }};
}

const std::vector<ChoiceRow> kJudgment = {{"another task", "a system", "how", "what", "judgment", "no scenario"}};

TEST(ChoiceMapTest, AGivenScenarioFillsItsRowsAndNamesTheFigureAndFile) {
  const auto rows = ChoiceMap({{"a.json", {{"scenario", "a"}, {"figure", 2.34}}}}, {RowOfA("one")}, kJudgment);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].support, "measured here");
  EXPECT_EQ(rows[0].faster, "faster by 2.3");
  EXPECT_EQ(rows[0].pay, "pays 2.3x");
  EXPECT_EQ(rows[0].source, "a: figure 2.3 (a.json)");
  EXPECT_EQ(rows[1].support, "judgment");
  EXPECT_EQ(rows[1].source, "no scenario");
}

TEST(ChoiceMapTest, AScenarioNotGivenOrWithoutTheFigureIsNotMeasuredHereWithoutANumber) {
  const std::vector<MeasuredChoiceRow> measured = {RowOfA("one"), {"b", "b task", "two", "b's row", nullptr}};
  const auto rows = ChoiceMap({{"a.json", {{"scenario", "a"}}}, {"c.json", {{"scenario", "c"}, {"figure", 1}}}},
                              measured, {});
  ASSERT_EQ(rows.size(), 2u);  // c.json: no row of scenario "c", ignored
  const ChoiceRow& one = ChoiceRowOf(rows, "one");
  EXPECT_EQ(one.support, "not measured here");
  EXPECT_EQ(one.faster, "what it is about");
  EXPECT_EQ(one.pay, "");
  EXPECT_EQ(one.source, "a.json holds no result for this row (not run, failed or another version)");
  const ChoiceRow& two = ChoiceRowOf(rows, "two");
  EXPECT_EQ(two.support, "not measured here");
  EXPECT_EQ(two.pay, "");
  EXPECT_EQ(two.source, "memstand scenario run b --json FILE, then give FILE");
}

TEST(ChoiceMapTest, TheFirstInputOfAScenarioIsTheOneRead) {
  const auto rows = ChoiceMap({{"first.json", {{"scenario", "a"}, {"figure", 1}}},
                               {"second.json", {{"scenario", "a"}, {"figure", 2}}}},
                              {RowOfA("one")}, {});
  EXPECT_EQ(rows.at(0).source, "a: figure 1 (first.json)");
}

TEST(ChoiceMapTest, TheHelpersReadMissingFieldsAsAbsent) {
  const json doc = {{"list", {{{"name", "x"}, {"v", 1}}, 7}}, {"s", "text"}};
  EXPECT_TRUE(ChoiceAt(doc, {"list", "v"}).is_null());
  EXPECT_TRUE(ChoiceAt(json(3), {"a"}).is_null());
  EXPECT_EQ(ChoiceValue(ChoiceAt(doc, {"s"})), "text");
  EXPECT_EQ(ChoiceValue(nullptr), "?");
  EXPECT_EQ(ChoiceRatio(json("3")), "?");
  ASSERT_NE(ChoiceFind(doc["list"], "name", "x"), nullptr);
  EXPECT_EQ((*ChoiceFind(doc["list"], "name", "x"))["v"], 1);
  EXPECT_EQ(ChoiceFind(doc["list"], "other", "x"), nullptr);
  EXPECT_EQ(ChoiceFind(doc["s"], "name", "x"), nullptr);
}

TEST(ChoiceMapTest, TextJsonAndSectionHoldEveryRow) {
  const auto rows = ChoiceMap({}, {RowOfA("one")}, kJudgment);
  const std::string text = ChoiceMapText(rows);
  EXPECT_NE(text.find("support: judgment"), std::string::npos);
  EXPECT_NE(text.find("support: not measured here"), std::string::npos);
  EXPECT_EQ(ChoiceMapJson(rows).size(), rows.size());
  const ReportSection section = ChoiceMapSection(rows);
  ASSERT_EQ(section.tables.size(), 1u);
  EXPECT_EQ(section.tables[0].rows.size(), rows.size());
}

}  // namespace
}  // namespace memstand
