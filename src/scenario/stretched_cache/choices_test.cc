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
  EXPECT_EQ(p.pay, "at one-way 40 ms a write acknowledged by the replica took 80.6 ms (median): the round trip 80.0 ms "
                   "+ 0.6 ms");
  EXPECT_EQ(ChoiceRowOf(rows, "Redis SET, then WAIT 1 after its reply").support, "not measured here");  // no such cell
}

}  // namespace
}  // namespace memstand
