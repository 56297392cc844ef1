// The registry's rows: one per scenario, each name once, a question and systems each,
// `memstand scenario list` made of them; the choice map of every row, and the judgment
// rows as docs/choice-map.md has them.
#include "scenario/registry.h"

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
  ASSERT_EQ(Scenarios().size(), 9u);
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
  const auto rows = ChoiceMap({}, ScenarioChoiceRows(), JudgmentRows());
  EXPECT_EQ(rows.size() - JudgmentRows().size(), 32u);  // the measured rows, all not measured here
  const std::string text = ChoiceMapText(rows);
  EXPECT_NE(text.find("support: judgment"), std::string::npos);
  EXPECT_EQ(ChoiceMapJson(rows).size(), rows.size());
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
