// `memstand scenario` on the real binary against the real servers it stands up itself:
// outcomes, invariants, ranges over runs, the evidence folder, missing servers, a
// server killed mid-scenario, SIGINT, and memstand killed with its servers running.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <tuple>

#include <gtest/gtest.h>

#include "core/cpu_set.h"
#include "e2e/e2e_util.h"

namespace memstand::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const json& Config(const json& doc, const std::string& name) {
  for (const json& c : doc["configurations"]) {
    if (c["name"] == name) return c;
  }
  static const json kNone;
  ADD_FAILURE() << "no configuration " << name;
  return kNone;
}

void ExpectInvariantsOk(const json& run) {
  ASSERT_FALSE(run["invariants"].empty());
  for (const json& i : run["invariants"]) {
    EXPECT_TRUE(i["ok"].get<bool>()) << i.dump();
    EXPECT_EQ(i["lhs_value"], i["rhs_value"]) << i.dump();
  }
}

TEST(ScenarioE2E, ListNamesEachScenarioAndWhetherItsServersAreInstalled) {
  Outcome out = RunMemstand({"scenario", "list"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("working-set"), std::string::npos);
  EXPECT_NE(out.output.find("mvcc-quota"), std::string::npos);
  EXPECT_NE(out.output.find("redis: installed"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("postgresql: installed (initdb, postgres)"), std::string::npos) << out.output;
  Outcome help = RunMemstand({"scenario", "run", "working-set", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("--portion"), std::string::npos) << help.output;
  Outcome unknown = RunMemstand({"scenario", "run", "no-such-scenario"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
}

// A scenario's question is one text: the JSON's, the report's first line, `scenario list`'s
// and the first line of the subcommand's --help.
TEST(ScenarioE2E, TheQuestionIsTheSameEverywhereItIsShown) {
  const std::string dir = TempDir();
  Outcome out = RunMemstand({"scenario", "run", "compute-locality", "--only", "redis", "--reps", "1",
                             "--no-swap-order", "--top", "3", "--json", dir + "/cl.json", "-q"}, 120);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const std::string question = ReadJson(dir + "/cl.json")["question"];
  ASSERT_FALSE(question.empty());
  EXPECT_EQ(out.output.find("memstand scenario compute-locality — " + question + "\n"), 0u) << out.output;
  Outcome list = RunMemstand({"scenario", "list"});
  EXPECT_NE(list.output.find("compute-locality\n  " + question + "\n"), std::string::npos) << list.output;
  Outcome help = RunMemstand({"scenario", "run", "compute-locality", "--help"});
  EXPECT_EQ(help.output.find(question + "\n"), 0u) << help.output;
}

// By default, on a machine with more than one CPU, the client runs on the last one and the
// servers on the others; the report says where each ran, read back from the kernel.
// --client-cpus none --server-cpus none pins nothing, and the report says that too.
// Every scenario places and reports them alike (block [1]): working-set at a size of
// seconds, two servers, stands for them (compute-locality's fixed 200,000-record load
// took 24 s a run here).
TEST(ScenarioE2E, TheReportSaysWhichCpusTheClientAndEachServerRanOn) {
  auto usable = ThisThreadCpus();
  ASSERT_TRUE(usable.ok());
  if (usable->size() < 2) GTEST_SKIP() << "one CPU: nothing to keep apart";
  const CpuList client = {usable->back()};
  const CpuList servers(usable->begin(), usable->end() - 1);
  const std::string dir = TempDir();
  const std::vector<std::string> args = {"scenario", "run", "working-set", "--only", "redis-noeviction,memcached-8m",
                                         "--records", "1000", "--portion", "1000", "-q"};
  std::vector<std::string> pinned = args;
  pinned.insert(pinned.end(), {"--json", dir + "/pinned.json"});
  Outcome out = RunMemstand(pinned, 120);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("    CPUs (read back from the kernel): client " + CpuListText(client) + " (pinned); servers " +
                            CpuListText(servers) + " (pinned): "),
            std::string::npos)
      << out.output;
  json doc = ReadJson(dir + "/pinned.json");
  EXPECT_EQ(doc["cpus"]["client"].get<CpuList>(), client);
  EXPECT_EQ(doc["cpus"]["client_pinned"], true);
  EXPECT_EQ(doc["cpus"]["servers_pinned"], true);
  ASSERT_EQ(doc["cpus"]["servers"].size(), 2u) << doc["cpus"].dump();
  for (const json& s : doc["cpus"]["servers"]) {
    EXPECT_FALSE(s["name"].get<std::string>().empty());
    EXPECT_EQ(s["cpus"].get<CpuList>(), servers) << s.dump();
  }

  std::vector<std::string> loose = args;
  loose.insert(loose.end(), {"--client-cpus", "none", "--server-cpus", "none", "--json", dir + "/loose.json"});
  out = RunMemstand(loose, 120);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("client " + CpuListText(*usable) + " (not pinned); servers " + CpuListText(*usable) +
                            " (not pinned): "),
            std::string::npos)
      << out.output;
  doc = ReadJson(dir + "/loose.json");
  EXPECT_EQ(doc["cpus"]["client"].get<CpuList>(), *usable);
  EXPECT_EQ(doc["cpus"]["client_pinned"], false);
  ASSERT_EQ(doc["cpus"]["servers"].size(), 2u) << doc["cpus"].dump();
  for (const json& s : doc["cpus"]["servers"]) EXPECT_EQ(s["cpus"].get<CpuList>(), *usable) << s.dump();

  for (const auto& [flag, value, says] :
       {std::tuple{"--client-cpus", "0-", "--client-cpus: bad CPU list '0-'"},
        std::tuple{"--server-cpus", "1023", "--server-cpus 1023: CPU 1023 is not online on this machine"}}) {
    Outcome bad = RunMemstand({"scenario", "run", "compute-locality", "--only", "redis", flag, value}, 30);
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_NE(bad.output.find(says), std::string::npos) << bad.output;
  }
}

// The full size of docs/scenarios.md for the Redis configurations: 200,000 records, 8mb.
TEST(ScenarioE2E, WorkingSetRedisFullSizeEvictsOrRejectsWithInvariantsChecked) {
  const std::string dir = TempDir();
  Outcome out = RunMemstand({"scenario", "run", "working-set", "--only", "redis-allkeys-lru,redis-noeviction",
                             "--json", dir + "/ws.json", "-q"}, 240);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("first eviction detected in ("), std::string::npos) << out.output;
  json doc = ReadJson(dir + "/ws.json");
  EXPECT_EQ(doc["scenario"], "working-set");
  EXPECT_EQ(doc["runs"], 1);
  EXPECT_EQ(doc["records"], 200000);
  const json& lru = Config(doc, "redis-allkeys-lru");
  EXPECT_EQ(lru["outcome"], "evicts");
  const json& lru_run = lru["runs"][0];
  ExpectInvariantsOk(lru_run);
  EXPECT_EQ(lru_run["attempted"], 200000);
  EXPECT_EQ(lru_run["successful"], 200000);
  EXPECT_GT(lru_run["evicted"].get<int64_t>(), 0);
  EXPECT_EQ(lru_run["present"].get<int64_t>(), 200000 - lru_run["evicted"].get<int64_t>());
  // The exact write lies inside the detected portion interval.
  const int64_t low = lru_run["detected_in"][0], high = lru_run["detected_in"][1];
  EXPECT_EQ(high - low, 10000);
  ASSERT_TRUE(lru_run["exact_point"].is_number()) << lru_run.dump();
  EXPECT_GT(lru_run["exact_point"].get<int64_t>(), low);
  EXPECT_LE(lru_run["exact_point"].get<int64_t>(), high);
  const json& noev = Config(doc, "redis-noeviction");
  EXPECT_EQ(noev["outcome"], "rejects");
  const json& noev_run = noev["runs"][0];
  ExpectInvariantsOk(noev_run);
  EXPECT_EQ(noev_run["evicted"], 0);
  EXPECT_EQ(noev_run["successful"].get<int64_t>() + noev_run["rejected"].get<int64_t>(), 200000);
  EXPECT_NE(noev_run["first_error"].get<std::string>().find("OOM"), std::string::npos);
  const int64_t first = noev_run["first_rejected_write"];
  EXPECT_GT(first, noev_run["detected_in"][0].get<int64_t>());
  EXPECT_LE(first, noev_run["detected_in"][1].get<int64_t>());
  // Every write before the first rejection was stored (later writes may be stored again
  // as memory moves: rejections under noeviction are not monotone).
  EXPECT_GE(noev_run["present"].get<int64_t>(), first - 1);
}

// Tarantool at full size (memtx rejects past 32 MiB; vinyl keeps all 200,000).
TEST(ScenarioE2E, WorkingSetTarantoolMemtxRejectsAndVinylKeepsAll) {
  const std::string dir = TempDir();
  Outcome out = RunMemstand({"scenario", "run", "working-set", "--only", "tarantool-memtx,tarantool-vinyl",
                             "--json", dir + "/ws.json", "-q"}, 300);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  json doc = ReadJson(dir + "/ws.json");
  const json& memtx = Config(doc, "tarantool-memtx");
  EXPECT_EQ(memtx["outcome"], "rejects");
  ExpectInvariantsOk(memtx["runs"][0]);
  EXPECT_NE(memtx["runs"][0]["first_error"].get<std::string>().find("Failed to allocate"), std::string::npos);
  const json& vinyl = Config(doc, "tarantool-vinyl");
  EXPECT_EQ(vinyl["outcome"], "keeps all");
  ExpectInvariantsOk(vinyl["runs"][0]);
  EXPECT_EQ(vinyl["runs"][0]["present"], 200000);
  EXPECT_EQ(vinyl["runs"][0]["invariants"].size(), 3u);
}

// --no-exact: the exact eviction point (one write at a time on a fresh server, the counters
// read after each) is WorkingSetRedisFullSize's to assert; here its 4 repeats took 34 of
// the run's 44 s and nothing below looks at them.
TEST(ScenarioE2E, RunsGiveRangesWithTheirNAndTheEvidenceFolder) {
  const std::string dir = TempDir();
  const std::string evidence = dir + "/evidence";
  Outcome out = RunMemstand({"scenario", "run", "working-set", "--only", "redis-allkeys-lru,memcached-8m",
                             "--records", "50000", "--portion", "5000", "--runs", "2", "--seed", "7", "--no-exact",
                             "--json", dir + "/ws.json", "--evidence", evidence, "-q"}, 240);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("(min median max, N=2)"), std::string::npos) << out.output;
  json doc = ReadJson(dir + "/ws.json");
  EXPECT_EQ(doc["runs"], 2);
  for (const char* name : {"redis-allkeys-lru", "memcached-8m"}) {
    const json& c = Config(doc, name);
    EXPECT_EQ(c["outcome"], "evicts");
    ASSERT_EQ(c["runs"].size(), 2u);
    for (const json& run : c["runs"]) ExpectInvariantsOk(run);
    EXPECT_EQ(c["summary"]["evicted"]["n"], 2);
    EXPECT_EQ(c["failed_runs"], 0);
  }
  for (const char* f : {"scenario.json", "configurations.csv", "portions.csv", "invariants.csv", "README.txt",
                        "servers/redis-allkeys-lru.conf", "servers/memcached-8m.conf",
                        "logs/redis-allkeys-lru-run2.log"}) {
    EXPECT_TRUE(fs::exists(evidence + "/" + f)) << f;
  }
  std::ifstream csv(evidence + "/configurations.csv");
  int lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  EXPECT_EQ(lines, 1 + 2 * 2);  // header + 2 configurations x 2 runs
  std::ifstream conf(evidence + "/servers/redis-allkeys-lru.conf");
  std::string text((std::istreambuf_iterator<char>(conf)), {});
  EXPECT_NE(text.find("maxmemory-policy"), std::string::npos) << text;
  json ev = ReadJson(evidence + "/scenario.json");
  EXPECT_EQ(ev["runs"], 2);
  EXPECT_NE(ev["command_line"].get<std::string>().find("scenario run working-set --only redis-allkeys-lru,memcached-8m"),
            std::string::npos) << ev["command_line"];
  // An evidence folder that is not empty is refused before anything runs.
  Outcome again = RunMemstand({"scenario", "run", "working-set", "--evidence", evidence}, 30);
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_NE(again.output.find("not empty"), std::string::npos);
}

TEST(ScenarioE2E, AMissingServerIsARowSayingSoAndThePartialExitCode) {
  const std::string bin = TempDir();
  for (const char* prog : {"redis-server", "memcached"}) {
    auto path = FindExecutable(prog);
    ASSERT_TRUE(path.ok());
    fs::create_symlink(*path, bin + "/" + prog);
  }
  const std::string saved = std::getenv("PATH");
  setenv("PATH", bin.c_str(), 1);
  Outcome out = RunMemstand({"scenario", "run", "working-set", "--only", "redis-allkeys-lru,tarantool-memtx",
                             "--records", "20000", "--portion", "5000", "-q"}, 120);
  setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(out.exit_code, 3) << out.output;
  EXPECT_NE(out.output.find("not run: tarantool is not installed (apt-get install tarantool)"), std::string::npos)
      << out.output;
  EXPECT_NE(out.output.find("redis-allkeys-lru run 1: present == successful - evicted"), std::string::npos);
  EXPECT_NE(out.output.find("partial (exit code 3)"), std::string::npos);
}

// 20,000 records one at a time (--pipeline 1) keep Redis loading for seconds, long past the
// kill 200 ms into its row; memcached then loads the same 20,000 (the full 200,000 one at a
// time took it about 40 s).
TEST(ScenarioE2E, AServerKilledMidScenarioEndsItsRowWithTheReason) {
  auto r = Running::Start({"scenario", "run", "working-set", "--only", "redis-allkeys-lru,memcached-8m",
                           "--records", "20000", "--portion", "2000", "--pipeline", "1"});
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->WaitForOutput("run 1: redis-allkeys-lru", 60)) << r->OutputSoFar();
  auto redis = ChildrenNamed(r->pid(), "redis-server");
  ASSERT_EQ(redis.size(), 1u) << r->OutputSoFar();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(*redis.begin(), SIGKILL);
  Outcome out = r->Wait(120);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("FAILED"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("memcached-8m run 1: present == successful - evicted"), std::string::npos)
      << out.output;
}

