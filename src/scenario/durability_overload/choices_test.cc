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
  EXPECT_EQ(e.pay, "SET throughput against no persistence: 100 B random: 0.58x (median over N=3), 262144 B random: "
                   "0.22x (median over N=3); SET cells with errors in 1 of 3 runs");
  EXPECT_EQ(ChoiceRowOf(rows, "Redis Cluster, AOF appendfsync always").support, "not measured here");
}

// With its cells, the price is each run's ratio (the mode's SET cell over none's of the
// same run) as a range; a cell that did not run is left out.
TEST(ChoiceMapTest, DurabilityPriceIsTheRangeOfEachRunsRatio) {
  json d = {{"scenario", "durability-overload"},
            {"durability_price", {{{"mode", "aof-always"}, {"size", 100}, {"payload", "random"}, {"ratio", 0.5},
                                   {"n", 3}}}},
            {"cells", json::array()}};
  auto cell = [](int run, const char* mode, double ops, bool ran = true) {
    return json{{"run", run}, {"mode", mode}, {"op", "SET"}, {"size", 100}, {"payload", "random"}, {"ran", ran},
                {"ops_per_sec", ops}};
  };
  for (const json& c : {cell(1, "none", 1000), cell(1, "aof-always", 400), cell(2, "none", 1000),
                        cell(2, "aof-always", 500), cell(3, "none", 800), cell(3, "aof-always", 480),
                        cell(4, "none", 1000), cell(4, "aof-always", 990, false)}) {
    d["cells"].push_back(c);
  }
  const auto rows = ChoiceMap({{"do.json", d}}, DurabilityOverloadChoiceRows(), {});
  EXPECT_EQ(ChoiceRowOf(rows, "Redis Cluster, AOF appendfsync always").pay,
            "SET throughput against no persistence: 100 B random: 0.40x 0.50x 0.60x (min median max, N=3); SET "
            "cells with errors in 0 of 0 runs");
}

}  // namespace
}  // namespace memstand
