// compute-locality's rows of the choice map from a crafted result.
#include <gtest/gtest.h>

#include "report/choice_map.h"
#include "report_util.h"
#include "scenario/compute_locality/compute_locality.h"

namespace memstand {
namespace {

using nlohmann::json;
using testutil::ChoiceRowOf;

TEST(ChoiceMapTest, LocalityRows) {
  const json cl = {{"scenario", "compute-locality"},
                   {"systems",
                    {{{"name", "tarantool"},
                      {"pairs", {{{"label", "as published"}, {"objects", 3327.6}, {"bytes_in", 4434.7}, {"time", 67.2}},
                                 {{"label", "control 2, aligned algorithm"}, {"time", 439.9}}}}},
                     {{"name", "postgresql"}, {"not_run", "not run: postgres is not installed"}}}}};
  const auto rows = ChoiceMap({{"cl.json", cl}}, ComputeLocalityChoiceRows(), {});
  const ChoiceRow& t = ChoiceRowOf(rows, "Tarantool, a stored Lua function over a TREE index");
  EXPECT_EQ(t.support, "measured here");
  EXPECT_NE(t.faster.find("3327.6x (N=1) fewer objects, 4434.7x (N=1) fewer bytes, 67.2x (N=1) less time"),
            std::string::npos)
      << t.faster;
  EXPECT_NE(t.pay.find("took 439.9x (N=1) the time"), std::string::npos) << t.pay;
  EXPECT_EQ(ChoiceRowOf(rows, "PostgreSQL, ORDER BY ... LIMIT").support, "not measured here");  // not run in the input
  EXPECT_EQ(ChoiceRowOf(rows, "Redis, a sorted set per category").support, "not measured here");
}

// One entry per system and run: the row's ratios are their ranges over the runs.
TEST(ChoiceMapTest, LocalityRowsAreRangesOverTheRuns) {
  json cl = {{"scenario", "compute-locality"}, {"systems", json::array()}};
  for (double t : {60.0, 70.0, 65.0, 0.0}) {  // 0: a run interrupted before its timed calls
    cl["systems"].push_back({{"name", "redis"},
                             {"pairs", {{{"label", "as published (records in full on both sides)"},
                                         {"objects", 500.0}, {"bytes_in", 400.0}, {"time", t}}}}});
  }
  const auto rows = ChoiceMap({{"cl.json", cl}}, ComputeLocalityChoiceRows(), {});
  const ChoiceRow& r = ChoiceRowOf(rows, "Redis, a sorted set per category");
  EXPECT_NE(r.faster.find("500.0x 500.0x 500.0x (min median max, N=3) fewer objects, 400.0x 400.0x 400.0x (min "
                          "median max, N=3) fewer bytes, 60.0x 65.0x 70.0x (min median max, N=3) less time"),
            std::string::npos)
      << r.faster;
}

}  // namespace
}  // namespace memstand
