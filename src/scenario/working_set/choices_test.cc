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

}  // namespace
}  // namespace memstand
