// `memstand compare` on real `memstand run --runs 3 --json` documents, and the inputs
// it refuses (exit 2 with the file named).
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"

namespace memstand::e2e {
namespace {

using nlohmann::json;

TEST(CompareE2E, TwoSeriesOfThreeRunsSideBySide) {
  const std::string dir = TempDir();
  for (const char* name : {"a", "b"}) {
    Outcome run = RunMemstand({"run", "--runs", "3", "-n", "3000", "-c", "4", "--json", dir + "/" + name + ".json",
                               "-q"}, 120);
    ASSERT_EQ(run.exit_code, 0) << run.output;
  }
  Outcome out = RunMemstand({"compare", dir + "/a.json", dir + "/b.json", "--json", dir + "/cmp.json"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("3 of 3 run(s) OK (N=3)"), std::string::npos) << out.output;
  EXPECT_EQ(out.output.find("warnings"), std::string::npos) << out.output;  // the same workload, here
  const json a = ReadJson(dir + "/a.json"), cmp = ReadJson(dir + "/cmp.json");
  EXPECT_EQ(cmp["schema"], "memstand.compare");
  EXPECT_EQ(cmp["a"]["n"], 3);
  bool total_ops = false;
  for (const json& f : cmp["figures"]) {
    SCOPED_TRACE(f.dump());
    ASSERT_TRUE(f["a"].is_object() && f["b"].is_object());
    EXPECT_EQ(f["a"]["n"], 3);
    EXPECT_EQ(f["b"]["n"], 3);
    const std::string reading = f["reading"];
    EXPECT_TRUE(reading == "within" || reading == "outside" || reading == "outside_overlapping") << reading;
    if (f["row"] == "Total" && f["key"] == "ops_per_sec") {
      total_ops = true;
      // A's median is the median of its three runs' own figures.
      const json& s = a["summary"]["figures"]["Total"]["ops_per_sec"];
      EXPECT_DOUBLE_EQ(f["a"]["median"].get<double>(), s["median"].get<double>());
      EXPECT_DOUBLE_EQ(f["ratio"].get<double>(), f["b"]["median"].get<double>() / f["a"]["median"].get<double>());
    }
  }
  EXPECT_TRUE(total_ops);
  // The comparison as a page of `memstand report`: its sides, warnings and every figure.
  Outcome page = RunMemstand({"report", dir + "/cmp.json", "-o", dir + "/cmp.html"});
  ASSERT_EQ(page.exit_code, 0) << page.output;
  std::ifstream in(dir + "/cmp.html");
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("Every figure, B / A"), std::string::npos);
  EXPECT_NE(html.find("none: the same workload, platform and versions"), std::string::npos);
  const std::string reading = cmp["figures"][0]["text"];
  EXPECT_NE(html.find(reading), std::string::npos) << reading;
}

TEST(CompareE2E, InputsItRefusesExitTwoNamingTheFile) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/notjson.json") << "{ not json";
  std::ofstream(dir + "/sweep.json") << R"({"schema": "memstand.sweep", "version": 1})";
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"compare", dir + "/notjson.json"}, ""},  // one file: CLI11's own message
      {{"compare", dir + "/missing.json", dir + "/notjson.json"}, dir + "/missing.json: No such file or directory"},
      {{"compare", dir, dir + "/notjson.json"}, dir + ": not a regular file"},
      {{"compare", dir + "/notjson.json", dir + "/sweep.json"}, dir + "/notjson.json: not JSON"},
      {{"compare", dir + "/sweep.json", dir + "/sweep.json"}, "schema 'memstand.sweep': compare takes memstand.run"},
  };
  for (const auto& [args, what] : cases) {
    Outcome out = RunMemstand(args);
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find(what), std::string::npos) << out.output;
  }
}

}  // namespace
}  // namespace memstand::e2e
