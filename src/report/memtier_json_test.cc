#include "report/memtier_json.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "load/command_spec.h"
#include "stats/encoded_histogram.h"
#include "stats/hdr_log.h"
#include "test_paths.h"

namespace memstand {
namespace {

using Json = nlohmann::ordered_json;
using Path = std::vector<std::string>;

// memtier_benchmark's own layout (tests/fixtures/README.md says where it comes from).
Json MemtierFixture() {
  std::ifstream f(testutil::SourceDir() + "/tests/fixtures/memtier_2_default.json");
  EXPECT_TRUE(f.good()) << "missing fixture";
  return Json::parse(f);
}

// The JSON type as a script sees it: integers and floats differ (Python int vs float).
std::string Kind(const Json& j) {
  if (j.is_object()) return "object";
  if (j.is_array()) return "array";
  if (j.is_string()) return "string";
  if (j.is_boolean()) return "boolean";
  if (j.is_number_float()) return "float";
  if (j.is_number()) return "integer";
  return "null";
}

const Json* Find(const Json& root, const Path& path) {
  const Json* j = &root;
  for (const std::string& key : path) {
    if (!j->is_object() || !j->contains(key)) return nullptr;
    j = &(*j)[key];
  }
  return j;
}

std::string Show(const Path& path) {
  std::string s;
  for (const std::string& key : path) s += (s.empty() ? "" : " > ") + ("\"" + key + "\"");
  return s;
}

void Walk(const Json& j, Path* prefix, std::vector<Path>* out) {
  if (!j.is_object()) return;
  for (const auto& [key, value] : j.items()) {
    prefix->push_back(key);
    out->push_back(*prefix);
    Walk(value, prefix, out);
    prefix->pop_back();
  }
}

// docs/json-format.md, "memtier layout": every key path below is written.
std::vector<Path> DocumentedSubset() {
  std::vector<Path> paths;
  for (const char* key :
       {"server", "port", "uri", "protocol", "run_count", "requests", "clients", "threads",
        "test_time", "ratio", "pipeline", "data_size", "random_data", "data_size_range",
        "key_prefix", "key_minimum", "key_maximum", "key_pattern", "select-db"}) {
    paths.push_back({"configuration", key});
  }
  for (const char* key : {"Threads", "Connections per thread", "Seconds", "Format version"}) {
    paths.push_back({"run information", key});
  }
  for (const char* key :
       {"Start time", "Finish time", "Total duration", "Time unit", "Interrupted"}) {
    paths.push_back({"ALL STATS", "Runtime", key});
  }
  for (const char* cmd : {"Sets", "Gets", "Totals"}) {
    for (const char* key :
         {"Count", "Ops/sec", "Hits/sec", "Misses/sec", "Connection Errors/sec",
          "Connection Errors", "Latency", "Average Latency", "Accumulated Latency", "Min Latency",
          "Max Latency", "KB/sec", "KB/sec RX/TX", "KB/sec RX", "KB/sec TX"}) {
      paths.push_back({"ALL STATS", cmd, key});
    }
    for (const char* p : {"p50.00", "p99.00", "p99.90"}) {
      paths.push_back({"ALL STATS", cmd, "Percentile Latencies", p});
    }
    paths.push_back(
        {"ALL STATS", cmd, "Percentile Latencies", "Histogram log format", "Compressed Histogram"});
    for (const char* key : {"Bytes RX", "Bytes TX", "Count", "Average Latency", "Accumulated Latency",
                            "Min Latency", "Max Latency", "p50.00", "p99.00", "p99.90"}) {
      paths.push_back({"ALL STATS", cmd, "Time-Serie", "0", key});
      paths.push_back({"ALL STATS", cmd, "Time-Serie", "1", key});
    }
  }
  return paths;
}

// A RESP command as `memstand run --command` makes it, labelled `label`.
CommandSpec Command(const std::string& text, uint32_t weight, const std::string& label) {
  auto c = MakeCommandSpec(Protocol::kResp, text, "memtier-", {}, weight, CommandLimits{});
  EXPECT_TRUE(c.ok()) << c.status().message();
  if (!c.ok()) return CommandSpec{};
  c->label = label;
  return *c;
}

// A finished SET:GET 1:10 run of 2 s in duration mode, as `memstand run` reports it.
struct FakeMemtierRun {
  LoadOptions options;
  RunResult result;
  RunReport report;

