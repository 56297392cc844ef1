// `memstand memtier` (issue 19): memtier_benchmark command lines against a real
// redis-server, each checked against the server's own INFO commandstats (counts, never
// times); --json-out-file's key paths against memtier's layout, Time-Serie included.
// The --cluster-mode line runs against a real cluster in cluster_e2e_test.cc.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "e2e/e2e_util.h"
#include "npm_util.h"
#include "test_paths.h"

namespace memstand::e2e {
namespace {

using Json = nlohmann::json;

class MemtierE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    redis_ = StartRedis();
    ASSERT_NE(redis_, nullptr);
  }

  std::unique_ptr<RedisClient> Client() {
    RedisClientOptions o;
    o.host = redis_->host();
    o.port = redis_->port();
    auto c = RedisClient::Connect(o);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? std::move(*c) : nullptr;
  }
  resp::Reply Call(const std::vector<std::string>& args) {
    auto c = Client();
    if (c == nullptr) return resp::Reply();
    auto r = c->Command(args);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : resp::Reply();
  }
  // The server's calls of `command` (lower case) so far.
  int64_t Calls(const std::string& command) {
    auto stats = ParseCommandStats(Call({"INFO", "commandstats"}).str);
    auto it = stats.find(command);
    return it == stats.end() ? 0 : it->second.calls;
  }
  std::string Port() { return std::to_string(redis_->port()); }

  // `memstand memtier -s 127.0.0.1 -p PORT ARGS`.
  Outcome Memtier(std::vector<std::string> args) {
    args.insert(args.begin(), {"memtier", "-s", "127.0.0.1", "-p", Port()});
    return RunMemstand(args, 60);
  }

  std::unique_ptr<LocalRedis> redis_;
};

Json Fixture() {
  std::ifstream f(testutil::SourceDir() + "/tests/fixtures/memtier_2_default.json");
  EXPECT_TRUE(f.good()) << "missing fixture";
  return Json::parse(f);
}

bool IsPercentileKey(const std::string& k) {
  return k.size() > 1 && k[0] == 'p' && k.find_first_not_of("0123456789.", 1) == std::string::npos;
}

std::string Kind(const Json& j) {
  if (j.is_object()) return "object";
  if (j.is_array()) return "array";
  if (j.is_string()) return "string";
  if (j.is_number_float()) return "float";
  if (j.is_number()) return "integer";
  return j.is_boolean() ? "boolean" : "null";
}

// Every key path of `ours` is in memtier's fixture with the same JSON type; a second
// of a Time-Serie compares with the fixture's second 0, a percentile with its p50.00
// (the fixture is a --test-time run: "Requests per client" compares with "Seconds").
// Returns the number of paths compared.
int ExpectMemtierKeyPaths(const Json& ours, const Json& theirs, const std::string& path) {
  int compared = 0;
  for (const auto& [key, value] : ours.items()) {
    std::string lookup = key;
    if (path.ends_with("/Time-Serie")) lookup = "0";
    if (IsPercentileKey(key)) lookup = "p50.00";
    if (key == "Requests per client") lookup = "Seconds";  // memtier writes one or the other
    const std::string here = path + "/" + key;
    if (!theirs.is_object() || !theirs.contains(lookup)) {
      ADD_FAILURE() << here << " is not in memtier's layout";
      continue;
    }
    const Json& t = theirs[lookup];
    EXPECT_EQ(Kind(value), Kind(t)) << here;
    ++compared;
    if (value.is_object()) compared += ExpectMemtierKeyPaths(value, t, here);
  }
  return compared;
}

