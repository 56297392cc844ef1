// `memstand scenario run durability-overload` on the real binary with the Redis Clusters
// it stands up itself, at a small matrix (3 masters, 100 B and 10 KiB, 1 s cells, one
// run): the matrix rows, error columns, storage bytes, the probe, the durability price,
// the legacy block and the invariant; and a master killed during a cell, reported as
// errors by kind in that cell, the cell counted as failed.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "e2e/chromium_util.h"
#include "e2e/e2e_util.h"

namespace memstand::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const json* FindCell(const json& doc, const std::string& mode, const std::string& op, int64_t size,
                     const std::string& payload) {
  for (const json& c : doc["cells"]) {
    if (c["mode"] == mode && c["op"] == op && c["size"] == size && c["payload"] == payload) return &c;
  }
  return nullptr;
}

// The scenario at 3 masters, 100 B (and `sizes`), random payload, one run, with `flags`
// (no storage probe unless `flags` has --probe-size) and a run root of its own (returned in *root: it must be empty at the end).
std::unique_ptr<Running> StartSmall(const std::string& sizes, std::vector<std::string> flags, std::string* root) {
  *root = TempDir();
  setenv("MEMSTAND_RUN_DIR", root->c_str(), 1);
  std::vector<std::string> args = {"scenario", "run", "durability-overload", "--masters", "3", "--sizes", sizes,
                                   "--payload", "random", "--runs", "1"};
  if (std::find(flags.begin(), flags.end(), "--probe-size") == flags.end()) flags.insert(flags.end(), {"--probe-size", "0"});
  args.insert(args.end(), flags.begin(), flags.end());
  return Running::Start(args);
}