// 40,000 records: Redis's row completes (evicting past its 8 MB) before the signal, which
// comes as memcached's row starts, seconds before that row could end.
TEST(ScenarioE2E, SigintWritesTheEvidenceSoFarMarkedPartial) {
  const std::string dir = TempDir();
  auto r = Running::Start({"scenario", "run", "working-set", "--only", "redis-allkeys-lru,memcached-8m",
                           "--records", "40000", "--portion", "5000", "--evidence", dir + "/ev", "--json",
                           dir + "/ws.json"});
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->WaitForOutput("run 1: memcached-8m", 120)) << r->OutputSoFar();
  auto servers = ChildrenNamed(r->pid(), "memcached");
  kill(r->pid(), SIGINT);
  Outcome out = r->Wait(60);
  EXPECT_EQ(out.exit_code, 130) << out.output;
  json doc = ReadJson(dir + "/ev/scenario.json");
  EXPECT_EQ(doc["verdict"], "interrupted");
  EXPECT_EQ(doc["partial"], true);
  EXPECT_EQ(ReadJson(dir + "/ws.json")["verdict"], "interrupted");
  // The configuration that completed before the signal is in it, checked.
  ExpectInvariantsOk(Config(doc, "redis-allkeys-lru")["runs"][0]);
  EXPECT_TRUE(AllGone(servers, 10));
}

