// replication-cost's rows of the choice map from a crafted result.
#include <gtest/gtest.h>

#include "report/choice_map.h"
#include "report_util.h"
#include "scenario/replication_cost/replication_cost.h"

namespace memstand {
namespace {

using nlohmann::json;
using testutil::ChoiceRowOf;

// Each level's ratio is its range over the runs with their N.
TEST(ChoiceMapTest, ReplicationRowsGiveTheRatiosOverTheRunsOrHowOftenThePathHeld) {
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
  const auto rows = ChoiceMap({{"rc.json", d}}, ReplicationCostChoiceRows(), {});
  const ChoiceRow& all = ChoiceRowOf(rows, "Tarantool, an is_sync space, a quorum of every member");
  EXPECT_EQ(all.support, "measured here");
  EXPECT_EQ(all.pay, "throughput sync-write-all / async-write by connections 1: 0.20x 0.55x 0.90x (min median max, "
                     "N=2), 4: 0.45x (N=1)");
  EXPECT_EQ(all.source, "replication-cost: sync-write-all / async-write throughput at equal concurrency 1: 0.20x "
                        "0.55x 0.90x (min median max, N=2), 4: 0.45x (N=1) (rc.json)");
  const ChoiceRow& majority = ChoiceRowOf(rows, "Tarantool, an is_sync space, a majority quorum");
  EXPECT_EQ(majority.support, "measured here");
  EXPECT_EQ(majority.pay, "sync-write held in 0 of its 2 cells over 1 run(s) (stalled or failed: see the scenario's "
                          "report), so no ratio to async-write");
  EXPECT_EQ(ChoiceRowOf(rows, "Redis SET + WAIT 1").pay, "throughput set+wait1 / set by connections 1: 0.23x (N=1)");
  EXPECT_EQ(ChoiceRowOf(rows, "Redis SET + WAIT 2").support, "not measured here");
  EXPECT_EQ(ChoiceRowOf(rows, "Tarantool, reads round robin over 3 replicas").support, "not measured here");
}

}  // namespace
}  // namespace memstand