TEST(DurabilityOverloadE2E, SmallMatrixPrintsEveryBlockAndHoldsTheInvariant) {
  const std::string dir = TempDir();
  std::string root;
  auto r = StartSmall("100,10k", {"--cell-duration", "1s", "--probe-size", "4MiB", "--json", dir + "/d.json",
                                  "--evidence", dir + "/ev"}, &root);
  ASSERT_NE(r, nullptr);
  Outcome out = r->Wait(120);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  for (const char* line :
       {"Storage probe", "pass warm-up random  : 1 MiB", "(not counted: it warms",
        "pass 1 random  : 2 MiB", "pass 2 repeated: 2 MiB",
        "repeated / random =", "no errors in 1 run", "errors by kind (summed over the runs): none",
        "The price of durability", "SET   100 B random       aof-everysec:",
        "SET  10 KiB random       aof-everysec:", "expected (N-1)/N = 2/3 = 0.6667",
        "bytes written to storage (read once the AOF buffers were written, ",
        ">= successful SETs x value size", "appendfsync everysec", "cluster-node-timeout 15000",
        "ok (exit code 0)"}) {
    EXPECT_NE(out.output.find(line), std::string::npos) << line << "\n" << out.output;
  }
  json doc = ReadJson(dir + "/d.json");
  EXPECT_EQ(doc["verdict"], "ok");
  EXPECT_EQ(doc["options"]["modes"], json::array({"none", "aof-everysec"}));
  ASSERT_EQ(doc["cells"].size(), 2u * (2 + 2));  // 2 modes x 2 sizes x (SET + GET)
  for (const json& c : doc["cells"]) {
    EXPECT_TRUE(c["ran"].get<bool>()) << c.dump();
    EXPECT_FALSE(c["has_errors"].get<bool>()) << c.dump();
    EXPECT_GT(c["ops"].get<int64_t>(), 0);
    EXPECT_EQ(c["ok_replies"], c["ops"]);
    EXPECT_TRUE(c["errors"].empty());
    EXPECT_GT(c["server_cpu_s"].get<double>(), 0);
    EXPECT_GT(c["rss_max"].get<int64_t>(), 0);
    EXPECT_GE(c["cluster_samples"].get<int>(), 2);
    EXPECT_TRUE(c["cluster_intervals"].empty()) << c.dump();
  }
  for (int64_t size : {100, 10240}) {
    const json* aof = FindCell(doc, "aof-everysec", "SET", size, "random");
    const json* none = FindCell(doc, "none", "SET", size, "random");
    ASSERT_TRUE(aof != nullptr && none != nullptr);
    // AOF writes every value whole; no persistence writes next to nothing.
    EXPECT_GE((*aof)["write_bytes"].get<int64_t>(), (*aof)["ok_replies"].get<int64_t>() * size) << aof->dump();
    EXPECT_EQ((*aof)["invariant"]["ok"], true);
    EXPECT_GE((*aof)["aof_settle_ms"].get<int>(), 0) << aof->dump();  // the buffers were written before the count
    EXPECT_LT((*none)["write_bytes"].get<int64_t>(), (*none)["ok_replies"].get<int64_t>() * size);
    EXPECT_TRUE((*none)["invariant"].is_null());
    const json* get = FindCell(doc, "none", "GET", size, "random");
    ASSERT_NE(get, nullptr);
    EXPECT_GT((*get)["hits"].get<int64_t>(), 0);
    EXPECT_EQ((*get)["hits"].get<int64_t>() + (*get)["misses"].get<int64_t>(), (*get)["ops"].get<int64_t>());
  }
  // Every cell that ran, and the legacy client's, judged: a block and the JSON's validity.
  EXPECT_NE(out.output.find("] Validity of the load runs' statistics\n"), std::string::npos) << out.output;
  ASSERT_EQ(doc["validity"]["runs"].size(), doc["cells"].size() + 1) << doc["validity"].dump();
  EXPECT_EQ(doc["validity"]["valid"].get<int>() + doc["validity"]["suspect"].get<int>(), 9);
  EXPECT_EQ(doc["validity"]["runs"][0]["label"], "run 1 none SET 100 B random");
  EXPECT_EQ(doc["validity"]["runs"][8]["label"], "legacy client");
  for (const json& v : doc["validity"]["runs"]) {
    EXPECT_GE(v["checks"].size(), 10u) << v.dump();
    EXPECT_GT(v["intervals"].back()["samples"].get<int64_t>(), 0) << v.dump();
  }
  ASSERT_EQ(doc["durability_price"].size(), 2u);
  for (const json& p : doc["durability_price"]) {
    EXPECT_GT(p["ratio"].get<double>(), 0);
    EXPECT_EQ(p["n"], 1);
  }
  const json& probe = doc["storage_probe"];
  ASSERT_EQ(probe["passes"].size(), 5u);
  EXPECT_EQ(probe["passes"][0]["warmup"], true);
  EXPECT_EQ(probe["passes"][0]["bytes"], 1 << 20);
  EXPECT_EQ(probe["passes"][1]["warmup"], false);
  EXPECT_EQ(probe["passes"][1]["bytes"], 2 << 20);
  EXPECT_EQ(probe["passes"][1]["fsync_ns"].size(), 2u);
  EXPECT_FALSE(fs::exists(probe["path"].get<std::string>()));
  const json& legacy = doc["legacy"];
  EXPECT_GT(legacy["moved"].get<int64_t>(), 0);
  EXPECT_EQ(legacy["moved"].get<int64_t>() + legacy["ok_replies"].get<int64_t>(), legacy["replies"].get<int64_t>());
  EXPECT_NEAR(legacy["moved_share"].get<double>(), 2.0 / 3, 0.05);
  // The evidence: a CSV row per cell with the error columns, the servers' settings.
  std::ifstream csv(dir + "/ev/cells.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_NE(header.find("clusterdown,moved,tryagain,timeouts,connection_failures,other_errors,unanswered"),
            std::string::npos) << header;
  int rows = 0;
  for (std::string line; std::getline(csv, line);) ++rows;
  EXPECT_EQ(rows, 8);
  EXPECT_TRUE(fs::exists(dir + "/ev/servers/aof-everysec.conf"));
  EXPECT_TRUE(fs::exists(dir + "/ev/storage_probe.csv"));
  EXPECT_TRUE(fs::is_empty(root)) << "a cluster's run folder was left behind";
}