TEST(ScenarioE2E, ServersDieWithAMemstandThatIsKilled) {
  // A run root of its own: a scenario of another test running in parallel would clean
  // the killed one's folders first.
  const std::string root = TempDir();
  setenv("MEMSTAND_RUN_DIR", root.c_str(), 1);
  auto r = Running::Start({"scenario", "run", "working-set", "--only", "redis-allkeys-lru,redis-noeviction"});
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->WaitForOutput("run 1: redis-allkeys-lru", 60)) << r->OutputSoFar();
  auto servers = ChildrenNamed(r->pid(), "redis-server");
  ASSERT_EQ(servers.size(), 2u);
  const pid_t killed = r->pid();
  kill(killed, SIGKILL);
  r->Wait(30);
  EXPECT_TRUE(AllGone(servers, 10)) << "a server outlived the memstand that started it";
  // The next scenario removes the run folders the killed one left.
  Outcome next = RunMemstand({"scenario", "run", "working-set", "--only", "redis-noeviction", "--records", "1000",
                              "--portion", "1000", "-q"}, 60);
  EXPECT_EQ(next.exit_code, 0) << next.output;
  unsetenv("MEMSTAND_RUN_DIR");
  EXPECT_NE(next.output.find("of a killed scenario (pid " + std::to_string(killed) + ")"), std::string::npos)
      << next.output;
  EXPECT_TRUE(fs::is_empty(root)) << "a run folder was left";
}

