// durability-overload's rows of the choice map from a crafted result.
#include <gtest/gtest.h>

#include "report/choice_map.h"
#include "report_util.h"
#include "scenario/durability_overload/durability_overload.h"

namespace memstand {
namespace {

using nlohmann::json;
using testutil::ChoiceRowOf;

TEST(ChoiceMapTest, DurabilityRowsGiveThePricePerSizeAndTheRunsWithErrors) {
  const json d = {{"scenario", "durability-overload"},
                  {"durability_price",
                   {{{"mode", "aof-everysec"}, {"size", 100}, {"payload", "random"}, {"ratio", 0.58}, {"n", 3}},
                    {{"mode", "aof-everysec"}, {"size", 262144}, {"payload", "random"}, {"ratio", 0.22}, {"n", 3}}}},
                  {"matrix",
                   {{{"mode", "aof-everysec"}, {"op", "SET"}, {"runs", 3}, {"runs_with_errors", 1}},
                    {{"mode", "aof-everysec"}, {"op", "GET"}, {"runs", 3}, {"runs_with_errors", 3}},
                    {{"mode", "none"}, {"op", "SET"}, {"runs", 3}, {"runs_with_errors", 0}}}}};
  const auto rows = ChoiceMap({{"do.json", d}}, DurabilityOverloadChoiceRows(), {});
  const ChoiceRow& e = ChoiceRowOf(rows, "Redis Cluster, AOF appendfsync everysec");
  EXPECT_EQ(e.support, "measured here");
  EXPECT_EQ(e.pay, "SET throughput against no persistence: 100 B random: 0.58x (N=3), 262144 B random: 0.22x (N=3); "
                   "SET cells with errors in 1 of 3 runs");
  EXPECT_EQ(ChoiceRowOf(rows, "Redis Cluster, AOF appendfsync always").support, "not measured here");
}

}  // namespace
}  // namespace memstand