TEST(DurabilityOverloadE2E, AMasterKilledDuringACellIsErrorsByKindAndAFailedCell) {
  const std::string dir = TempDir();
  std::string root;
  auto r = StartSmall("100", {"--cell-duration", "4s", "--no-legacy", "--json", dir + "/d.json"}, &root);
  ASSERT_NE(r, nullptr);
  // Run 1 starts with mode none; its first cell is the SET.
  ASSERT_TRUE(r->WaitForOutput("run 1 none: SET 100 B random for 4 s", 60)) << r->OutputSoFar();
  auto servers = ChildrenNamed(r->pid(), "redis-server");
  ASSERT_EQ(servers.size(), 3u) << r->OutputSoFar();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  const pid_t victim = *std::next(servers.begin());
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  Outcome out = r->Wait(120);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("ERRORS in 1 of 1 run"), std::string::npos) << out.output;
  // Every load connection to the killed master fails: one to four of the four clients'.
  EXPECT_NE(out.output.find("none SET 100 B random: errors in 1 of 1 runs (connection "), std::string::npos)
      << out.output;
  EXPECT_EQ(out.output.find("none GET 100 B random: errors"), std::string::npos) << out.output;
  json doc = ReadJson(dir + "/d.json");
  EXPECT_EQ(doc["verdict"], "failed");
  const json* cell = FindCell(doc, "none", "SET", 100, "random");
  ASSERT_NE(cell, nullptr);
  EXPECT_TRUE((*cell)["has_errors"].get<bool>());
  EXPECT_GE((*cell)["errors"]["connection"].get<int>(), 1) << cell->dump();
  EXPECT_LE((*cell)["errors"]["connection"].get<int>(), 4) << cell->dump();
  EXPECT_FALSE((*cell)["first_error"].get<std::string>().empty());
  // The watcher saw the killed node stop answering.
  bool silent = false;
  for (const json& i : (*cell)["cluster_intervals"]) silent |= i["what"].get<std::string>().ends_with(" no answer");
  EXPECT_TRUE(silent) << cell->dump();
  // The rest of that mode did not run on a broken cluster; the next mode got a fresh one.
  const json* get = FindCell(doc, "none", "GET", 100, "random");
  ASSERT_NE(get, nullptr);
  EXPECT_NE((*get)["not_run"].get<std::string>().find("is gone"), std::string::npos) << get->dump();
  EXPECT_TRUE((*get)["skipped"].get<bool>());
  EXPECT_FALSE((*get)["has_errors"].get<bool>());
  const json* aof = FindCell(doc, "aof-everysec", "SET", 100, "random");
  ASSERT_NE(aof, nullptr);
  EXPECT_FALSE((*aof)["has_errors"].get<bool>()) << aof->dump();
  EXPECT_EQ((*aof)["invariant"]["ok"], true);
  ASSERT_FALSE(doc["mode_failures"].empty());
  EXPECT_TRUE(AllGone(servers, 10));
  EXPECT_TRUE(fs::is_empty(root)) << "a cluster's run folder was left behind";
}