TEST(ScenarioE2E, MvccQuotaFailsAtTheQuotaRecoversAndComparesWithRedis) {
  const std::string dir = TempDir();
  RunDirInMemory in_memory;  // etcd syncs each put
  // Scaled down: 8 MiB of quota fills within 20,000 writes of 1 KiB over 1,000 keys.
  Outcome out = RunMemstand({"scenario", "run", "mvcc-quota", "--quota", "8MiB", "--keys", "1000",
                             "--writes", "20000", "--portion", "500", "--json", dir + "/m.json", "-q"}, 240);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("specific to this profile and quota"), std::string::npos) << out.output;
  json doc = ReadJson(dir + "/m.json");
  const json& etcd = doc["etcd"];
  ASSERT_TRUE(etcd["first_failed_write"].is_number()) << doc.dump(2);
  const int64_t first = etcd["first_failed_write"];
  EXPECT_GT(first, 1);
  EXPECT_LE(first, 20000);
  EXPECT_EQ(etcd["successful"].get<int64_t>(), first - 1);
  EXPECT_EQ(etcd["error"], "etcdserver: mvcc: database space exceeded");
  EXPECT_EQ(etcd["alarm"], "NOSPACE");
  EXPECT_GE(etcd["db_size_at_failure"].get<int64_t>(), int64_t{8} << 20);
  EXPECT_LT(etcd["db_size_after_recovery"].get<int64_t>(), etcd["db_size_at_failure"].get<int64_t>());
  EXPECT_EQ(etcd["canary_ok"], true);
  EXPECT_EQ(doc["redis"]["successful"], 20000);
  EXPECT_EQ(doc["redis"]["errors"], 0);
  EXPECT_GT(doc["redis"]["used_memory_delta"].get<int64_t>(), 0);
  EXPECT_GT(doc["ratio"].get<double>(), 1.0);
  for (const json& i : doc["runs_detail"][0]["invariants"]) EXPECT_TRUE(i["ok"].get<bool>()) << i.dump();
  // The choice map's etcd row says the quota this run had, not etcd's default or a constant.
  Outcome map = RunMemstand({"report", "--choice-map", dir + "/m.json"});
  ASSERT_EQ(map.exit_code, 0) << map.output;
  EXPECT_NE(map.output.find("  etcd with a quota of 8 MiB (the scenario's --quota; etcd's own default is 2 GiB)\n"),
            std::string::npos)
      << map.output;
  EXPECT_NE(map.output.find("writes fail from write " + std::to_string(first) + " (N=1)"), std::string::npos)
      << map.output;
}

