// `memstand report --choice-map` on a real scenario result: the printed map's rows with
// their support and their figures' N, the rows of the systems not packaged here, the
// decision tree, and the page's section.
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"
#include "npm_util.h"

namespace memstand::e2e {
namespace {

TEST(ChoiceMapE2E, RowsFromARealScenarioResultPrintedAndOnThePage) {
  const std::string dir = TempDir();
  Outcome run = RunMemstand({"scenario", "run", "compute-locality", "--only", "redis", "--reps", "1",
                             "--no-swap-order", "--json", dir + "/cl.json", "-q"}, 120);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  Outcome out = RunMemstand({"report", "--choice-map", dir + "/cl.json", "-o", dir + "/page.html"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("support: measured here — compute-locality: redis 'as published"), std::string::npos)
      << out.output;
  // One run: each figure says N=1.
  EXPECT_NE(out.output.find("less time than fetching the category to the client"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("x (N=1) less time"), std::string::npos) << out.output;
  // The systems that cannot run here are there, with no figure; then the tree.
  for (const char* system : {"Aerospike", "Apache Ignite", "Picodata"}) {
    const size_t at = out.output.find(std::string("\n  ") + system);
    ASSERT_NE(at, std::string::npos) << system << "\n" << out.output;
    EXPECT_NE(out.output.find("support: not measured here: not packaged for this platform", at), std::string::npos);
  }
  const size_t tree = out.output.find("The decision tree of the published map");
  ASSERT_NE(tree, std::string::npos) << out.output;
  EXPECT_NE(out.output.find("yes: Tarantool (stored Lua next to the data) — supported by measured here: 1,", tree),
            std::string::npos)
      << out.output.substr(tree);
  EXPECT_NE(out.output.find("measured here: Redis, a sorted set per category", tree), std::string::npos);
  // Tarantool was not run in that result: its row has no figure.
  const size_t t = out.output.find("Tarantool, a stored Lua function over a TREE index");
  ASSERT_NE(t, std::string::npos) << out.output;
  EXPECT_NE(out.output.find("support: not measured here", t), std::string::npos) << out.output.substr(t, 400);
  EXPECT_NE(out.output.find("support: judgment"), std::string::npos);
  const std::string page = testutil::ReadFile(dir + "/page.html");
  EXPECT_NE(page.find("choice-map"), std::string::npos);
  EXPECT_NE(page.find("not measured here"), std::string::npos);
  EXPECT_NE(page.find("not packaged for this platform"), std::string::npos);
  EXPECT_NE(page.find("choice-tree"), std::string::npos);
  EXPECT_NE(page.find("The decision tree of the published map"), std::string::npos);
  // Without -o: the map alone; without --choice-map, -o is needed.
  EXPECT_EQ(RunMemstand({"report", "--choice-map", dir + "/cl.json"}).exit_code, 0);
  Outcome no_out = RunMemstand({"report", dir + "/cl.json"});
  EXPECT_EQ(no_out.exit_code, 2) << no_out.output;
  Outcome missing = RunMemstand({"report", "--choice-map", dir + "/missing.json"});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
}

// A scenario result whose field has another type than its readers take ("run": "x") is
// bad input naming the file and the field, for the choice map and the page alike: exit 2,
// no abort from an uncaught nlohmann::json::type_error, no page written.
TEST(ChoiceMapE2E, AFieldOfTheWrongTypeIsBadInputNamingTheFileAndTheField) {
  const std::string dir = TempDir();
  const std::string file = dir + "/rc.json";
  std::ofstream(file) << R"({"format": 1, "scenario": "replication-cost", "runs": 1,
      "cells": [{"run": "x", "system": "redis", "path": "set", "ok": true, "stalled": false}]})";
  const std::string expected = "'" + file + "': field cells[0].run: a string, expected a whole number";
  Outcome map = RunMemstand({"report", "--choice-map", file});
  EXPECT_EQ(map.exit_code, 2) << map.output;
  EXPECT_NE(map.output.find(expected), std::string::npos) << map.output;
  EXPECT_EQ(map.output.find("support: "), std::string::npos) << map.output;  // nothing printed
  Outcome page = RunMemstand({"report", file, "-o", dir + "/page.html"});
  EXPECT_EQ(page.exit_code, 2) << page.output;
  EXPECT_NE(page.output.find(expected), std::string::npos) << page.output;
  EXPECT_FALSE(std::ifstream(dir + "/page.html").good());
}

}  // namespace
}  // namespace memstand::e2e