// A master that stops answering (SIGSTOP, as a node blocked in fsync would) for longer
// than cluster-node-timeout: the others flag it fail and their cluster_state goes fail;
// the stall shows in the cell's latency, the states in its intervals. Whether the load
// also draws CLUSTERDOWN is a race: with pipeline 1 every client soon waits on the
// stalled master, and only a request that reaches a healthy master after the stall ends
// but before that master hears from the stalled one again gets CLUSTERDOWN (a CI run saw
// none). So: any error must be CLUSTERDOWN, counted in the row by kind, and the exit code
// follows the errors.
TEST(DurabilityOverloadE2E, AStalledMasterIsFlaggedFailAndItsCellGetsClusterdown) {
  const std::string dir = TempDir();
  std::string root;
  auto r = StartSmall("100", {"--cell-duration", "5s", "--node-timeout", "500ms", "--no-gets", "--no-legacy",
                              "--json", dir + "/d.json"}, &root);
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->WaitForOutput("run 1 none: SET 100 B random for 5 s", 60)) << r->OutputSoFar();
  auto servers = ChildrenNamed(r->pid(), "redis-server");
  ASSERT_EQ(servers.size(), 3u) << r->OutputSoFar();
  const pid_t stalled = *std::next(servers.begin());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_EQ(kill(stalled, SIGSTOP), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(3000));
  kill(stalled, SIGCONT);
  Outcome out = r->Wait(120);
  json doc = ReadJson(dir + "/d.json");
  const json* cell = FindCell(doc, "none", "SET", 100, "random");
  ASSERT_NE(cell, nullptr);
  // Requests in flight at the SIGSTOP waited out the 3-s stall.
  EXPECT_GE((*cell)["max_ns"].get<int64_t>(), 2'000'000'000) << cell->dump();
  const int64_t clusterdown = (*cell)["errors"].value("CLUSTERDOWN", int64_t{0});
  for (const auto& [kind, n] : (*cell)["errors"].items()) EXPECT_EQ(kind, "CLUSTERDOWN") << cell->dump();
  EXPECT_EQ((*cell)["has_errors"].get<bool>(), clusterdown > 0) << cell->dump();
  EXPECT_EQ(out.exit_code, clusterdown > 0 ? 1 : 0) << out.output;
  if (clusterdown > 0) {
    EXPECT_NE(out.output.find(fmt::format("(CLUSTERDOWN {})", clusterdown)), std::string::npos) << out.output;
  }
  // A cell with a 3-s stall in its 5 s is no steady state: its statistics are judged suspect.
  bool judged = false;
  for (const json& v : doc["validity"]["runs"]) {
    if (v["label"] != "run 1 none SET 100 B random") continue;
    judged = true;
    EXPECT_EQ(v["verdict"], "suspect") << v.dump();
  }
  EXPECT_TRUE(judged) << doc["validity"].dump();
  EXPECT_EQ(doc["validity"]["verdict"], "suspect");
  std::set<std::string> seen;
  for (const json& i : (*cell)["cluster_intervals"]) {
    const std::string what = i["what"];
    seen.insert(what.substr(what.find(' ') + 1));
    EXPECT_GT(i["to_s"].get<double>(), i["from_s"].get<double>()) << i.dump();
  }
  EXPECT_EQ(seen.count("fail"), 1u) << cell->dump();
  EXPECT_EQ(seen.count("cluster_state:fail"), 1u) << cell->dump();
  EXPECT_EQ(seen.count("no answer"), 1u) << cell->dump();
  EXPECT_NE(out.output.find(" fail from "), std::string::npos) << out.output;
  // The report page charts those intervals on the cluster's timeline, and Chromium draws
  // all eight charts (throughput, runs with errors, storage writes, p99, server and client
  // CPU, largest RSS, the timeline).
  const std::string page = dir + "/r.html";
  Outcome rep = RunMemstand({"report", dir + "/d.json", "-o", page}, 30);
  ASSERT_EQ(rep.exit_code, 0) << rep.output;
  EXPECT_NE(testutil::ReadFile(page).find("the cluster's state over time"), std::string::npos);
  if (testutil::HaveProgram("chromium")) {
    const testutil::CommandResult dom = Chromium(page, "--dump-dom", dir + "/profile");
    ASSERT_EQ(dom.exit_code, 0) << dom.output.substr(0, 2000);
    EXPECT_EQ(Attribute(dom.output, "data-done"), "1");
    EXPECT_EQ(Attribute(dom.output, "data-drawn"), "8");
    EXPECT_EQ(Errors(dom.output), "");
  } else {
    ADD_FAILURE() << "the report's browser check needs Debian's chromium: scripts/deps.sh --test";
  }
  // The next mode's fresh cluster is clean.
  const json* aof = FindCell(doc, "aof-everysec", "SET", 100, "random");
  ASSERT_NE(aof, nullptr);
  EXPECT_FALSE((*aof)["has_errors"].get<bool>()) << aof->dump();
  EXPECT_TRUE(fs::is_empty(root)) << "a cluster's run folder was left behind";
}

TEST(DurabilityOverloadE2E, SigintStopsEveryClusterAndWritesTheCellsSoFar) {
  const std::string dir = TempDir();
  std::string root;
  auto r = StartSmall("100,10k", {"--cell-duration", "2s", "--json", dir + "/d.json"}, &root);
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->WaitForOutput("run 1 none: GET 100 B random for 2 s", 60)) << r->OutputSoFar();
  auto servers = ChildrenNamed(r->pid(), "redis-server");
  ASSERT_EQ(servers.size(), 3u) << r->OutputSoFar();
  kill(r->pid(), SIGINT);
  Outcome out = r->Wait(60);
  EXPECT_EQ(out.exit_code, 130) << out.output;
  json doc = ReadJson(dir + "/d.json");
  EXPECT_EQ(doc["verdict"], "interrupted");
  const json* set = FindCell(doc, "none", "SET", 100, "random");
  ASSERT_NE(set, nullptr);
  EXPECT_FALSE((*set)["has_errors"].get<bool>()) << set->dump();
  EXPECT_EQ(FindCell(doc, "aof-everysec", "SET", 100, "random"), nullptr);
  EXPECT_TRUE(AllGone(servers, 10));
  EXPECT_TRUE(fs::is_empty(root)) << "a cluster's run folder was left behind";
}

