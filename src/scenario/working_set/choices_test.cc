// working-set's rows of the choice map from a crafted result: worded by the outcome
// measured, naming the scenario, the figure and the file.
#include <gtest/gtest.h>

#include "report/choice_map.h"
#include "report_util.h"
#include "scenario_contract_util.h"
#include "scenario/working_set/working_set.h"

namespace memstand {
namespace {

using nlohmann::json;
using testutil::ChoiceRowOf;
using testutil::WorkingSetChoiceResult;

TEST(ChoiceMapTest, MeasuredRowsNameTheirScenarioFigureAndFile) {
  const auto rows = ChoiceMap({{"ws.json", WorkingSetChoiceResult()}}, WorkingSetChoiceRows(), {});
  const ChoiceRow& lru = ChoiceRowOf(rows, "Redis, maxmemory-policy allkeys-lru");
  EXPECT_EQ(lru.support, "measured here");
  EXPECT_EQ(lru.pay, "168900 (N=1) of 200000 (N=1) records evicted, 31100 (N=1) kept (evicts in 1 of 1 runs)");
  EXPECT_EQ(lru.source, "working-set: redis-allkeys-lru evicts, first eviction with write 31742 (N=1) (ws.json)");
  const ChoiceRow& noev = ChoiceRowOf(rows, "Redis, maxmemory-policy noeviction");
  EXPECT_NE(noev.pay.find("writes refused from write 31408 (N=1) on ('OOM command not allowed')"),
            std::string::npos)
      << noev.pay;
  EXPECT_EQ(ChoiceRowOf(rows, "memcached -m 8").faster,
            "keeps every record: the data lives on disk, memory holds a part");
}

// Three runs of different figures: each figure their min median max with N=3; a run of
// another outcome is named, not folded into the ranges.
TEST(ChoiceMapTest, WorkingSetRowsAreRangesOverEveryRun) {
  json doc = WorkingSetChoiceResult();
  json& lru = doc["configurations"][0]["runs"];
  lru.push_back({{"outcome", "evicts"}, {"evicted", 170000}, {"attempted", 200000}, {"present", 30000},
                 {"exact_eviction", 31000}});
  lru.push_back({{"outcome", "evicts"}, {"evicted", 160000}, {"attempted", 200000}, {"present", 40000},
                 {"exact_eviction", 32000}});
  lru.push_back({{"outcome", "rejects"}, {"first_rejected_write", 5}, {"present", 5}});
  const auto rows = ChoiceMap({{"ws.json", doc}}, WorkingSetChoiceRows(), {});
  const ChoiceRow& row = ChoiceRowOf(rows, "Redis, maxmemory-policy allkeys-lru");
  EXPECT_EQ(row.pay,
            "160000 168900 170000 (min median max, N=3) of 200000 200000 200000 (min median max, N=3) records "
            "evicted, 30000 31100 40000 (min median max, N=3) kept (evicts in 3 of 4 runs; rejects in 1)");
  EXPECT_EQ(row.source, "working-set: redis-allkeys-lru evicts, first eviction with write 31000 31742 32000 (min "
                        "median max, N=3) (ws.json)");
}

// --reads: a configuration's row adds its reads' hit ratios and p99s; vinyl's reads fill the
// row of data far larger than memory (without them it is not measured here).
TEST(ChoiceMapTest, WorkingSetRowsCiteTheReadsAndVinylsReadsAreARowOfTheirOwn) {
  json doc = WorkingSetChoiceResult();
  EXPECT_EQ(ChoiceRowOf(ChoiceMap({{"ws.json", doc}}, WorkingSetChoiceRows(), {}),
                        "Tarantool vinyl (an LSM tree), reads by key after the load")
                .support,
            "not measured here");
  doc["configurations"][0]["runs"][0]["reads"] = {
      {"distribution", "zipf"}, {"hit_ratio", 0.11}, {"server", {{"hit_ratio", 0.11}}},
      {"latency", {{"hit", {{"p99_us", 330}}}, {"miss", {{"p99_us", 604}}}}}};
  doc["configurations"].push_back(
      {{"name", "tarantool-vinyl"},
       {"runs",
        {{{"outcome", "keeps all"}, {"present", 200000}, {"attempted", 200000},
          {"reads",
           {{"distribution", "zipf"}, {"hit_ratio", 1.0},
            {"vinyl",
             {{"cache_hit_ratio", 0.651}, {"disk_share", 0.349}, {"memory", {{"p50_us", 109}, {"p99_us", 4268}}},
              {"disk", {{"p50_us", 193}, {"p99_us", 4452}}}}}}}}}}});
  const auto rows = ChoiceMap({{"ws.json", doc}}, WorkingSetChoiceRows(), {});
  EXPECT_EQ(ChoiceRowOf(rows, "Redis, maxmemory-policy allkeys-lru").pay,
            "168900 (N=1) of 200000 (N=1) records evicted, 31100 (N=1) kept (evicts in 1 of 1 runs); zipf reads "
            "after the load: hit ratio 0.110 (N=1) (the server's counters: 0.110 (N=1)), p99 of hits 330 µs (N=1), "
            "p99 of misses 604 µs (N=1)");
  const ChoiceRow& vinyl = ChoiceRowOf(rows, "Tarantool vinyl (an LSM tree), reads by key after the load");
  EXPECT_EQ(vinyl.support, "measured here");
  EXPECT_EQ(vinyl.task, "data far larger than memory with a hot subset");
  EXPECT_EQ(vinyl.faster,
            "the hot part is read from memory: tuple cache hit ratio 0.651 (N=1), p50 109 µs (N=1) / p99 4268 µs (N=1)");
  EXPECT_EQ(vinyl.pay,
            "0.349 (N=1) of the zipf reads searched the runs on disk: p50 193 µs (N=1) / p99 4452 µs (N=1) (1 of 1 "
            "runs with reads)");
  EXPECT_EQ(vinyl.source, "working-set: tarantool-vinyl zipf reads: disk-read p99 4452 µs (N=1), tuple cache hit "
                          "ratio 0.651 (N=1) (ws.json)");
}

}  // namespace
}  // namespace memstand
