// The choice map's machinery, with rows made up here (the scenarios' own rows are tested in
// their folders, src/scenario/<name>/choices_test.cc): a row of a scenario given is
// measured and names its scenario, figure and file; one the input cannot fill says why,
// with no figure; a scenario not given leaves its rows "not measured here" without a
// number; judgment rows follow as they are; the decision tree names, for each answer,
// the rows that support it and how many of each support.
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

TEST(ChoiceMapTest, AnInterruptedResultIsSaidInTheSource) {
  json doc = {{"scenario", "a"}, {"figure", 1}, {"partial", true}, {"verdict", "interrupted"}};
  EXPECT_EQ(ChoiceMap({{"a.json", doc}}, {RowOfA("one")}, {}).at(0).source,
            "a: figure 1 (a.json), an interrupted result: its last run may be incomplete");
  doc["verdict"] = "partial";  // a server not installed: the runs made are whole
  EXPECT_EQ(ChoiceMap({{"a.json", doc}}, {RowOfA("one")}, {}).at(0).source, "a: figure 1 (a.json)");
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

// A fill that rewords the system (mvcc-quota's quota) but then finds the result lacking
// leaves the row's own system: a not measured row never carries a figure of the result.
TEST(ChoiceMapTest, AFillThatFailsLeavesTheSystemAsItWas) {
  MeasuredChoiceRow row{"a", "a task", "etcd at the quota of --quota", "about",
                        [](const json&, ChoiceRow* r, std::string*) {
                          r->system = "etcd at a 64 MiB quota";
                          return false;
                        }};
  const auto rows = ChoiceMap({{"a.json", {{"scenario", "a"}}}}, {row}, {});
  EXPECT_EQ(rows.at(0).system, "etcd at the quota of --quota");
  EXPECT_EQ(rows.at(0).support, "not measured here");
}

const std::vector<ChoiceStep> kTree = {
    {"Is it a task?", "one", {{"a task", ""}, {"another task", "a sys"}}},
    {"Otherwise:", "a store", {{"no such task", ""}}},
};

TEST(ChoiceMapTest, TheTreeSaysWhatSupportsEachAnswer) {
  const auto rows = ChoiceMap({{"a.json", {{"scenario", "a"}, {"figure", 2}}}}, {RowOfA("one"), RowOfA("two")},
                              {{"another task", "a system", "how", "", kChoiceNotPackaged, "no package"},
                               {"another task", "b system", "how", "what", kChoiceJudgment, "none"}});
  ASSERT_EQ(ChoiceSupport(kTree[0], rows).size(), 3u);  // "b system" does not start with "a sys"
  EXPECT_TRUE(ChoiceSupport(kTree[1], rows).empty());
  const std::string text = ChoiceTreeText(kTree, rows);
  EXPECT_NE(text.find("  1. Is it a task?\n     yes: one — supported by measured here: 2, not measured here: not "
                      "packaged for this platform: 1\n"
                      "       measured here: one (a task)\n"
                      "       measured here: two (a task)\n"
                      "       not measured here: not packaged for this platform: a system (another task)\n"
                      "     no: step 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  2. Otherwise:\n     a store — supported by no row of the map\n"), std::string::npos) << text;
  EXPECT_NE(ChoiceMapText(rows, kTree).find(text), std::string::npos);
  EXPECT_EQ(ChoiceMapText(rows).find("decision tree"), std::string::npos);
  const ReportSection section = ChoiceMapSection(rows, kTree);
  ASSERT_EQ(section.tables.size(), 2u);
  ASSERT_EQ(section.tables[1].rows.size(), 2u);
  EXPECT_EQ(section.tables[1].csv_name, "choice-tree");
  EXPECT_EQ(section.tables[1].rows[0][2], "yes: one");
  EXPECT_EQ(section.tables[1].rows[0][4], "measured here: 2, not measured here: not packaged for this platform: 1");
  EXPECT_EQ(section.tables[1].rows[1][3], "-");
}

}  // namespace
}  // namespace memstand