// --writers 1,4 and --rate: each setting a configuration of its own on a fresh server,
// its failure point and the throughput of every portion; the first rejected write exact
// with one writer only.
TEST(ScenarioE2E, WorkingSetWritersSettingsEachHaveTheirFailurePointAndPortionThroughput) {
  const std::string dir = TempDir();
  Outcome out = RunMemstand({"scenario", "run", "working-set", "--only", "redis-noeviction", "--writers", "1,4",
                             "--rate", "20000", "--records", "40000", "--portion", "5000", "--json",
                             dir + "/ws.json", "--evidence", dir + "/ev"},
                            240);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("Failure point per setting"), std::string::npos) << out.output;
  json doc = ReadJson(dir + "/ws.json");
  EXPECT_EQ(doc["writers"], json({1, 4}));
  EXPECT_EQ(doc["rate"], 20000.0);
  for (const auto& [name, writers] : {std::pair{"redis-noeviction-w1", 1}, std::pair{"redis-noeviction-w4", 4}}) {
    SCOPED_TRACE(name);
    const json& c = Config(doc, name);
    EXPECT_EQ(c["writers"], writers);
    EXPECT_EQ(c["outcome"], "rejects");
    ASSERT_EQ(c["runs"].size(), 1u);
    const json& run = c["runs"][0];
    ExpectInvariantsOk(run);
    EXPECT_EQ(run["attempted"], 40000);
    ASSERT_EQ(run["portions"].size(), 8u);
    for (const json& p : run["portions"]) {
      EXPECT_GT(p["seconds"].get<double>(), 0) << p.dump();
      EXPECT_GT(p["writes_per_s"].get<double>(), 0) << p.dump();
    }
    if (writers == 1) {
      EXPECT_EQ(run["exact_point"], run["first_rejected_write"]);
    } else {
      EXPECT_TRUE(run["exact_point"].is_null()) << run.dump();
      EXPECT_TRUE(run["first_rejected_write"].is_number());
    }
  }
  EXPECT_NE(out.output.find("(the order of the replies of 4 writers, not exact)"), std::string::npos) << out.output;
  std::ifstream csv(dir + "/ev/portions.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_NE(header.find("seconds,writes_per_s"), std::string::npos) << header;
}

