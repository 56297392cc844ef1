#include "scenario/output.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "util/redact.h"

namespace memstand {
namespace {

namespace fs = std::filesystem;

std::string NewDir() {
  std::string tmpl = (fs::temp_directory_path() / "memstand-output-test-XXXXXX").string();
  EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
  return tmpl;
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(EvidenceDirTest, TakesOnlyANewOrEmptyFolder) {
  const std::string dir = NewDir();
  EXPECT_TRUE(CheckEvidenceDir(dir + "/new").ok());
  EXPECT_TRUE(CheckEvidenceDir(dir).ok());
  std::ofstream(dir + "/someone-elses-file") << "x";
  EXPECT_FALSE(CheckEvidenceDir(dir).ok());
  EXPECT_FALSE(CheckEvidenceDir(dir + "/someone-elses-file").ok());
  EXPECT_FALSE(CheckEvidenceDir("").ok());
  EXPECT_EQ(Read(dir + "/someone-elses-file"), "x");
  fs::remove_all(dir);
}

TEST(EvidenceTest, WritesTheJsonTablesFilesAndReadme) {
  const std::string dir = NewDir();
  ScenarioReport r;
  r.scenario = "working-set";
  r.runs_made = r.runs_requested = 1;
  r.json["configurations"] = nlohmann::json::array({{{"name", "a"}}});
  r.tables.push_back({"portions", {"configuration", "written"}, {{"a,b", "10"}}});
  r.files["servers/a.conf"] = "--maxmemory 8mb\n";
  ScenarioRunInfo info;
  info.command_line = "memstand scenario run working-set";
  info.started_at = "2026-12-01T00:00:00Z";
  ASSERT_TRUE(WriteEvidence(dir + "/ev", r, info).ok());
  auto j = nlohmann::json::parse(Read(dir + "/ev/scenario.json"));
  EXPECT_EQ(j["scenario"], "working-set");
  EXPECT_EQ(j["format"], kScenarioJsonVersion);
  EXPECT_EQ(j["configurations"][0]["name"], "a");
  EXPECT_EQ(Read(dir + "/ev/portions.csv"), "configuration,written\n\"a,b\",10\n");
  EXPECT_EQ(Read(dir + "/ev/servers/a.conf"), "--maxmemory 8mb\n");
  const std::string readme = Read(dir + "/ev/README.txt");
  EXPECT_NE(readme.find("memstand scenario run working-set"), std::string::npos);
  EXPECT_NE(readme.find(MEMSTAND_VERSION), std::string::npos);
  EXPECT_NE(readme.find("2026-12-01T00:00:00Z"), std::string::npos);
  EXPECT_NE(readme.find("portions.csv  1 rows; columns: configuration, written\n"), std::string::npos) << readme;
  fs::remove_all(dir);
}

// Issue #25 row 26: a password given in --config reaches no output of a scenario.
TEST(EvidenceTest, ASettingsPasswordIsRedactedEverywhere) {
  const char* argv[] = {"memstand", "scenario", "run", "working-set", "--config",
                        "redis requirepass=Zq9EvidencePw name=pw"};
  RegisterArgvSecrets(6, argv);
  const std::string dir = NewDir();
  ScenarioReport r;
  r.scenario = "working-set";
  r.runs_made = r.runs_requested = 1;
  r.configuration_lines = {"pw — redis requirepass=Zq9EvidencePw"};
  r.blocks.push_back({"Results", "    pw: server did not start: requirepass=Zq9EvidencePw\n"});
  r.json["configurations"] = nlohmann::json::array({{{"settings", {{"requirepass", "Zq9EvidencePw"}}}}});
  r.tables.push_back({"configurations", {"name", "settings"}, {{"pw", "requirepass=Zq9EvidencePw"}}});
  r.files["servers/pw.conf"] = "requirepass Zq9EvidencePw\n";
  ScenarioRunInfo info;
  info.command_line = "memstand scenario run working-set --config 'redis requirepass=Zq9EvidencePw'";
  ASSERT_TRUE(WriteEvidence(dir + "/ev", r, info).ok());
  for (const char* file : {"scenario.json", "configurations.csv", "servers/pw.conf", "README.txt"}) {
    const std::string text = Read(dir + "/ev/" + file);
    EXPECT_NE(text.find("***"), std::string::npos) << file << ": " << text;
    EXPECT_EQ(text.find("Zq9EvidencePw"), std::string::npos) << file << ": " << text;
  }
  EXPECT_EQ(ScenarioJson(r, info)["configurations"][0]["settings"]["requirepass"], "***");
  const std::string text_path = dir + "/report.txt";
  std::FILE* out = std::fopen(text_path.c_str(), "w");
  ASSERT_NE(out, nullptr);
  PrintScenarioReport(out, r, info);
  std::fclose(out);
  const std::string text = Read(text_path);
  EXPECT_NE(text.find("pw — redis requirepass=***"), std::string::npos) << text;
  EXPECT_EQ(text.find("Zq9EvidencePw"), std::string::npos) << text;
  fs::remove_all(dir);
}

// A history in the evidence is binary: written byte for byte (its checksums must hold),
// where a text file with the same bytes is redacted.
TEST(EvidenceTest, AHistoryIsWrittenByteForByte) {
  const char* argv[] = {"memstand", "scenario", "run", "working-set", "--config", "redis requirepass=Hb7HistPw"};
  RegisterArgvSecrets(6, argv);
  const std::string dir = NewDir();
  ScenarioReport r;
  r.scenario = "failover";
  r.runs_made = r.runs_requested = 1;
  const char raw[] = "memstand.history\x01\0\0\0requirepass Hb7HistPw\n\xff";
  const std::string bytes(raw, sizeof raw - 1);
  r.files["histories/a.hist"] = bytes;
  r.files["logs/a.log"] = "requirepass Hb7HistPw\n";
  ASSERT_TRUE(WriteEvidence(dir + "/ev", r, ScenarioRunInfo{}).ok());
  EXPECT_EQ(Read(dir + "/ev/histories/a.hist"), bytes);
  EXPECT_EQ(Read(dir + "/ev/logs/a.log").find("Hb7HistPw"), std::string::npos);
  fs::remove_all(dir);
}

// A folder that cannot be made is refused up front, before the scenario runs, and the
// check leaves nothing behind (it makes the folder and removes it).
TEST(EvidenceDirTest, AFolderThatCannotBeMadeIsRefusedUpFront) {
  const std::string dir = NewDir();
  Status s = CheckEvidenceDir("/proc/memstand-ev");
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("--evidence /proc/memstand-ev: ", 0), 0u) << s.message();
  std::ofstream(dir + "/file") << "x";
  s = CheckEvidenceDir(dir + "/file/ev");  // a parent that is a file
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.message();
  EXPECT_TRUE(CheckEvidenceDir(dir + "/a/b/ev").ok());
  EXPECT_FALSE(fs::exists(dir + "/a"));  // the probe's folders are gone
  fs::remove_all(dir);
}

// A write that fails at the end leaves nothing: the folders it made are removed, and in
// a folder given empty, what it wrote. (A file "logs" where logs/ must be a folder
// makes logs/a.log fail after scenario.json and the tables were written.)
TEST(EvidenceTest, AFailedWriteLeavesNothingBehind) {
  const std::string dir = NewDir();
  ScenarioReport r;
  r.scenario = "working-set";
  r.tables.push_back({"portions", {"configuration"}, {{"a"}}});
  r.files["logs"] = "in the way\n";
  r.files["logs/a.log"] = "a log\n";
  ScenarioRunInfo info;
  Status s = WriteEvidence(dir + "/new/ev", r, info);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--evidence"), std::string::npos) << s.message();
  EXPECT_FALSE(fs::exists(dir + "/new"));
  ASSERT_TRUE(fs::create_directory(dir + "/given"));
  EXPECT_FALSE(WriteEvidence(dir + "/given", r, info).ok());
  EXPECT_TRUE(fs::is_directory(dir + "/given"));
  EXPECT_TRUE(fs::is_empty(dir + "/given"));
  fs::remove_all(dir);
}

TEST(WriteFileWholeTest, ReplacesWholeAndLeavesNoTemporaryFile) {
  const std::string dir = NewDir();
  ASSERT_TRUE(WriteFileWhole("--json", dir + "/out.json", "first").ok());
  ASSERT_TRUE(WriteFileWhole("--json", dir + "/out.json", "second").ok());
  EXPECT_EQ(Read(dir + "/out.json"), "second");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  Status s = WriteFileWhole("--json", dir + "/missing/out.json", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("No such file or directory"), std::string::npos) << s.message();
  fs::remove_all(dir);
}

// Two judged load runs, one with a suspect check: the block counts them, names the
// suspect check with its figure and threshold, prints each run's p99 with its interval,
// and the JSON holds both runs whole with the summary; no judged run: no block, a null verdict.
TEST(ScenarioValidityTest, JudgedRunsPrintABlockAndTheJson) {
  auto judged = [](const std::string& label, bool suspect) {
    JudgedRun j;
    j.label = label;
    j.validity.checks.push_back({"rate", "achieved 1000/s of 1000/s", "within 1%", CheckStatus::kPass, ""});
    j.validity.checks.push_back({"stationarity", "last third 41% of the first", "within 10%",
                                 suspect ? CheckStatus::kSuspect : CheckStatus::kPass,
                                 suspect ? "not a steady state" : ""});
    CommandIntervals ci;
    ci.command = "Total";
    ci.n = 1000;
    ci.percentiles.push_back({50, 100'000, 90'000, 110'000, false});
    ci.percentiles.push_back({99, 2'000'000, 1'500'000, 3'000'000, true});
    j.validity.intervals.push_back(ci);
    return j;
  };
  ScenarioReport r;
  r.scenario = "durability-overload";
  r.runs_made = r.runs_requested = 1;
  ScenarioRunInfo info;
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* mem = open_memstream(&buf, &len);
  PrintScenarioReport(mem, r, info);
  std::fclose(mem);
  std::string text(buf, len);
  free(buf);
  EXPECT_EQ(text.find("Validity of the load runs"), std::string::npos);
  EXPECT_TRUE(ScenarioJson(r, info)["validity"]["verdict"].is_null());

  r.judged.push_back(judged("run 1 none SET 100 B random", false));
  r.judged.push_back(judged("run 1 aof-everysec SET 100 B random", true));
  mem = open_memstream(&buf, &len);
  PrintScenarioReport(mem, r, info);
  std::fclose(mem);
  text.assign(buf, len);
  free(buf);
  EXPECT_NE(text.find("] Validity of the load runs' statistics\n    1 of 2 load runs valid, 1 suspect"), std::string::npos)
      << text;
  EXPECT_NE(text.find("run 1 none SET 100 B random          valid    p99 2.000 ms [1.500 .. 3.000*]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("run 1 aof-everysec SET 100 B random  suspect  p99 2.000 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("      - stationarity: last third 41% of the first (passes: within 10%): not a steady state"),
            std::string::npos)
      << text;
  // The block comes before what the result does not show.
  EXPECT_LT(text.find("Validity of the load runs"), text.find("What this result does not show"));
  const nlohmann::json j = ScenarioJson(r, info)["validity"];
  EXPECT_EQ(j["verdict"], "suspect");
  EXPECT_EQ(j["valid"], 1);
  EXPECT_EQ(j["suspect"], 1);
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][1]["label"], "run 1 aof-everysec SET 100 B random");
  EXPECT_EQ(j["runs"][1]["verdict"], "suspect");
  EXPECT_EQ(j["runs"][1]["checks"][1]["status"], "suspect");
  EXPECT_EQ(j["runs"][0]["intervals"][0]["percentiles"][1]["high_us"], 3000.0);
}

}  // namespace
}  // namespace memstand
