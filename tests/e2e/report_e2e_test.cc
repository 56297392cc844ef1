// `memstand report` on the real binary: refused inputs (exit 2, the file named), and a
// page made from real `run --json` output against a redis-server the test starts and
// from real scenario evidence folders, opened in headless Chromium (Debian's
// `chromium`, scripts/deps.sh): no script error, every chart drawn (the page's script
// checks each canvas for pixels of a series' colour and says so in the DOM), and a
// screenshot kept in the build folder (test-artifacts/).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "e2e/chromium_util.h"
#include "e2e/e2e_util.h"
#include "npm_util.h"
#include "test_paths.h"

namespace memstand::e2e {
namespace {

namespace fs = std::filesystem;
using testutil::HaveProgram;
using testutil::ReadFile;
using testutil::RunShell;
using testutil::ShellQuote;

// The folder beside the binary where the browser test leaves its page and screenshot.
std::string ArtifactDir() {
  const std::string dir =
      fs::path(testutil::MemstandBinary()).parent_path().string() + "/test-artifacts";
  fs::create_directories(dir);
  return dir;
}

TEST(ReportE2E, BadInputsExitTwoNamingTheFile) {
  const std::string dir = TempDir();
  {
    std::ofstream(dir + "/bad.json") << "{\"schema\": \"memstand.run\", ";
    std::ofstream(dir + "/memtier.json") << "{\"ALL STATS\": {}}";
  }
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Case& c :
       {Case{{"report", dir + "/bad.json", "-o", dir + "/r.html"}, "bad.json': not valid JSON"},
        Case{{"report", dir + "/memtier.json", "-o", dir + "/r.html"},
             "not a document memstand wrote"},
        Case{{"report", dir + "/none.json", "-o", dir + "/r.html"}, "none.json': no such file"},
        Case{{"report", dir, "-o", dir + "/r.html"}, "a folder without scenario.json"},
        Case{{"report", "-o", dir + "/r.html"}, "inputs is required"},
        Case{{"report", dir + "/bad.json"}, "-o FILE is required"}}) {
    Outcome out = RunMemstand(c.args, 30);
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find(c.says), std::string::npos) << out.output;
  }
  EXPECT_FALSE(fs::exists(dir + "/r.html"));
}

// `memstand ARGS` must exit 0 (bounded by 120 s).
void MadeBy(const std::vector<std::string>& args) {
  Outcome out = RunMemstand(args, 120);
  ASSERT_EQ(out.exit_code, 0) << out.output;
}

TEST(ReportE2E, ChromiumDrawsEveryChartOfRealOutputOfEveryKindWithoutScriptErrors) {
  ASSERT_TRUE(HaveProgram("chromium"))
      << "the report's browser test needs Debian's chromium: scripts/deps.sh";
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  const std::string dir = TempDir();
  const std::string target = "redis://127.0.0.1:" + std::to_string(redis->port());
  const std::string run = dir + "/run.json", open = dir + "/open.json", runs = dir + "/runs.json",
                    sweep = dir + "/sweep.json";
  MadeBy({"run", "--target", target, "--duration", "1s", "--clients", "4", "--json", run, "-q"});
  // Open loop: the send-lag chart too.
  MadeBy({"run", "--target", target, "--duration", "1s", "--clients", "4", "--rate", "2000",
          "--json", open, "-q"});
  MadeBy({"run", "--target", target, "--duration", "1s", "--clients", "4", "--runs", "2", "--json",
          runs, "-q"});
  MadeBy({"sweep", "--target", target, "--duration", "1s", "--sweep-clients", "1,4", "--json",
          sweep, "-q"});
  // working-set at a small size: two 3 MB Redis configurations, 20,000 records (one
  // evicts, one rejects), then 500 zipf reads each (about 3 s).
  MadeBy({"scenario", "run", "working-set", "--records", "20000", "--portion", "2000", "--config",
          "redis maxmemory=3mb maxmemory-policy=allkeys-lru name=lru-3mb", "--config",
          "redis maxmemory=3mb maxmemory-policy=noeviction name=noeviction-3mb", "--only",
          "lru-3mb,noeviction-3mb", "--reads", "zipf", "--read-count", "500", "--read-rate", "5000",
          "--evidence", dir + "/ws", "-q"});
  // compute-locality on Redis alone, 3 reps (about 5 s): ratios and every timed call.
  MadeBy({"scenario", "run", "compute-locality", "--only", "redis", "--reps", "3", "--evidence",
          dir + "/cl", "-q"});
  if (HasFatalFailure()) return;
  const std::string page = ArtifactDir() + "/report.html";
  Outcome rep =
      RunMemstand({"report", run, open, runs, sweep, dir + "/ws", dir + "/cl", "-o", page}, 30);
  ASSERT_EQ(rep.exit_code, 0) << rep.output;
  // A run: throughput, latency per second of SET, GET and Total, percentiles, CPU, RSS
  // (7); the open-loop run the same and its send lag (8); --runs: throughput, p50, p99
  // (3); the sweep: throughput and p99 (2); working-set: one per configuration (2), the
  // writes a second per portion (1), the reads' hit ratio and latency (2);
  // compute-locality: ratios and timed calls (2).
  const std::string html = ReadFile(page);
  EXPECT_NE(html.find("data-charts=\"27\""), std::string::npos);
  EXPECT_NE(html.find("Open loop: latency, service time and send lag"), std::string::npos);

  const testutil::CommandResult dom = Chromium(page, "--dump-dom", dir + "/profile");
  ASSERT_EQ(dom.exit_code, 0) << dom.output.substr(0, 2000);
  EXPECT_EQ(Attribute(dom.output, "data-done"), "1") << dom.output.substr(0, 4000);
  EXPECT_EQ(Attribute(dom.output, "data-rendered"), "27");
  EXPECT_EQ(Attribute(dom.output, "data-drawn"), "27");
  EXPECT_EQ(Errors(dom.output), "");
  EXPECT_EQ(dom.output.find("data-blank"), std::string::npos);

  const std::string shot = ArtifactDir() + "/report.png";
  fs::remove(shot);
  const testutil::CommandResult s = Chromium(page, "--screenshot=" + shot, dir + "/profile");
  EXPECT_EQ(s.exit_code, 0);
  ASSERT_TRUE(fs::exists(shot));
  EXPECT_GT(fs::file_size(shot), 10000u);
}

