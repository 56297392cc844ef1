// The registry's rows: one per scenario, each name once, a question and systems each,
// `memstand scenario list` made of them; the choice map of every row, and the judgment
// rows as docs/choice-map.md has them.
#include "scenario/registry.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "report_util.h"
#include "scenario_contract_util.h"
#include "test_paths.h"

namespace memstand {
namespace {

using nlohmann::json;
using testutil::ChoiceRowOf;
using testutil::WorkingSetChoiceResult;

TEST(RegistryTest, EveryRowIsWholeAndNamedOnce) {
  std::set<std::string> names;
  ASSERT_EQ(Scenarios().size(), 10u);
  for (const ScenarioDef& d : Scenarios()) {
    SCOPED_TRACE(d.name);
    EXPECT_TRUE(names.insert(d.name).second);
    EXPECT_GT(std::string(d.question).size(), 40u);
    EXPECT_FALSE(d.systems.empty());
    EXPECT_GE(d.default_runs, 1);
    EXPECT_NE(d.setup, nullptr);
    EXPECT_EQ(FindScenario(d.name), &d);
  }
  EXPECT_EQ(FindScenario("no-such-scenario"), nullptr);
}

TEST(RegistryTest, TheListShowsEachNameWithItsQuestion) {
  const std::string list = DescribeScenarios();
  for (const ScenarioDef& d : Scenarios()) {
    EXPECT_NE(list.find(std::string(d.name) + "\n  " + d.question + "\n"), std::string::npos) << d.name;
  }
}

TEST(ChoiceMapTest, AScenarioNotGivenIsNotMeasuredHereWithoutANumber) {
  const auto rows = ChoiceMap({{"ws.json", WorkingSetChoiceResult()}}, ScenarioChoiceRows(), JudgmentRows());
  const ChoiceRow& memtx = ChoiceRowOf(rows, "Tarantool memtx at its memtx_memory");  // not in the input's configurations
  EXPECT_EQ(memtx.support, "not measured here");
  EXPECT_EQ(memtx.pay, "");
  EXPECT_EQ(memtx.source, "ws.json holds no result for this row (not run, failed or another version)");
  const ChoiceRow& etcd = ChoiceRowOf(rows, "etcd at the quota of the scenario's --quota (etcd's own default: 2 GiB)");
  EXPECT_EQ(etcd.support, "not measured here");
  EXPECT_EQ(etcd.source, "memstand scenario run mvcc-quota --json FILE, then give FILE");
  for (const ChoiceRow& r : rows) {
    if (r.support == "not measured here") {
      EXPECT_EQ(r.pay, "") << r.system;  // never a number from elsewhere
    }
  }
}

TEST(ChoiceMapTest, TheJudgmentRowsAreTheDocumentedText) {
  std::ifstream in(testutil::SourceDir() + "/docs/choice-map.md");
  std::stringstream doc;
  doc << in.rdbuf();
  ASSERT_FALSE(doc.str().empty());
  ASSERT_FALSE(JudgmentRows().empty());
  for (const ChoiceRow& r : JudgmentRows()) {
    EXPECT_EQ(r.support, "judgment");
    const std::string line = "| " + r.task + " | " + r.system + " | " + r.faster + " | " + r.pay + " | judgment |";
    EXPECT_NE(doc.str().find(line), std::string::npos) << "docs/choice-map.md lacks the row:\n" << line;
  }
  const auto rows = ChoiceMap({}, ScenarioChoiceRows(), FixedChoiceRows());
  EXPECT_EQ(rows.size() - FixedChoiceRows().size(), 34u);  // the measured rows, all not measured here
  const std::string text = ChoiceMapText(rows);
  EXPECT_NE(text.find("support: judgment"), std::string::npos);
  EXPECT_EQ(ChoiceMapJson(rows).size(), rows.size());
}

// The systems of the published map that cannot run here are rows of the map, with no
// figure and the reason, as docs/choice-map.md has them: never silently absent.
TEST(ChoiceMapTest, TheSystemsNotPackagedHereArePresentAsNotMeasured) {
  std::ifstream in(testutil::SourceDir() + "/docs/choice-map.md");
  std::stringstream doc;
  doc << in.rdbuf();
  std::set<std::string> names;
  for (const ChoiceRow& r : NotPackagedRows()) {
    EXPECT_EQ(r.support, "not measured here: not packaged for this platform");
    EXPECT_EQ(r.pay, "");
    names.insert(r.system.substr(0, r.system.find(' ')));
    const std::string line = "| " + r.task + " | " + r.system + " | " + r.faster + " | " + r.support + " | " +
                             r.source + " |";
    EXPECT_NE(doc.str().find(line), std::string::npos) << "docs/choice-map.md lacks the row:\n" << line;
  }
  EXPECT_EQ(names, (std::set<std::string>{"Aerospike", "Apache", "Picodata"}));
  const auto rows = ChoiceMap({{"ws.json", WorkingSetChoiceResult()}}, ScenarioChoiceRows(), FixedChoiceRows());
  const std::string text = ChoiceMapText(rows, ChoiceTree());
  for (const ChoiceRow& r : NotPackagedRows()) {
    EXPECT_EQ(ChoiceRowOf(rows, r.system).support, r.support);
    EXPECT_NE(text.find("  " + r.system + "\n"), std::string::npos) << r.system;
  }
  EXPECT_NE(text.find("support: not measured here: not packaged for this platform — no Debian 12 package"),
            std::string::npos);
}

// The decision tree of the published map, as docs/choice-map.md gives it, each answer
// backed by rows of the map (a class of task misspelt in the tree would back nothing).
TEST(ChoiceMapTest, TheDecisionTreeIsTheDocumentedOneAndEachAnswerHasItsRows) {
  std::ifstream in(testutil::SourceDir() + "/docs/choice-map.md");
  std::stringstream doc;
  doc << in.rdbuf();
  const std::vector<ChoiceStep>& tree = ChoiceTree();
  ASSERT_EQ(tree.size(), 4u);
  EXPECT_EQ(tree[0].choice, "etcd");
  EXPECT_TRUE(tree[1].choice.starts_with("Tarantool"));
  EXPECT_EQ(tree[2].choice, "Redis");
  EXPECT_EQ(tree[3].choice, "a store that keeps its data on a device");
  const auto rows = ChoiceMap({{"ws.json", WorkingSetChoiceResult()}}, ScenarioChoiceRows(), FixedChoiceRows());
  for (size_t i = 0; i < tree.size(); ++i) {
    SCOPED_TRACE(tree[i].question);
    const std::string line = fmt::format("| {} | {} | {} |", i + 1, tree[i].question, tree[i].choice);
    EXPECT_NE(doc.str().find(line), std::string::npos) << "docs/choice-map.md lacks the step:\n" << line;
    for (const ChoiceEvidence& e : tree[i].evidence) {
      const ChoiceStep one{"", "", {e}};
      EXPECT_FALSE(ChoiceSupport(one, rows).empty()) << "no row of the class '" << e.task << "', system '"
                                                     << e.system_prefix << "'";
    }
  }
  // The working-set result measured Redis's rows: the Redis answer says so; the device
  // answer has Aerospike's row, not packaged.
  const std::string text = ChoiceTreeText(tree, rows);
  EXPECT_NE(text.find("yes: Redis — supported by measured here: 2, not measured here: "), std::string::npos) << text;
  EXPECT_NE(text.find("not measured here: not packaged for this platform: Aerospike"), std::string::npos) << text;
  // The coordination answer's own row is mvcc-quota's intended profile: not measured here
  // without that scenario's result.
  EXPECT_NE(text.find("not measured here: etcd as designed: small metadata written rarely, auto-compaction on "
                      "(configuration, leader election, service discovery)"),
            std::string::npos)
      << text;
}

// A field of another type than the scenario's readers take is an error naming the file
// and the field, before any reader sees it (a reader's value<int>() would throw).
TEST(RegistryTest, AResultWithAFieldOfTheWrongTypeIsRefusedNamingTheField) {
  ReportInput in;
  in.json_path = "rc.json";
  in.kind = ReportInputKind::kScenario;
  in.doc = json::parse(R"({"format": 1, "scenario": "replication-cost",
      "cells": [{"run": 1, "system": "redis", "path": "set", "ok": true, "stalled": false},
                {"run": "x", "system": "redis", "path": "set", "ok": true, "stalled": false}]})");
  const Status s = CheckScenarioResult(in);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "'rc.json': field cells[1].run: a string, expected a whole number");
  in.doc["cells"][1]["run"] = 1;
  EXPECT_TRUE(CheckScenarioResult(in).ok());
  in.doc["cells"][1]["ok"] = "yes";
  EXPECT_EQ(CheckScenarioResult(in).message(), "'rc.json': field cells[1].ok: a string, expected true or false");
  // A null where a nullable figure is (not measured) is read as absent; elsewhere it is
  // refused as any other type.
  in.doc = json::parse(R"({"format": 1, "scenario": "failover",
      "cells": [{"run": 1, "configuration": "etcd", "fault": "kill", "fault_s": 3.0, "outage_s": null}]})");
  EXPECT_TRUE(CheckScenarioResult(in).ok()) << CheckScenarioResult(in).message();
  in.doc["cells"][0]["run"] = nullptr;
  EXPECT_EQ(CheckScenarioResult(in).message(), "'rc.json': field cells[0].run: null, expected a whole number");
  // Another kind, or a scenario this memstand does not know, is not its business.
  in.doc["scenario"] = "no-such-scenario";
  EXPECT_TRUE(CheckScenarioResult(in).ok());
}

}  // namespace
}  // namespace memstand
