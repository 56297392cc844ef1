// The availability of a merged fleet (docs/scale-out.md#availability): two shards with
// --reconnect started with one --start-at against a redis-server that is stopped
// (SIGSTOP) and continued mid-run, then `memstand merge`. The fleet's lost connections
// are the shards' summed, and its outages are the union of the shards' on the wall
// clock, recomputed here from the shards' own JSON (recorded values, no timing).
#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/clock.h"
#include "e2e/e2e_util.h"

namespace memstand::e2e {
namespace {

using Json = nlohmann::json;

struct Span {
  double start = 0, end = 0;
};

// The SET outages each shard listed, on the wall clock, joined where they overlap; false
// when a shard counted more than it listed (then the merge gives upper bounds).
bool UnionOfListed(const std::vector<Json>& shards, std::vector<Span>* out) {
  std::vector<Span> all;
  bool complete = true;
  for (const Json& s : shards) {
    const double start = s["start_at"]["measured_start_unix_s"].get<double>();
    const Json& c = s["availability"]["commands"]["SET"];
    complete &= c["outages"].get<size_t>() == c["longest"].size();
    for (const Json& o : c["longest"]) {
      const double from = start + o["start_s"].get<double>();
      all.push_back({from, from + o["length_s"].get<double>()});
    }
  }
  std::sort(all.begin(), all.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  for (const Span& s : all) {
    if (!out->empty() && s.start <= out->back().end) {
      out->back().end = std::max(out->back().end, s.end);
    } else {
      out->push_back(s);
    }
  }
  return complete;
}

TEST(MergeAvailabilityE2E, ShardsOutagesOfOneStoppedServerAreJoined) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  const std::string dir = TempDir();
  const int64_t at = static_cast<int64_t>(UnixNowS()) + 2;
  std::vector<std::unique_ptr<Running>> shards;
  for (int k = 0; k < 2; ++k) {
    shards.push_back(Running::Start(
        {"run", "--target", Url(*redis), fmt::format("--shard={}/2", k), fmt::format("--start-at={}", at),
         "--warmup=0", "--reconnect", "--reconnect-min", "20ms", "--reconnect-max", "200ms",
         "--request-timeout", "300ms", "--connect-timeout", "300ms", "--duration", "6s", "-c", "2",
         "--ratio", "1:0", fmt::format("--json={}/s{}.json", dir, k), "-q"}));
    ASSERT_NE(shards.back(), nullptr);
  }
  for (int i = 0; i < 400 && CommandCalls(*redis, "set") < 2000; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_GE(CommandCalls(*redis, "set"), 2000) << shards[0]->OutputSoFar();
  ASSERT_TRUE(redis->node().Pause().ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_TRUE(redis->node().Resume().ok());
  for (int k = 0; k < 2; ++k) {
    Outcome o = shards[k]->Wait(60);
    ASSERT_EQ(o.exit_code, 0) << "shard " << k << ": " << o.output;
  }
  Outcome merged = RunMemstand({"merge", dir + "/s0.json", dir + "/s1.json", "-o", dir + "/merged.json"});
  ASSERT_EQ(merged.exit_code, 0) << merged.output;
  const Json m = ReadJson(dir + "/merged.json");
  const std::vector<Json> s = {ReadJson(dir + "/s0.json"), ReadJson(dir + "/s1.json")};
  ASSERT_TRUE(m.contains("availability")) << m.dump().substr(0, 300);
  const Json& a = m["availability"];
  for (const char* key : {"connections_lost", "reconnects", "reconnect_failures"}) {
    EXPECT_EQ(a[key].get<uint64_t>(), s[0]["availability"][key].get<uint64_t>() +
                                          s[1]["availability"][key].get<uint64_t>()) << key;
  }
  EXPECT_GE(a["connections_lost"].get<uint64_t>(), 2u) << a.dump();  // each shard lost its own
  EXPECT_FALSE(m["options"]["reconnect"].is_null());
  // Both shards saw the stop: their outages overlap, and the fleet's are their union.
  std::vector<Span> expected;
  const bool complete = UnionOfListed(s, &expected);
  ASSERT_FALSE(expected.empty()) << s[0]["availability"].dump();
  const Json& set = a["commands"]["SET"];
  const uint64_t shard_outages = s[0]["availability"]["commands"]["SET"]["outages"].get<uint64_t>() +
                                 s[1]["availability"]["commands"]["SET"]["outages"].get<uint64_t>();
  EXPECT_LT(set["outages"].get<uint64_t>(), shard_outages) << a.dump();  // the stop's outages are one
  const double fleet_start = std::min(s[0]["start_at"]["measured_start_unix_s"].get<double>(),
                                      s[1]["start_at"]["measured_start_unix_s"].get<double>());
  const Span longest = *std::max_element(expected.begin(), expected.end(), [](const Span& x, const Span& y) {
    return x.end - x.start < y.end - y.start;
  });
  EXPECT_NEAR(set["longest"][0]["start_s"].get<double>(), longest.start - fleet_start, 1e-6) << a.dump();
  EXPECT_NEAR(set["longest"][0]["length_s"].get<double>(), longest.end - longest.start, 1e-6) << a.dump();
  if (complete) {
    double total = 0;
    for (const Span& x : expected) total += x.end - x.start;
    EXPECT_EQ(set["outages"].get<size_t>(), expected.size()) << a.dump();
    EXPECT_NEAR(set["unavailable_s"].get<double>(), total, 1e-6) << a.dump();
    EXPECT_FALSE(set.contains("exact"));
  } else {
    EXPECT_EQ(set["exact"], false) << a.dump();
  }
  // A second without an ok operation is one in which neither shard had one.
  for (const Json& run : a["seconds_without_ok"]) {
    const int second = run["first_second"].get<int>();
    for (const Json& p : m["series"]["Total"]) {
      if (p["second"].get<int>() == second) {
        EXPECT_EQ(p["ok"].get<uint64_t>(), 0u) << p.dump();
      }
    }
  }
  EXPECT_NE(merged.output.find(fmt::format("availability: connections lost {}", a["connections_lost"].get<uint64_t>())),
            std::string::npos)
      << merged.output;
}

}  // namespace
}  // namespace memstand::e2e