  FakeMemtierRun() {
    options.commands = {Command("SET __key__ __data__", 1, "SET"),
                        Command("GET __key__", 10, "GET")};
    options.threads = 4;
    options.clients = 50;
    options.duration_s = 3;
    result.measured_s = 2.0;
    result.measured_start_unix_s = 1764460503.2124;
    result.totals = ThreadStats(2);
    result.totals.connection_errors = 4;
    CommandStats& set = result.totals.commands[0];
    set.ops = 1000;
    set.bytes_in = 5 * 1024;
    set.bytes_out = 70 * 1024;
    // 300..999 us: below 1048 us the ns buckets are narrow enough to re-bin to exact us.
    for (int i = 0; i < 1000; ++i) set.latency_ns.Record((300 + i % 700) * 1000LL);
    CommandStats& get = result.totals.commands[1];
    get.ops = 10000;
    get.hits = 3000;
    get.misses = 7000;
    get.bytes_in = 50 * 1024;
    get.bytes_out = 370 * 1024;
    for (int i = 0; i < 10000; ++i) get.latency_ns.Record((200 + i % 1000) * 1000LL);
    // Two seconds per command: SET 400 + 600 replies, GET 4000 + 6000.
    result.series.resize(3);  // SET, GET, all (the all-commands series has no histogram)
    for (int c = 0; c < 2; ++c) {
      for (int second = 0; second < 2; ++second) {
        SeriesPoint p;
        p.second = second;
        p.ops = static_cast<uint64_t>((c == 0 ? 400 : 4000) + second * (c == 0 ? 200 : 2000));
        p.bytes_in = p.ops * 5;
        p.bytes_out = p.ops * 70;
        HdrHistogram h;
        for (uint64_t i = 0; i < p.ops; ++i) h.Record(static_cast<int64_t>(500 + second * 100) * 1000);
        p.latency = EncodeHistogram(h);
        result.series[static_cast<size_t>(c)].push_back(p);
      }
    }
    report.options = &options;
    report.result = &result;
  }
};

TEST(MemtierJson, DocumentedSubsetHasMemtiersKeysAndTypes) {
  Json fixture = MemtierFixture();
  FakeMemtierRun fake;
  Json ours = MemtierJson(fake.report);
  for (const Path& path : DocumentedSubset()) {
    const Json* theirs = Find(fixture, path);
    ASSERT_NE(theirs, nullptr) << Show(path) << " is not in memtier's layout (fix the list)";
    const Json* mine = Find(ours, path);
    ASSERT_NE(mine, nullptr) << Show(path) << " is missing from our output";
    EXPECT_EQ(Kind(*mine), Kind(*theirs)) << Show(path);
  }
}

// Nothing of our own invention: every key we write is one memtier writes, at the same
// place, with the same type (percentile keys follow --percentiles, as memtier's follow
// --print-percentiles).
TEST(MemtierJson, EveryKeyWeWriteIsMemtiers) {
  Json fixture = MemtierFixture();
  FakeMemtierRun fake;
  Json ours = MemtierJson(fake.report);
  std::vector<Path> paths;
  Path prefix;
  Walk(ours, &prefix, &paths);
  ASSERT_GT(paths.size(), 60u);
  // "p" then digits and dots (std::regex trips g++ 12's -Wmaybe-uninitialized
  // under the sanitizers).
  auto percentile_key = [](const std::string& k) {
    return k.size() > 1 && k[0] == 'p' &&
           k.find_first_not_of("0123456789.", 1) == std::string::npos;
  };
  for (const Path& path : paths) {
    Path lookup = path;
    const bool in_percentiles = path.size() >= 2 && path[path.size() - 2] == "Percentile Latencies";
    const bool in_second = path.size() >= 3 && path[path.size() - 3] == "Time-Serie";
    if ((in_percentiles || in_second) && percentile_key(path.back())) {
      lookup.back() = "p50.00";  // compare with a percentile memtier wrote
    }
    const Json* theirs = Find(fixture, lookup);
    ASSERT_NE(theirs, nullptr) << Show(path) << " is not in memtier's layout";
    EXPECT_EQ(Kind(*Find(ours, path)), Kind(*theirs)) << Show(path);
  }
}

// A real memtier_benchmark's file (tests/fixtures/README.md): every key path in it is in
// ours, with the same JSON type. A second of a Time-Serie is compared with our second
// "0"; a second without replies has no latencies in either (memtier's rule).
TEST(MemtierJson, EveryKeyOfARealMemtierFileIsOurs) {
  std::ifstream f(testutil::SourceDir() + "/tests/fixtures/memtier_2f74d61_real.json");
  ASSERT_TRUE(f.good()) << "missing fixture";
  const Json real = Json::parse(f);
  FakeMemtierRun fake;
  fake.options.threads = 1;
  fake.options.clients = 4;
  const Json ours = MemtierJson(fake.report);
  std::vector<Path> paths;
  Path prefix;
  Walk(real, &prefix, &paths);
  ASSERT_GT(paths.size(), 190u);
  size_t checked = 0;
  for (const Path& path : paths) {
    Path lookup = path;
    for (size_t i = 1; i < lookup.size(); ++i) {
      if (lookup[i - 1] == "Time-Serie") lookup[i] = "0";
    }
    const bool waits_second = path.size() > 3 && path[1] == "Waits" && path[2] == "Time-Serie";
    const Json* theirs = Find(real, path);
    if (!waits_second && Find(ours, lookup) == nullptr && path.size() > 4 && path[2] == "Time-Serie" &&
        Find(real, Path(path.begin(), path.begin() + 4))->size() == 3) {
      continue;  // a second of theirs without replies: their latency keys have no counterpart
    }
    const Json* mine = Find(ours, lookup);
    ASSERT_NE(mine, nullptr) << Show(path) << " is missing from our output";
    EXPECT_EQ(Kind(*mine), Kind(*theirs)) << Show(path);
    ++checked;
  }
  EXPECT_GT(checked, 190u);
  EXPECT_EQ(ours["configuration"]["authenticate"], "");  // never a password
  fake.options.target.password = "S3cret";
  EXPECT_EQ(MemtierJson(fake.report)["configuration"]["authenticate"], "***");
}

TEST(MemtierJson, ValuesInMemtiersUnits) {
  FakeMemtierRun fake;
  Json j = MemtierJson(fake.report);
  const Json& all = j["ALL STATS"];
  ASSERT_TRUE(all.contains("Sets"));
  ASSERT_TRUE(all.contains("Gets"));
  EXPECT_EQ(all["Totals"]["Count"], 11000);
  EXPECT_DOUBLE_EQ(all["Sets"]["Ops/sec"].get<double>(), 500.0);
  EXPECT_DOUBLE_EQ(all["Totals"]["Ops/sec"].get<double>(), 5500.0);
  EXPECT_DOUBLE_EQ(all["Gets"]["Hits/sec"].get<double>(), 1500.0);
  EXPECT_DOUBLE_EQ(all["Gets"]["Misses/sec"].get<double>(), 3500.0);
  EXPECT_DOUBLE_EQ(all["Sets"]["Hits/sec"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(all["Sets"]["KB/sec RX"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(all["Sets"]["KB/sec TX"].get<double>(), 35.0);
  EXPECT_DOUBLE_EQ(all["Sets"]["KB/sec"].get<double>(), 37.5);
  EXPECT_DOUBLE_EQ(all["Totals"]["KB/sec"].get<double>(), (55.0 + 440.0) / 2);
  EXPECT_EQ(all["Totals"]["Connection Errors"], 4);
  EXPECT_DOUBLE_EQ(all["Totals"]["Connection Errors/sec"].get<double>(), 2.0);
  EXPECT_EQ(all["Sets"]["Connection Errors"], 0);
  // Latencies in milliseconds: SET recorded 300..999 us, mean 589.5 us.
  const HdrHistogram& set = fake.result.totals.commands[0].latency_ns;
  EXPECT_DOUBLE_EQ(all["Sets"]["Min Latency"].get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(all["Sets"]["Max Latency"].get<double>(), set.max() / 1e6);
  EXPECT_NEAR(all["Sets"]["Latency"].get<double>(), 0.5895, 0.001);
  EXPECT_EQ(all["Sets"]["Latency"], all["Sets"]["Average Latency"]);
  EXPECT_NEAR(all["Sets"]["Accumulated Latency"].get<double>(), 589.5, 1.0);  // ms in total
  const Json& pct = all["Sets"]["Percentile Latencies"];
  EXPECT_DOUBLE_EQ(pct["p50.00"].get<double>(), set.ValueAtPercentile(50) / 1e6);
  EXPECT_DOUBLE_EQ(pct["p99.90"].get<double>(), set.ValueAtPercentile(99.9) / 1e6);
  EXPECT_TRUE(pct.contains("p99.99"));  // memstand's default percentiles
  // The runtime in epoch milliseconds, as memtier.
  const Json& rt = all["Runtime"];
  EXPECT_EQ(rt["Start time"], 1764460503212);
  EXPECT_EQ(rt["Total duration"], 2000);
  EXPECT_EQ(rt["Finish time"], 1764460505212);
  EXPECT_EQ(rt["Time unit"], "MILLISECONDS");
  EXPECT_EQ(rt["Interrupted"], "false");
  EXPECT_EQ(j["configuration"]["ratio"], "1:10");
  EXPECT_EQ(j["configuration"]["test_time"], 3);
  EXPECT_EQ(j["run information"]["Seconds"], 3);
  EXPECT_FALSE(j["run information"].contains("Requests per client"));
}

// memtier's per-second "Time-Serie": by second, per command type and for Totals.
TEST(MemtierJson, TimeSerieHasEverySecondOfEachCommand) {
  FakeMemtierRun fake;
  Json j = MemtierJson(fake.report);
  const Json& sets = j["ALL STATS"]["Sets"]["Time-Serie"];
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets["0"]["Count"], 400);
  EXPECT_EQ(sets["1"]["Count"], 600);
  EXPECT_EQ(sets["1"]["Bytes RX"], 600 * 5);
  EXPECT_EQ(sets["1"]["Bytes TX"], 600 * 70);
  EXPECT_DOUBLE_EQ(sets["0"]["Min Latency"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(sets["1"]["Max Latency"].get<double>(), 0.6);
  const Json& totals = j["ALL STATS"]["Totals"]["Time-Serie"];
  EXPECT_EQ(totals["0"]["Count"], 4400);
  EXPECT_EQ(totals["1"]["Count"], 6600);
  EXPECT_EQ(totals["1"]["Bytes TX"], 6600 * 70);
  EXPECT_NEAR(totals["1"]["Accumulated Latency"].get<double>(), 6600 * 0.6, 1.0);  // ms in total
  EXPECT_NEAR(totals["0"]["p99.90"].get<double>(), 0.5, 0.001);  // every reply of second 0: 500 us
  EXPECT_NEAR(totals["1"]["p50.00"].get<double>(), 0.6, 0.001);
  EXPECT_TRUE(totals["0"].contains("p99.99"));  // memstand's default percentiles
}

// Without memtier's --hide-histogram: a "SET" and a "GET" array of {"<=msec", "percent"}
// steps, as memtier's fixture has them, ending at 100%.
TEST(MemtierJson, DistributionArraysWhenTheHistogramIsShown) {
  Json fixture = MemtierFixture();
  FakeMemtierRun fake;
  Json j = MemtierJson({{"ALL STATS", &fake.report, true}}, 1, nullptr);
  for (const char* type : {"SET", "GET"}) {
    const Json& steps = j["ALL STATS"][type];
    ASSERT_TRUE(steps.is_array() && !steps.empty()) << type;
    const Json& theirs = fixture["ALL STATS"][type][0];
    for (const auto& [key, value] : steps[0].items()) {
      ASSERT_TRUE(theirs.contains(key)) << key;
      EXPECT_EQ(Kind(value), Kind(theirs[key])) << key;
    }
    EXPECT_DOUBLE_EQ(steps.back()["percent"].get<double>(), 100.0);
  }
  // SET recorded 300..999 us: the last step is the highest, 0.999 ms.
  EXPECT_DOUBLE_EQ(j["ALL STATS"]["SET"].back()["<=msec"].get<double>(), 0.999);
  EXPECT_FALSE(MemtierJson(fake.report)["ALL STATS"].contains("SET")) << "hidden by default";
}

TEST(MemtierJson, CompressedHistogramIsInMicroseconds) {
  FakeMemtierRun fake;
  Json j = MemtierJson(fake.report);
  // memtier records microseconds; so must the histogram its users decode.
  HdrHistogram us(1, 3'600'000'000LL, 3);
  for (int i = 0; i < 1000; ++i) us.Record(300 + i % 700);
  EXPECT_EQ(j["ALL STATS"]["Sets"]["Percentile Latencies"]["Histogram log format"]
             ["Compressed Histogram"],
            EncodeCompressedV2Base64(us));
  std::string fixture_blob = MemtierFixture()["ALL STATS"]["Sets"]["Percentile Latencies"]
                                      ["Histogram log format"]["Compressed Histogram"];
  EXPECT_EQ(EncodeCompressedV2Base64(us).substr(0, 5), fixture_blob.substr(0, 5))
      << "same V2 compressed cookie as memtier's";
}

TEST(MemtierJson, RequestsModeAndMergedCommandNames) {
  FakeMemtierRun fake;
  fake.options.requests = 10001;
  fake.options.duration_s = 0;
  fake.options.commands.push_back(Command("set __key__ x", 2, "SET#3"));
  fake.options.commands.push_back(Command("HGET h __key__", 1, "HGET"));
  fake.result.totals.commands.resize(4);
  fake.result.totals.commands[2].ops = 7;
  fake.result.totals.commands[3].ops = 9;
  Json j = MemtierJson(fake.report);
  EXPECT_EQ(j["ALL STATS"]["Sets"]["Count"], 1007) << "commands of one name merge, as memtier";
  EXPECT_EQ(j["ALL STATS"]["Hgets"]["Count"], 9);
  EXPECT_EQ(j["run information"]["Requests per client"], 51);  // 10001 over 200, rounded up
  EXPECT_EQ(j["configuration"]["requests"], 51);
  EXPECT_EQ(j["configuration"]["ratio"], "3:10");
  std::vector<std::string> order;
  for (const auto& [key, value] : j["ALL STATS"].items()) order.push_back(key);
  EXPECT_EQ(order, (std::vector<std::string>{"Runtime", "Sets", "Gets", "Hgets", "Totals"}));
}

// A memtier line's settings that the options do not keep go into "configuration" as
// memtier writes them; without a line (memstand run --json-format memtier) the
// configuration describes memstand's own run.
TEST(MemtierJson, ConfigurationTakesWhatTheLineSays) {
  FakeMemtierRun fake;
  fake.options.target.host = "127.0.0.1";
  fake.options.target.port = 7851;
  const Json run = MemtierJson(fake.report)["configuration"];
  EXPECT_NE(run["uri"], "");
  EXPECT_EQ(run["connection_timeout"], fake.options.connect_timeout_ms / 1000);
  EXPECT_EQ(run["protocol"], "redis");
  EXPECT_EQ(run["out_file"], nullptr);
  EXPECT_EQ(run["data_size_list"], "");
  EXPECT_EQ(run["expiry_range"], "0:0");
  EXPECT_EQ(run["print-all-runs"], "false");

  MemtierLine plain;  // -s/-p, nothing else: memtier's unset values
  Json j = MemtierJson({{"ALL STATS", &fake.report}}, 1, &plain)["configuration"];
  EXPECT_EQ(j["uri"], "");
  EXPECT_EQ(j["connection_timeout"], 0);

  MemtierLine line;
  line.uri_given = true;
  line.resp2 = true;
  line.connection_timeout_s = 7;
  line.out_file = "report.txt";
  line.data_size_list = "100:1";
  line.expiry_range = "30:30";
  line.print_all_runs = true;
  fake.options.target.password = "S3cret";
  j = MemtierJson({{"ALL STATS", &fake.report}}, 1, &line)["configuration"];
  EXPECT_EQ(j["uri"], fake.options.target.Display());
  EXPECT_EQ(j["uri"].get<std::string>().find("S3cret"), std::string::npos);
  EXPECT_EQ(j["protocol"], "resp2");
  EXPECT_EQ(j["connection_timeout"], 7);
  EXPECT_EQ(j["out_file"], "report.txt");
  EXPECT_EQ(j["data_size_list"], "100:1");
  EXPECT_EQ(j["data_size"], 0) << "memtier: a size list leaves data_size unset";
  EXPECT_EQ(j["expiry_range"], "30:30");
  EXPECT_EQ(j["print-all-runs"], "true");
  fake.options.protocol = Protocol::kMemcache;
  EXPECT_EQ(MemtierJson(fake.report)["configuration"]["protocol"], "memcache_text");
  fake.options.protocol = Protocol::kResp;
  fake.options.resp = 3;
  EXPECT_EQ(MemtierJson(fake.report)["configuration"]["protocol"], "resp3");
}

TEST(MemtierJson, NamesAndPercentileKeys) {
  EXPECT_EQ(MemtierCommandName("SET"), "Sets");
  EXPECT_EQ(MemtierCommandName("hget"), "Hgets");
  EXPECT_EQ(MemtierPercentileKey(50), "p50.00");
  EXPECT_EQ(MemtierPercentileKey(99), "p99.00");
  EXPECT_EQ(MemtierPercentileKey(99.9), "p99.90");
  EXPECT_EQ(MemtierPercentileKey(99.99), "p99.99");
  EXPECT_EQ(MemtierPercentileKey(5), "p5.000");
  EXPECT_EQ(MemtierPercentileKey(100), "p100.0");
  EXPECT_EQ(MemtierPercentileKey(99.999), "p99.999");
  EXPECT_EQ(MemtierPercentileKey(99.99999), "p99.99999");
}

}  // namespace
}  // namespace memstand