// The charts of stretched-cache (cost against distance) and durability-overload
// (throughput and runs with errors per cell), from real runs at a small size.
TEST(ReportE2E, ChromiumDrawsTheStretchedCacheAndDurabilityCharts) {
  ASSERT_TRUE(HaveProgram("chromium"))
      << "the report's browser test needs Debian's chromium: scripts/deps.sh";
  const std::string dir = TempDir();
  // Exit 1 when the relay merged the sequential client's two chunks in more than 5% of the
  // (d) operations (a loaded machine): the cell is not valid, the JSON and its charts stand.
  Outcome sc = RunMemstand(
      {"scenario", "run", "stretched-cache", "--ops", "5", "--distances", "2ms", "--json", dir + "/sc.json", "-q"}, 120);
  if (sc.exit_code != 0) {
    ASSERT_EQ(sc.exit_code, 1) << sc.output;
    ASSERT_NE(sc.output.find("sequential client not valid: the serializing relay's"), std::string::npos)
        << sc.output;
  }
  MadeBy({"scenario", "run", "durability-overload", "--masters", "3", "--sizes", "100", "--payload", "random",
          "--cell-duration", "1s", "--runs", "1", "--no-gets", "--no-legacy", "--probe-size", "0", "--json",
          dir + "/do.json", "-q"});
  const std::string page = dir + "/r.html";
  // With the choice map: its rows and its decision tree are tables of the same page.
  Outcome rep = RunMemstand({"report", dir + "/sc.json", dir + "/do.json", "--choice-map", "-o", page}, 30);
  ASSERT_EQ(rep.exit_code, 0) << rep.output;
  // stretched-cache 1; durability-overload: throughput and runs with errors, storage writes,
  // p99, server and client CPU, largest RSS (7).
  EXPECT_NE(ReadFile(page).find("data-charts=\"8\""), std::string::npos);
  const testutil::CommandResult dom = Chromium(page, "--dump-dom", dir + "/profile");
  ASSERT_EQ(dom.exit_code, 0) << dom.output.substr(0, 2000);
  EXPECT_EQ(Attribute(dom.output, "data-done"), "1");
  EXPECT_EQ(Attribute(dom.output, "data-drawn"), "8");
  EXPECT_EQ(Errors(dom.output), "");
  EXPECT_NE(dom.output.find("The decision tree of the published map"), std::string::npos);
  EXPECT_NE(dom.output.find("Picodata (a sharded DBMS built on Tarantool)"), std::string::npos);
  EXPECT_NE(dom.output.find("ms (N=1) (each run"), std::string::npos);
}

// The DOM check can fail: a page whose script throws shows the error where the test
// reads it, and a chart that draws no series pixel is counted as not drawn.
TEST(ReportE2E, ChromiumCheckSeesAScriptErrorAndABlankChart) {
  ASSERT_TRUE(HaveProgram("chromium"))
      << "the report's browser test needs Debian's chromium: scripts/deps.sh";
  const std::string dir = TempDir();
  {
    std::ofstream(dir + "/s.json") << R"({"format": 1, "scenario": "mvcc-quota", "platform": "P",
      "etcd": {"db_size_by_write": [[1, 1048576], [2, 2097152]]}})";
  }
  Outcome rep = RunMemstand({"report", dir + "/s.json", "-o", dir + "/r.html"}, 30);
  ASSERT_EQ(rep.exit_code, 0) << rep.output;
  std::string html = ReadFile(dir + "/r.html");
  // The series' values dropped before uPlot draws (axes, no series), and a script that
  // throws.
  const std::string draw = "new uPlot(o.opts, spec.data, el)";
  ASSERT_NE(html.find(draw), std::string::npos);
  html.replace(html.find(draw), draw.size(),
               "new uPlot(o.opts, spec.data.map(function (c, i) { return i ? c.map(function () { "
               "return null; }) "
               ": c; }), el)");
  html.replace(html.rfind("</body>"), 7, "<script>throw new Error('probe-error')</script></body>");
  { std::ofstream(dir + "/broken.html") << html; }
  const testutil::CommandResult dom =
      Chromium(dir + "/broken.html", "--dump-dom", dir + "/profile");
  ASSERT_EQ(dom.exit_code, 0);
  EXPECT_EQ(Attribute(dom.output, "data-rendered"), "1");
  EXPECT_EQ(Attribute(dom.output, "data-drawn"), "0");
  EXPECT_NE(Errors(dom.output).find("probe-error"), std::string::npos) << Errors(dom.output);
}

}  // namespace
}  // namespace memstand::e2e
