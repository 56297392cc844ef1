// The choice map from crafted scenario results: measured rows name their scenario,
// figure and file and are worded by the outcome measured; a scenario not given leaves
// its rows "not measured here" without a number; the judgment rows are docs/choice-map.md's.
#include "report/choice_map.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "test_paths.h"

namespace memstand {
namespace {

using nlohmann::json;

json WorkingSet() {
  return {{"scenario", "working-set"},
          {"configurations",
           {{{"name", "redis-allkeys-lru"},
             {"runs", {{{"outcome", "evicts"}, {"evicted", 168900}, {"attempted", 200000}, {"present", 31100},
                        {"exact_eviction", 31742}}}}},
            {{"name", "redis-noeviction"},
             {"runs", {{{"outcome", "rejects"}, {"first_rejected_write", 31408}, {"present", 31408},
                        {"first_error", "OOM command not allowed"}}}}},
            // Measured otherwise than expected: the row says what was measured.
            {{"name", "memcached-8m"}, {"runs", {{{"outcome", "keeps all"}, {"present", 200000}, {"attempted", 200000}}}}}}}};
}

const ChoiceRow& Row(const std::vector<ChoiceRow>& rows, const std::string& system) {
  for (const ChoiceRow& r : rows) {
    if (r.system == system) return r;
  }
  static const ChoiceRow kNone;
  ADD_FAILURE() << "no row " << system;
  return kNone;
}

TEST(ChoiceMapTest, MeasuredRowsNameTheirScenarioFigureAndFile) {
  const auto rows = ChoiceMap({{"ws.json", WorkingSet()}});
  const ChoiceRow& lru = Row(rows, "Redis, maxmemory-policy allkeys-lru");
  EXPECT_EQ(lru.support, "measured here");
  EXPECT_EQ(lru.pay, "168900 of 200000 records evicted, 31100 kept (run 1 of 1)");
  EXPECT_EQ(lru.source, "working-set: redis-allkeys-lru evicts, first eviction with write 31742 (ws.json)");
  const ChoiceRow& noev = Row(rows, "Redis, maxmemory-policy noeviction");
  EXPECT_NE(noev.pay.find("writes refused from write 31408 on ('OOM command not allowed')"), std::string::npos)
      << noev.pay;
  EXPECT_EQ(Row(rows, "memcached -m 8").faster, "keeps every record: the data lives on disk, memory holds a part");
}

TEST(ChoiceMapTest, AScenarioNotGivenIsNotMeasuredHereWithoutANumber) {
  const auto rows = ChoiceMap({{"ws.json", WorkingSet()}});
  const ChoiceRow& memtx = Row(rows, "Tarantool memtx at its memtx_memory");  // not in the input's configurations
  EXPECT_EQ(memtx.support, "not measured here");
  EXPECT_EQ(memtx.pay, "");
  EXPECT_EQ(memtx.source, "ws.json holds no result for this row (not run, failed or another version)");
  const ChoiceRow& etcd = Row(rows, "etcd at its default 64 MiB quota");
  EXPECT_EQ(etcd.support, "not measured here");
  EXPECT_EQ(etcd.source, "memstand scenario run mvcc-quota --json FILE, then give FILE");
  for (const ChoiceRow& r : rows) {
    if (r.support == "not measured here") {
      EXPECT_EQ(r.pay, "") << r.system;  // never a number from elsewhere
    }
  }
}

TEST(ChoiceMapTest, MvccAndLocalityRows) {
  const json mq = {{"scenario", "mvcc-quota"},
                   {"profile", {{"keys", 5000}, {"quota_bytes", 67108864}}},
                   {"etcd", {{"first_failed_write", 48556}, {"error", "mvcc: database space exceeded"},
                             {"db_size_at_failure", 67133440}, {"db_size_after_recovery", 6914048}}},
                   {"redis", {{"attempted", 50000}, {"successful", 50000}, {"errors", 0}, {"used_memory_delta", 6835136}}},
                   {"ratio", 9.82}};
  const json cl = {{"scenario", "compute-locality"},
                   {"systems",
                    {{{"name", "tarantool"},
                      {"pairs", {{{"label", "as published"}, {"objects", 3327.6}, {"bytes_in", 4434.7}, {"time", 67.2}},
                                 {{"label", "control 2, aligned algorithm"}, {"time", 439.9}}}}},
                     {{"name", "postgresql"}, {"not_run", "not run: postgres is not installed"}}}}};
  const auto rows = ChoiceMap({{"mq.json", mq}, {"cl.json", cl}});
  const ChoiceRow& etcd = Row(rows, "etcd at its default 64 MiB quota");
  EXPECT_EQ(etcd.support, "measured here");
  EXPECT_NE(etcd.pay.find("writes fail from write 48556"), std::string::npos) << etcd.pay;
  EXPECT_NE(Row(rows, "Redis").pay.find("grew 9.8x as much"), std::string::npos) << Row(rows, "Redis").pay;
  const ChoiceRow& t = Row(rows, "Tarantool, a stored Lua function over a TREE index");
  EXPECT_EQ(t.support, "measured here");
  EXPECT_NE(t.faster.find("3327.6x fewer objects, 4434.7x fewer bytes, 67.2x less time"), std::string::npos) << t.faster;
  EXPECT_NE(t.pay.find("took 439.9x the time"), std::string::npos) << t.pay;
  EXPECT_EQ(Row(rows, "PostgreSQL, ORDER BY ... LIMIT").support, "not measured here");  // not run in the input
  EXPECT_EQ(Row(rows, "Redis, a sorted set per category").support, "not measured here");
}

TEST(ChoiceMapTest, StretchedCacheRowsTakeThePipelinedRelayAtTheLargestDistance) {
  const json sc = {{"scenario", "stretched-cache"},
                   {"cells",
                    {{{"client", "pipelined"}, {"relay_mode", "pipelined"}, {"run", 1}, {"one_way_ns", 5000000},
                      {"round_trip_ns", 10000000}, {"median_ns", 10400000}},
                     {{"client", "pipelined"}, {"relay_mode", "pipelined"}, {"run", 1}, {"one_way_ns", 40000000},
                      {"round_trip_ns", 80000000}, {"median_ns", 80600000}},
                     {{"client", "pipelined"}, {"relay_mode", "serializing"}, {"run", 1}, {"one_way_ns", 40000000},
                      {"round_trip_ns", 80000000}, {"median_ns", 99000000}}}}};
  const auto rows = ChoiceMap({{"sc.json", sc}});
  const ChoiceRow& p = Row(rows, "Redis SET + WAIT 1 in one write");
  EXPECT_EQ(p.support, "measured here");
  EXPECT_EQ(p.pay, "at one-way 40 ms a write acknowledged by the replica took 80.6 ms (median): the round trip 80.0 ms "
                   "+ 0.6 ms");
  EXPECT_EQ(Row(rows, "Redis SET, then WAIT 1 after its reply").support, "not measured here");  // no such cell
}

TEST(ChoiceMapTest, DurabilityRowsGiveThePricePerSizeAndTheRunsWithErrors) {
  const json d = {{"scenario", "durability-overload"},
                  {"durability_price",
                   {{{"mode", "aof-everysec"}, {"size", 100}, {"payload", "random"}, {"ratio", 0.58}, {"n", 3}},
                    {{"mode", "aof-everysec"}, {"size", 262144}, {"payload", "random"}, {"ratio", 0.22}, {"n", 3}}}},
                  {"matrix",
                   {{{"mode", "aof-everysec"}, {"op", "SET"}, {"runs", 3}, {"runs_with_errors", 1}},
                    {{"mode", "aof-everysec"}, {"op", "GET"}, {"runs", 3}, {"runs_with_errors", 3}},
                    {{"mode", "none"}, {"op", "SET"}, {"runs", 3}, {"runs_with_errors", 0}}}}};
  const auto rows = ChoiceMap({{"do.json", d}});
  const ChoiceRow& e = Row(rows, "Redis Cluster, AOF appendfsync everysec");
  EXPECT_EQ(e.support, "measured here");
  EXPECT_EQ(e.pay, "SET throughput against no persistence: 100 B random: 0.58x (N=3), 262144 B random: 0.22x (N=3); "
                   "SET cells with errors in 1 of 3 runs");
  EXPECT_EQ(Row(rows, "Redis Cluster, AOF appendfsync always").support, "not measured here");
}

TEST(ChoiceMapTest, ReplicationRowsGiveTheRatiosOfRunOneOrHowOftenThePathHeld) {
  const json d = {
      {"scenario", "replication-cost"},
      {"cells",
       {{{"run", 1}, {"system", "tarantool"}, {"path", "sync-write"}, {"ok", false}, {"stalled", true}},
        {{"run", 1}, {"system", "tarantool"}, {"path", "sync-write"}, {"ok", true}, {"stalled", true}},
        {{"run", 1}, {"system", "tarantool"}, {"path", "sync-write-all"}, {"ok", true}, {"stalled", false}}}},
      {"ratios",
       {{{"run", 1}, {"system", "tarantool"}, {"a", "sync-write-all"}, {"b", "async-write"}, {"concurrency", 1},
         {"throughput_ratio", 0.2}},
        {{"run", 1}, {"system", "tarantool"}, {"a", "sync-write-all"}, {"b", "async-write"}, {"concurrency", 4},
         {"throughput_ratio", 0.45}},
        {{"run", 2}, {"system", "tarantool"}, {"a", "sync-write-all"}, {"b", "async-write"}, {"concurrency", 1},
         {"throughput_ratio", 0.9}},
        {{"run", 1}, {"system", "redis"}, {"a", "set+wait1"}, {"b", "set"}, {"concurrency", 1},
         {"throughput_ratio", 0.23}}}}};
  const auto rows = ChoiceMap({{"rc.json", d}});
  const ChoiceRow& all = Row(rows, "Tarantool, an is_sync space, a quorum of every member");
  EXPECT_EQ(all.support, "measured here");
  EXPECT_EQ(all.pay, "throughput sync-write-all / async-write by connections 1: 0.20x, 4: 0.45x");
  EXPECT_EQ(all.source, "replication-cost: sync-write-all / async-write throughput at equal concurrency 1: 0.20x, "
                        "4: 0.45x (rc.json)");
  const ChoiceRow& majority = Row(rows, "Tarantool, an is_sync space, a majority quorum");
  EXPECT_EQ(majority.support, "measured here");
  EXPECT_EQ(majority.pay, "sync-write held in 0 of its 2 cells (stalled or failed: see the scenario's report), so "
                          "no ratio to async-write");
  EXPECT_EQ(Row(rows, "Redis SET + WAIT 1").pay, "throughput set+wait1 / set by connections 1: 0.23x");
  EXPECT_EQ(Row(rows, "Redis SET + WAIT 2").support, "not measured here");
  EXPECT_EQ(Row(rows, "Tarantool, reads round robin over 3 replicas").support, "not measured here");
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
  const auto rows = ChoiceMap({});
  EXPECT_EQ(rows.size() - JudgmentRows().size(), 19u);  // the measured rows, all not measured here
  const std::string text = ChoiceMapText(rows);
  EXPECT_NE(text.find("support: judgment"), std::string::npos);
  EXPECT_EQ(ChoiceMapJson(rows).size(), rows.size());
}

}  // namespace
}  // namespace memstand
