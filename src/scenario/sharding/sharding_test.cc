#include "scenario/sharding/sharding.h"

#include <gtest/gtest.h>

#include "scenario/sharding/run.h"

namespace memstand {
namespace {

TEST(ShardingTest, TheKneeIsStatsKneeAtTenPercentAndTheBestPointIsTheHighest) {
  // 1000 -> 1900 -> 2000 (+5%, p99 up) -> 2050: the knee is the second step.
  EXPECT_EQ(ShardingKnee({1, 4, 16, 64}, {1000, 1900, 2000, 2050}, {100, 150, 400, 900}), size_t{1});
  EXPECT_EQ(ShardingKnee({1, 4, 16}, {1000, 2000, 4000}, {100, 150, 200}), std::nullopt);  // rising
  EXPECT_EQ(ShardingKnee({1, 4}, {1000, 1000}, {100, 200}), std::nullopt);                 // two steps
  EXPECT_EQ(BestPoint({5, 9, 7}), size_t{1});
  EXPECT_EQ(BestPoint({3}), size_t{0});
}

TEST(ShardingTest, OptionsAreCheckedAndTheSmallestIsSmall) {
  EXPECT_TRUE(ValidateSharding(ShardingOptions{}).ok());
  const ShardingOptions smallest = SmallestSharding();
  EXPECT_TRUE(ValidateSharding(smallest).ok());
  EXPECT_LT(ShardingExpectedSeconds(smallest, 1), 60);
  ShardingOptions o;
  o.ratios = {2, 1};
  EXPECT_NE(ValidateSharding(o).message().find("--routers-per-storage"), std::string::npos);
  o = ShardingOptions{};
  o.storages = {};
  EXPECT_NE(ValidateSharding(o).message().find("--storages"), std::string::npos);
  o = ShardingOptions{};
  o.storages = {64};
  o.ratios = {7};
  EXPECT_NE(ValidateSharding(o).message().find("at most 256"), std::string::npos);
  o = ShardingOptions{};
  o.step_s = 0.01;
  EXPECT_NE(ValidateSharding(o).message().find("--step-duration"), std::string::npos);
}

// A point of fabricated steps: `ops` per step, storages' count as given.
ShardPoint FabricatedPoint(const std::string& sweep, int storages, int routers, int64_t storage_requests) {
  ShardPoint p{1, sweep, storages, routers};
  for (double ops : {1000.0, 2000.0}) {
    ShardCell c;
    c.connections = static_cast<uint64_t>(routers) * (ops > 1000 ? 4 : 1);
    c.ops_per_sec = ops;
    c.requests = 500;
    c.roles = {{"router", routers, 0.4, 0.5, 1 << 20}, {"storage-master", storages, 0.6, 0.7, 2 << 20}};
    p.cells.push_back(c);
  }
  p.best = 1;
  p.counted = true;
  p.client_requests = 1000;
  p.storage_requests = storage_requests;
  p.per_set.assign(static_cast<size_t>(storages), storage_requests / storages);
  return p;
}

TEST(ShardingTest, TheReportShowsBothSweepsTheMatrixPerRoleCpuAndChecksTheCounts) {
  std::vector<ShardPoint> points = {FabricatedPoint("ratio", 1, 1, 1000), FabricatedPoint("storages", 2, 2, 1000),
                                    FabricatedPoint("matrix", 2, 2, 1000)};
  ScenarioReport report;
  FillShardingReport(ShardingOptions{}, points, false, &report);
  std::string text;
  for (const auto& [title, body] : report.blocks) text += title + "\n" + body;
  for (const char* want : {"Routers per storage", "Storage count", "Operation matrix at the knee",
                           "router x1 40% (max 50%) 1 MB", "storage-master x2 60% (max 70%) 2 MB",
                           "set 1 500 (50.0%), set 2 500 (50.0%)", "1000 == 1000"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
  EXPECT_EQ(report.verdict, ScenarioVerdict::kOk);
  EXPECT_EQ(report.json["points"].size(), 3u);

  points[1].storage_requests = 999;  // a request the storages did not count
  ScenarioReport broken;
  FillShardingReport(ShardingOptions{}, points, false, &broken);
  EXPECT_EQ(broken.verdict, ScenarioVerdict::kFailed);
}

}  // namespace
}  // namespace memstand