// Every key path of `j` with its JSON type, "/"-joined; the seconds of a Time-Serie
// fold into one "<second>" (a second without replies has only its counts: the union
// over the seconds is compared).
void KeyPathKinds(const Json& j, const std::string& path, std::map<std::string, std::string>* out) {
  if (!j.is_object()) return;
  for (const auto& [key, value] : j.items()) {
    const std::string here = path + "/" + (path.ends_with("/Time-Serie") ? std::string("<second>") : key);
    (*out)[here] = Kind(value);
    KeyPathKinds(value, here, out);
  }
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// The first line starting with `prefix`, or "".
std::string LineStarting(const std::string& text, const std::string& prefix) {
  for (const std::string& l : SplitLines(text)) {
    if (l.rfind(prefix, 0) == 0) return l;
  }
  return "";
}

// The published study's line (cluster aside: cluster_e2e_test.cc), shortened from
// --test-time 60 to -n 50 per client, 5 clients x 2 threads.
TEST_F(MemtierE2E, PublishedLineRunsWithMemtiersOutputShape) {
  const std::string json = TempDir() + "/out.json";
  const int64_t sets = Calls("set"), gets = Calls("get");
  Outcome out = Memtier({"--ratio=1:10", "--key-pattern=R:R", "--key-maximum=100000", "-d", "100", "-c", "5",
                         "-t", "2", "-n", "50", "--print-percentiles", "50,99,99.9", "--hide-histogram",
                         "--json-out-file", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_EQ(Calls("set") - sets + Calls("get") - gets, 5 * 2 * 50) << out.output;
  EXPECT_NE(out.output.find("\nALL STATS\n====="), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("Type         Ops/sec     Hits/sec   Misses/sec    Avg. Latency     p50 Latency"
                            "     p99 Latency   p99.9 Latency       KB/sec \n"),
            std::string::npos)
      << out.output;
  for (const char* row : {"Sets   ", "Gets   ", "Waits  ", "Totals "}) {
    EXPECT_NE(LineStarting(out.output, row), "") << row << "\n" << out.output;
  }
  EXPECT_NE(out.output.find("2         Threads\n5         Connections per thread\n50        Requests per client\n"),
            std::string::npos)
      << out.output;
  EXPECT_EQ(out.output.find("Request Latency Distribution"), std::string::npos) << "--hide-histogram";
  EXPECT_NE(out.output.find("=== memstand's report ==="), std::string::npos);

  Json j = ReadJson(json);
  ASSERT_TRUE(j.contains("ALL STATS")) << j.dump();
  EXPECT_EQ(j["ALL STATS"]["Totals"]["Count"], 500);
  EXPECT_EQ(j["ALL STATS"]["Sets"]["Count"].get<int>() + j["ALL STATS"]["Gets"]["Count"].get<int>(), 500);
  const Json& series = j["ALL STATS"]["Totals"]["Time-Serie"];
  ASSERT_TRUE(series.is_object() && !series.empty()) << j.dump();
  int per_second = 0;
  for (const auto& [second, point] : series.items()) per_second += point["Count"].get<int>();
  EXPECT_EQ(per_second, 500) << "the seconds add up to the run";
  ASSERT_TRUE(series.contains("0"));
  for (const char* key : {"Bytes RX", "Bytes TX", "Count", "Average Latency", "p50.00", "p99.00", "p99.90"}) {
    EXPECT_TRUE(series["0"].contains(key)) << key;
  }
  EXPECT_GT(ExpectMemtierKeyPaths(j, Fixture(), ""), 100);
}

// memtier's flags, each run against the server and checked for what memtier means by it
// (-n is per client: the server's calls are clients x threads x n).
// The command line of the real memtier_benchmark's file (tests/fixtures/README.md), run
// here: our --json-out-file has exactly its key paths, each with its JSON type, and
// every "configuration" value it wrote but the port (the values memtier writes for this
// line, from the options and the line).
TEST_F(MemtierE2E, JsonOutFileHasTheRealMemtiersKeyPathsTypesAndConfiguration) {
  std::ifstream f(testutil::SourceDir() + "/tests/fixtures/memtier_2f74d61_real.json");
  ASSERT_TRUE(f.good()) << "missing fixture";
  const Json real = Json::parse(f);
  const std::string json = TempDir() + "/mt.json";
  Outcome out = Memtier({"-t", "1", "-c", "4", "--test-time=2", "--ratio=1:10", "--hide-histogram",
                         "--json-out-file=" + json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const Json ours = ReadJson(json);
  std::map<std::string, std::string> theirs_paths, our_paths;
  KeyPathKinds(real, "", &theirs_paths);
  KeyPathKinds(ours, "", &our_paths);
  EXPECT_EQ(theirs_paths.size(), 195u);
  for (const auto& [path, kind] : theirs_paths) {
    auto it = our_paths.find(path);
    if (it == our_paths.end()) {
      ADD_FAILURE() << path << " is missing from ours";
    } else {
      EXPECT_EQ(it->second, kind) << path;
    }
  }
  for (const auto& [path, kind] : our_paths) EXPECT_TRUE(theirs_paths.contains(path)) << path << " is not memtier's";
  for (const auto& [key, value] : real["configuration"].items()) {
    if (key == "port") continue;
    EXPECT_EQ(ours["configuration"][key], value) << "configuration " << key;
  }
  EXPECT_EQ(ours["configuration"]["port"], redis_->port());
}

TEST_F(MemtierE2E, ImplementedFlagsDoWhatMemtierMeans) {
  struct Case {
    std::vector<std::string> args;
    int64_t total;       // the SET and GET calls the run must add
    int64_t sets, gets;  // of them, when memtier's meaning fixes them (-1: not fixed)
    const char* output;  // in the output, or ""
  };
  const std::vector<Case> cases = {
      {{"-n", "7", "-c", "3", "-t", "2", "--ratio=1:0"}, 42, 42, 0, "7         Requests per client"},
      {{"-n", "4", "-c", "2", "-t", "1", "--ratio=0:1"}, 8, 0, 8, ""},
      {{"--requests=3", "--clients=2", "--threads=2", "--ratio", "1:1", "--key-pattern", "S:S"}, 12, -1, -1, ""},
      {{"-n", "5", "-c", "1", "-t", "1", "--pipeline=4", "--ratio=1:0", "-R", "--data-size=64"}, 5, 5, 0, ""},
      {{"-n", "5", "-c", "1", "-t", "1", "--ratio=1:0", "--randomize", "--distinct-client-seed"}, 5, 5, 0, ""},
      {{"-n", "5", "-c", "2", "-t", "1", "--ratio=1:0", "--data-size-range=10-20"}, 10, 10, 0, ""},
      {{"-n", "5", "-c", "2", "-t", "1", "--ratio=1:0", "--data-size-list=77:1"}, 10, 10, 0, ""},
      {{"-n", "5", "-c", "1", "-t", "1", "-P", "resp3", "--ratio=1:0"}, 5, 5, 0, ""},
      {{"-n", "5", "-c", "1", "-t", "1", "--ratio=1:0", "--key-pattern=G:G", "--key-stddev=10",
        "--key-median=500"},
       5, 5, 0, ""},
      {{"-n", "5", "-c", "1", "-t", "1", "--ratio=0:1", "--key-pattern=Z:Z", "--key-zipf-exp=1.5"}, 5, 0, 5, ""},
      {{"-n", "6", "-c", "1", "-t", "1", "--print-percentiles=50,90"}, 6, -1, -1, "p90 Latency"},
      {{"-n", "3", "-c", "1", "-t", "1", "--connection-timeout=3", "--show-config"}, 3, -1, -1,
       "memstand memtier: runs as: memstand run"},
  };
  for (const Case& c : cases) {
    const int64_t sets = Calls("set"), gets = Calls("get");
    Outcome out = Memtier(c.args);
    std::string shown;
    for (const auto& a : c.args) shown += a + " ";
    ASSERT_EQ(out.exit_code, 0) << shown << "\n" << out.output;
    EXPECT_EQ(Calls("set") - sets + Calls("get") - gets, c.total) << shown;
    if (c.sets >= 0) {
      EXPECT_EQ(Calls("set") - sets, c.sets) << shown;
    }
    if (c.gets >= 0) {
      EXPECT_EQ(Calls("get") - gets, c.gets) << shown;
    }
    EXPECT_NE(out.output.find(c.output), std::string::npos) << shown << "\n" << out.output;
  }
}

// -P resp3 sends HELLO 3 on each connection; --rate-limiting is per connection (memstand's
// open loop at R x clients x threads in total).
TEST_F(MemtierE2E, Resp3AndRateLimiting) {
  const int64_t hello = Calls("hello");
  Outcome out = Memtier({"-P", "resp3", "-n", "5", "-c", "3", "-t", "1", "--hide-histogram"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_GE(Calls("hello") - hello, 3) << out.output;  // the 3 load connections at least
  const int64_t sets = Calls("set"), gets = Calls("get");
  Outcome paced = Memtier({"--rate-limiting=50", "-n", "10", "-c", "2", "-t", "1", "--hide-histogram"});
  ASSERT_EQ(paced.exit_code, 0) << paced.output;
  EXPECT_EQ(Calls("set") - sets + Calls("get") - gets, 20);
  EXPECT_NE(paced.output.find("open loop: 100 requests/s in total (50 per connection)"), std::string::npos)
      << paced.output;
}

// -h is memtier's host; --select-db, --key-prefix, -d, --expiry-range reach the keys.
TEST_F(MemtierE2E, HostDbPrefixSizeAndExpiryReachTheKeys) {
  Outcome out = RunMemstand({"memtier", "-h", "127.0.0.1", "-p", Port(), "--select-db=3", "--key-prefix=mt:",
                             "--key-minimum=1", "--key-maximum=1", "-d", "50", "--expiry-range=300-300",
                             "--ratio=1:0", "-n", "3", "-c", "1", "-t", "1", "--hide-histogram"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const std::string keyspace = Call({"INFO", "keyspace"}).str;
  EXPECT_NE(keyspace.find("db3:keys=1,expires=1"), std::string::npos) << keyspace;
  EXPECT_EQ(keyspace.find("db0:"), std::string::npos) << keyspace;
  auto c = Client();
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Command({"SELECT", "3"}).ok());
  auto len = c->Command({"STRLEN", "mt:1"});
  ASSERT_TRUE(len.ok());
  EXPECT_EQ(len->integer, 50);
  auto ttl = c->Command({"TTL", "mt:1"});
  ASSERT_TRUE(ttl.ok());
  EXPECT_GT(ttl->integer, 200);
}

// memtier's loading idiom: -n allkeys with P:P writes every key of the range, each
// connection its own slice (5 x 2 connections over 1..997: slices of unequal size), in
// memtier's count: 996 / 10 + 1 = 100 requests per client.
TEST_F(MemtierE2E, AllkeysWithPartitionedKeysWritesEveryKeyInMemtiersCount) {
  const std::string json = TempDir() + "/allkeys.json";
  const int64_t sets = Calls("set");
  Outcome out = RunMemstand({"memtier", "-h", "127.0.0.1", "-p", Port(), "--key-prefix=ak:", "--key-minimum=1",
                             "--key-maximum=997", "--key-pattern=P:P", "--ratio=1:0", "-n", "allkeys", "-c", "5",
                             "-t", "2", "--hide-histogram", "--json-out-file", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_EQ(Call({"DBSIZE"}).integer, 997);
  EXPECT_EQ(Call({"EXISTS", "ak:1"}).integer, 1);
  EXPECT_EQ(Call({"EXISTS", "ak:997"}).integer, 1);
  EXPECT_EQ(Calls("set") - sets, 1000) << out.output;
  EXPECT_NE(LineStarting(out.output, "Sets "), "") << out.output;
  EXPECT_NE(out.output.find("100       Requests per client\n"), std::string::npos) << out.output;
  Json j = ReadJson(json);
  EXPECT_EQ(j["configuration"]["requests"], 100);
  EXPECT_EQ(j["ALL STATS"]["Totals"]["Count"], 1000);
}

// Without P:P, -n allkeys is the whole span per client, as memtier: keys 0..99, 2
// clients, SET:GET 1:10 at random: 99 requests each.
TEST_F(MemtierE2E, AllkeysWithRandomKeysIsTheSpanPerClient) {
  const int64_t before = Calls("set") + Calls("get");
  Outcome out = Memtier({"--key-maximum=99", "-n", "allkeys", "-c", "2", "-t", "1", "--hide-histogram"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_EQ(Calls("set") + Calls("get") - before, 2 * 99) << out.output;
}

// --command: a row per command type and no Hits/Misses columns, as memtier.
TEST_F(MemtierE2E, CommandRunsHaveARowPerCommand) {
  Outcome out = Memtier({"--command=INCR memtier-counter", "--command-key-pattern=S", "-n", "5", "-c", "2",
                         "-t", "1", "--hide-histogram"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto v = Call({"GET", "memtier-counter"});
  EXPECT_EQ(v.str, "10");
  EXPECT_NE(LineStarting(out.output, "Incrs  "), "") << out.output;
  const std::string head = LineStarting(out.output, "Type ");
  EXPECT_NE(head.find("Ops/sec"), std::string::npos) << out.output;
  EXPECT_EQ(head.find("Hits/sec"), std::string::npos) << head;
}

// Without --hide-histogram: memtier's cumulative distribution, ending at 100% per type.
TEST_F(MemtierE2E, HistogramUnlessHidden) {
  const std::string json = TempDir() + "/h.json";
  Outcome out = Memtier({"-n", "20", "-c", "2", "-t", "1", "--ratio=1:1", "--json-out-file", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  ASSERT_NE(out.output.find("\nRequest Latency Distribution\nType     <= msec         Percent\n"),
            std::string::npos)
      << out.output;
  std::string last_set, last_get;
  for (const std::string& l : SplitLines(out.output)) {
    if (l.rfind("SET ", 0) == 0) last_set = l;
    if (l.rfind("GET ", 0) == 0) last_get = l;
  }
  EXPECT_TRUE(last_set.ends_with(" 100.000")) << last_set;
  EXPECT_TRUE(last_get.ends_with(" 100.000")) << last_get;
  Json j = ReadJson(json);  // and memtier's "SET"/"GET" arrays in the JSON
  for (const char* type : {"SET", "GET"}) {
    ASSERT_TRUE(j["ALL STATS"][type].is_array()) << j.dump();
    EXPECT_EQ(j["ALL STATS"][type].back()["percent"], 100.0) << type;
  }
  EXPECT_GT(ExpectMemtierKeyPaths(j, Fixture(), ""), 100);
}

// -x N: N runs, then memtier's best, worst and average tables (and each run's with
// --print-all-runs); the JSON holds the same sections.
TEST_F(MemtierE2E, RunCountPrintsBestWorstAndAverage) {
  const std::string json = TempDir() + "/runs.json";
  const int64_t sets = Calls("set"), gets = Calls("get");
  Outcome out = Memtier({"-x", "2", "--print-all-runs", "-n", "5", "-c", "2", "-t", "1", "--hide-histogram",
                         "--json-out-file", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_EQ(Calls("set") - sets + Calls("get") - gets, 2 * 10);
  for (const char* title : {"RUN #1 RESULTS", "RUN #2 RESULTS", "BEST RUN RESULTS", "WORST RUN RESULTS",
                            "AGGREGATED AVERAGE RESULTS (2 runs)"}) {
    EXPECT_NE(out.output.find(std::string("\n") + title + "\n===="), std::string::npos) << title;
    EXPECT_TRUE(ReadJson(json).contains(title)) << title;
  }
  Json j = ReadJson(json);
  EXPECT_EQ(j["AGGREGATED AVERAGE RESULTS (2 runs)"]["Totals"]["Count"], 20);
  EXPECT_EQ(j["RUN #2 RESULTS"]["Totals"]["Count"], 10);
  EXPECT_EQ(j["configuration"]["run_count"], 2);
}

// --hdr-file-prefix: memtier's file names; each .txt's total count is the run's.
TEST_F(MemtierE2E, HdrFilePrefixWritesMemtiersFiles) {
  const std::string dir = TempDir();
  Outcome out = Memtier({"-n", "10", "-c", "2", "-t", "1", "--ratio=1:1", "--hide-histogram",
                         "--hdr-file-prefix", dir + "/p"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  for (const char* name : {"p_FULL_RUN_1.txt", "p_FULL_RUN_1.hgrm", "p_SET_command_run_1.txt",
                           "p_SET_command_run_1.hgrm", "p_GET_command_run_1.txt", "p_GET_command_run_1.hgrm"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + name)) << name << "\n" << out.output;
  }
  std::ifstream txt(dir + "/p_FULL_RUN_1.txt");
  std::stringstream body;
  body << txt.rdbuf();
  EXPECT_NE(body.str().find("Total count    =           20]"), std::string::npos) << body.str();
  std::ifstream hgrm(dir + "/p_FULL_RUN_1.hgrm");
  std::stringstream log;
  log << hgrm.rdbuf();
  EXPECT_NE(log.str().find("#[StartTime: "), std::string::npos) << log.str();
  // The .hgrm is an HdrHistogram log, as memtier's: HdrHistogram's own reader takes it.
  const std::string jar = "/usr/share/java/hdrhistogram.jar";
  ASSERT_TRUE(testutil::HaveProgram("java") && testutil::RunShell("test -r " + jar).exit_code == 0)
      << "install libhdrhistogram-java and a JRE (scripts/deps.sh)";
  auto r = testutil::RunShell("timeout 60 java -cp " + jar + " org.HdrHistogram.HistogramLogProcessor -i " + dir +
                              "/p_FULL_RUN_1.hgrm 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Total count    =           20]"), std::string::npos) << r.output;
}

// -o FILE: the report in the file, not on stdout.
TEST_F(MemtierE2E, OutFileHoldsTheReport) {
  const std::string file = TempDir() + "/report.txt";
  Outcome out = Memtier({"-n", "5", "-c", "1", "-t", "1", "--hide-histogram", "-o", file});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_EQ(out.output.find("ALL STATS"), std::string::npos) << out.output;
  std::ifstream f(file);
  std::stringstream body;
  body << f.rdbuf();
  EXPECT_NE(body.str().find("\nALL STATS\n"), std::string::npos) << body.str();
  EXPECT_NE(body.str().find("=== memstand's report ==="), std::string::npos);
}

// Each refused memtier flag exits 2 naming it, with nothing sent; so does a bad value.
TEST_F(MemtierE2E, RefusedFlagsExitTwoNamingTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--reconnect-interval=5"}, "--reconnect-interval"},
      {{"-D"}, "--debug"},
      {{"--multi-key-get", "3"}, "--multi-key-get"},
      {{"--wait-ratio=1:1"}, "--wait-ratio"},
      {{"--client-stats", "x"}, "--client-stats"},
      {{"--data-verify"}, "--data-verify"},
      {{"--no-such-flag"}, "not a memtier_benchmark flag"},
      {{"-n", "5", "--test-time", "2"}, "mutually exclusive"},
      {{"-c", "x"}, "--clients"},
      {{"--json-out-file", "/nonexistent-dir/x.json", "-n", "1"}, "--json-out-file"},
      {{"-o", "/nonexistent-dir/x.txt", "-n", "1"}, "--out-file"},
  };
  const int64_t sets = Calls("set"), gets = Calls("get");
  for (const auto& [args, needle] : cases) {
    Outcome out = Memtier(args);
    EXPECT_EQ(out.exit_code, 2) << args[0] << "\n" << out.output;
    EXPECT_NE(out.output.find(needle), std::string::npos) << out.output;
  }
  EXPECT_EQ(Calls("set") - sets + Calls("get") - gets, 0) << "a refused line sends nothing";
}

TEST(MemtierCliE2E, HelpListsImplementedAndRefusedFlags) {
  Outcome out = RunMemstand({"memtier", "--help"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  for (const char* s : {"Usage: memstand memtier", "Implemented:", "    --cluster-mode", "-h, --host=VALUE",
                        "Refused (exit 2, naming the flag):", "--reconnect-interval=VALUE"}) {
    EXPECT_NE(out.output.find(s), std::string::npos) << s << "\n" << out.output;
  }
}

}  // namespace
}  // namespace memstand::e2e
