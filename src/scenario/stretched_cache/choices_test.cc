// stretched-cache's rows of the choice map from a crafted result.
#include <gtest/gtest.h>

#include "report/choice_map.h"
#include "report_util.h"
#include "scenario/stretched_cache/stretched_cache.h"

namespace memstand {
namespace {

using nlohmann::json;
using testutil::ChoiceRowOf;

TEST(ChoiceMapTest, StretchedCacheRowsTakeThePipelinedRelayAtTheLargestDistance) {
  const json sc = {{"scenario", "stretched-cache"},
                   {"cells",
                    {{{"client", "pipelined"}, {"relay_mode", "pipelined"}, {"run", 1}, {"one_way_ns", 5000000},
                      {"round_trip_ns", 10000000}, {"median_ns", 10400000}},
                     {{"client", "pipelined"}, {"relay_mode", "pipelined"}, {"run", 1}, {"one_way_ns", 40000000},
                      {"round_trip_ns", 80000000}, {"median_ns", 80600000}},
                     {{"client", "pipelined"}, {"relay_mode", "serializing"}, {"run", 1}, {"one_way_ns", 40000000},
                      {"round_trip_ns", 80000000}, {"median_ns", 99000000}}}}};
  const auto rows = ChoiceMap({{"sc.json", sc}}, StretchedCacheChoiceRows(), {});
  const ChoiceRow& p = ChoiceRowOf(rows, "Redis SET + WAIT 1 in one write");
  EXPECT_EQ(p.support, "measured here");
  EXPECT_EQ(p.pay, "at one-way 40 ms a write acknowledged by the replica took 80.6 ms (N=1) (each run's median): the "
                   "round trip 80.0 ms + 0.6 ms (N=1)");
  EXPECT_EQ(ChoiceRowOf(rows, "Redis SET, then WAIT 1 after its reply").support, "not measured here");  // no such cell
}

TEST(ChoiceMapTest, StretchedCacheRowsAreRangesOverTheRuns) {
  json sc = {{"scenario", "stretched-cache"}, {"cells", json::array()}};
  for (int run : {1, 2, 3}) {
    sc["cells"].push_back({{"client", "sequential"}, {"relay_mode", "pipelined"}, {"run", run},
                           {"one_way_ns", 40000000}, {"round_trip_ns", 80000000},
                           {"median_ns", 160000000 + run * 1000000}});
  }
  const auto rows = ChoiceMap({{"sc.json", sc}}, StretchedCacheChoiceRows(), {});
  EXPECT_EQ(ChoiceRowOf(rows, "Redis SET, then WAIT 1 after its reply").pay,
            "at one-way 40 ms a write acknowledged by the replica took 161.0 162.0 163.0 ms (min median max, N=3) "
            "(each run's median): the round trip 80.0 ms + 81.0 82.0 83.0 ms (min median max, N=3)");
}

}  // namespace
}  // namespace memstand