// --reads zipf at a small size on every default configuration (Redis and memcached past
// their 8 MB, so some reads miss): per configuration the reads add up (hits + misses, the
// hit and miss histograms' N, vinyl's memory and disk N), the hit ratio is within [0, 1],
// and the server's own hit and miss counters are the replies' (memtx: its SELECTs are the
// reads). Counts only: no timing is asserted.
TEST(ScenarioE2E, WorkingSetReadsZipfCountsAgreeWithTheServersCounters) {
  const std::string dir = TempDir();
  Outcome out = RunMemstand({"scenario", "run", "working-set", "--records", "60000", "--portion", "10000",
                             "--no-exact", "--reads", "zipf", "--read-count", "3000", "--read-rate", "4000",
                             "--json", dir + "/ws.json", "--evidence", dir + "/ev", "-q"},
                            300);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("Reads after the load"), std::string::npos) << out.output;
  json doc = ReadJson(dir + "/ws.json");
  EXPECT_EQ(doc["reads"]["distribution"], "zipf");
  EXPECT_EQ(doc["reads"]["count"], 3000);
  int64_t misses_seen = 0;
  for (const char* name : {"redis-allkeys-lru", "redis-noeviction", "memcached-8m", "tarantool-memtx",
                           "tarantool-vinyl"}) {
    SCOPED_TRACE(name);
    const json& run = Config(doc, name)["runs"][0];
    ExpectInvariantsOk(run);
    const json& r = run["reads"];
    ASSERT_TRUE(r.is_object()) << run.dump();
    EXPECT_FALSE(r.contains("failure")) << r.dump();
    EXPECT_EQ(r["reads"], 3000);
    EXPECT_EQ(r["ids"], json({1, 60000}));
    const int64_t hits = r["hits"], misses = r["misses"];
    EXPECT_EQ(hits + misses, 3000);
    EXPECT_EQ(r["latency"]["hit"]["n"].get<int64_t>(), hits);
    EXPECT_EQ(r["latency"]["miss"]["n"].get<int64_t>(), misses);
    const double ratio = r["hit_ratio"];
    EXPECT_GE(ratio, 0.0);
    EXPECT_LE(ratio, 1.0);
    misses_seen += misses;
    if (std::string(name) == "tarantool-memtx") {
      EXPECT_TRUE(r["agree"].is_null());  // memtx counts no hits
      EXPECT_EQ(r["server"]["counters"]["select"], 3000);
    } else {
      EXPECT_EQ(r["agree"], true);
      EXPECT_EQ(r["server"]["hits"], hits);
      EXPECT_EQ(r["server"]["misses"], misses);
      EXPECT_DOUBLE_EQ(r["server"]["hit_ratio"].get<double>(), ratio);
    }
    if (std::string(name) == "tarantool-vinyl") {
      EXPECT_EQ(misses, 0);  // vinyl keeps all
      const json& v = r["vinyl"];
      EXPECT_EQ(v["memory"]["n"].get<int64_t>() + v["disk"]["n"].get<int64_t>(), 3000);
      EXPECT_GE(v["server_disk_lookups"].get<int64_t>(), v["disk"]["n"].get<int64_t>());
      const double cache = v["cache_hit_ratio"];
      EXPECT_GE(cache, 0.0);
      EXPECT_LE(cache, 1.0);
    } else {
      EXPECT_TRUE(r["vinyl"].is_null());
    }
  }
  EXPECT_GT(misses_seen, 0);  // Redis and memcached hold part of 60,000 records in 8 MB
  std::ifstream csv(dir + "/ev/reads.csv");
  int lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  EXPECT_EQ(lines, 1 + 5);  // header + a row per configuration
}