// The published study's controls by flag, at a small size: two load threads, a key count
// given outright, memtier's near-constant pattern beside a compressible payload of 100x.
TEST(DurabilityOverloadE2E, ThreadsKeysAndPayloadsOfThePublishedStudyReachTheCells) {
  const std::string dir = TempDir();
  const std::string root = TempDir();
  setenv("MEMSTAND_RUN_DIR", root.c_str(), 1);
  auto r = Running::Start({"scenario", "run", "durability-overload", "--masters", "3", "--sizes", "100", "--payload",
                           "pattern,compressible", "--compress-ratio", "1000", "--threads", "2", "--clients", "4",
                           "--replicas", "1",
                           "--keys", "500", "--cell-duration", "1s", "--runs", "1", "--no-gets", "--no-legacy",
                           "--probe-size", "0", "--json", dir + "/d.json"});
  ASSERT_NE(r, nullptr);
  Outcome out = r->Wait(120);
  unsetenv("MEMSTAND_RUN_DIR");
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("2 thread(s), 4 clients"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("keys do:<size>:1..500 (--keys)"), std::string::npos) << out.output;
  json doc = ReadJson(dir + "/d.json");
  EXPECT_EQ(doc["options"]["threads"], 2);
  EXPECT_EQ(doc["options"]["keys"], 500);
  EXPECT_EQ(doc["options"]["compress_ratio"], 1000.0);
  EXPECT_EQ(doc["options"]["replicas"], 1);
  // Block [1]: every mode's cluster has 3 masters with a replica each, 6 nodes and ports.
  for (const char* mode : {"none", "aof-everysec"}) {
    const std::string head = std::string(mode) + " (run 1): 3 masters with 1 replica each, ";
    const size_t at = out.output.find(head);
    ASSERT_NE(at, std::string::npos) << head << out.output;
    const std::string line = out.output.substr(at, out.output.find('\n', at) - at);
    const std::string ports = line.substr(line.find(" ports ") + 7);
    EXPECT_EQ(std::count(ports.begin(), ports.begin() + ports.find(' '), ','), 5) << line;
  }
  for (const char* payload : {"pattern", "compressible"}) {
    for (const char* mode : {"none", "aof-everysec"}) {
      const json* c = FindCell(doc, mode, "SET", 100, payload);
      ASSERT_NE(c, nullptr) << mode << " " << payload;
      EXPECT_TRUE((*c)["ran"].get<bool>()) << c->dump();
      EXPECT_EQ((*c)["keys"], 500);
      EXPECT_GT((*c)["ops"].get<int64_t>(), 0);
      EXPECT_EQ((*c)["ok_replies"], (*c)["ops"]);
    }
  }
  EXPECT_TRUE(fs::is_empty(root)) << "a cluster's run folder was left behind";
}

TEST(DurabilityOverloadE2E, BadListsAreUsageErrors) {
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"--sizes", "100,100"}, {"--payload", "constant"}, {"--fsync", "sometimes"},
        {"--masters", "2"}, {"--cell-duration", "0s"}, {"--node-timeout", "abc"}, {"--probe-size", "1k"},
        {"--threads", "5"}, {"--compress-ratio", "0.5"}, {"--keys", "200000000"}, {"--data-bytes", "0"}, {"--replicas", "4"}}) {
    std::vector<std::string> args = {"scenario", "run", "durability-overload"};
    args.insert(args.end(), flags.begin(), flags.end());
    Outcome out = RunMemstand(args, 30);
    EXPECT_EQ(out.exit_code, 2) << flags[0] << " " << flags[1] << "\n" << out.output;
    EXPECT_NE(out.output.find(flags[0]), std::string::npos) << out.output;
  }
}

}  // namespace
}  // namespace memstand::e2e