TEST(ScenarioE2E, WorkingSetReadsBadFlagsExit2NamingTheFlag) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--reads", "hot"}, "--reads must be uniform, zipf or gaussian, got 'hot'"},
      {{"--reads", "zipf", "--read-rate", "0"}, "--read-rate must be 1..100000 reads a second, got 0"},
      {{"--reads", "uniform", "--read-count", "-1"}, "--read-count must be 1..10000000, got -1"},
      {{"--read-count", "5"}, "--read-count: only with --reads uniform|zipf|gaussian"}};
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> args = {"scenario", "run", "working-set"};
    args.insert(args.end(), flags.begin(), flags.end());
    Outcome out = RunMemstand(args, 30);
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find(message), std::string::npos) << out.output;
  }
}

// The positive control beside the misuse: etcd as designed (few keys, writes at 100 a
// second, auto-compaction every second) fails no write, stays far below the quota, and
// has compacted the first write's revision away by the end (6 s of writes, a retention
// of 1 s).
TEST(ScenarioE2E, MvccQuotaIntendedProfileStaysBelowTheQuotaBesideTheMisuse) {
  const std::string dir = TempDir();
  RunDirInMemory in_memory;  // etcd syncs each put
  Outcome out = RunMemstand({"scenario", "run", "mvcc-quota", "--profile", "both", "--quota", "8MiB", "--keys",
                             "1000", "--writes", "20000", "--portion", "500", "--intended-writes", "600",
                             "--auto-compaction-retention", "1s", "--json", dir + "/m.json", "--evidence",
                             dir + "/ev"},
                            240);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("Both profiles side by side"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("etcd, intended profile: 600 of 600 writes succeeded, 0 failed"), std::string::npos)
      << out.output;
  json doc = ReadJson(dir + "/m.json");
  EXPECT_EQ(doc["profiles"], json({"misuse", "intended"}));
  const json& in = doc["intended"];
  ASSERT_TRUE(in.is_object()) << doc.dump(2);
  EXPECT_EQ(in["attempted"], 600);
  EXPECT_EQ(in["successful"], 600);
  EXPECT_EQ(in["failed"], 0);
  EXPECT_EQ(in["revision_end"].get<int64_t>() - in["revision_before"].get<int64_t>(), 600);
  EXPECT_LT(in["peak_share_of_quota"].get<double>(), 0.5) << in.dump(2);
  EXPECT_EQ(in["compacted"], true) << in["compaction_probe"];
  EXPECT_NE(in["compaction_probe"].get<std::string>().find("required revision has been compacted"),
            std::string::npos);
  EXPECT_EQ(in["db_size_by_write"].size(), 6u);
  EXPECT_EQ(doc["profile"]["intended"]["auto_compaction_retention"], "1s");
  // The misuse beside it still reaches the quota.
  EXPECT_TRUE(doc["etcd"]["first_failed_write"].is_number()) << doc.dump(2);
  for (const json& i : doc["runs_detail"][0]["invariants"]) EXPECT_TRUE(i["ok"].get<bool>()) << i.dump();
  EXPECT_TRUE(fs::exists(dir + "/ev/etcd_intended_db_size.csv"));
  // The choice map's coordination row is measured by it.
  Outcome map = RunMemstand({"report", "--choice-map", dir + "/m.json"});
  ASSERT_EQ(map.exit_code, 0) << map.output;
  EXPECT_NE(map.output.find("etcd as designed: small metadata written rarely, auto-compaction every 1s"),
            std::string::npos)
      << map.output;
}

// A profile the scenario does not have, and settings etcd would not take, are refused.
TEST(ScenarioE2E, MvccQuotaRefusesAnUnknownProfileAndABadRetention) {
  Outcome bad = RunMemstand({"scenario", "run", "mvcc-quota", "--profile", "intent"});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--profile must be misuse, intended or both, got 'intent'"), std::string::npos)
      << bad.output;
  for (const char* r : {"0s", "2", "1.5s", "2d", "s", "1000000h"}) {
    Outcome o = RunMemstand({"scenario", "run", "mvcc-quota", "--profile", "intended", "--auto-compaction-retention", r});
    EXPECT_EQ(o.exit_code, 2) << r << ": " << o.output;
    EXPECT_NE(o.output.find("--auto-compaction-retention must be a whole number of s, m or h"), std::string::npos)
        << o.output;
  }
  Outcome keys = RunMemstand({"scenario", "run", "mvcc-quota", "--profile", "intended", "--intended-keys", "30"});
  EXPECT_EQ(keys.exit_code, 2) << keys.output;
  EXPECT_NE(keys.output.find("--intended-keys (30) must divide 100"), std::string::npos) << keys.output;
}

// The full size of docs/scenarios.md: 50,000 writes of 1 KiB over 5,000 keys, 64 MiB of quota
// (about 50 s: etcd's gateway takes about a millisecond a put on the one ordered stream,
// fsynced; about half of that with etcd's files in memory, where this test keeps them).
TEST(ScenarioE2E, MvccQuotaAtFullSize) {
  const std::string dir = TempDir();
  RunDirInMemory in_memory;
  Outcome out = RunMemstand({"scenario", "run", "mvcc-quota", "--json", dir + "/m.json", "-q"}, 400);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  json doc = ReadJson(dir + "/m.json");
  ASSERT_TRUE(doc["etcd"]["first_failed_write"].is_number()) << doc.dump(2);
  EXPECT_LE(doc["etcd"]["first_failed_write"].get<int64_t>(), 50000);
  EXPECT_EQ(doc["etcd"]["alarm"], "NOSPACE");
  EXPECT_EQ(doc["etcd"]["canary_ok"], true);
  EXPECT_EQ(doc["redis"]["successful"], 50000);
  EXPECT_EQ(doc["redis"]["errors"], 0);
  for (const json& i : doc["runs_detail"][0]["invariants"]) EXPECT_TRUE(i["ok"].get<bool>()) << i.dump();
}

}  // namespace
}  // namespace memstand::e2e
