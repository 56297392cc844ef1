#include "scenario/replication_cost/replication_cost.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(ReplicationCostTest, ConcurrencyIsAnIncreasingListUpTo1024) {
  auto ok = ParseConcurrency("1,4,16,64");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(*ok, (std::vector<uint64_t>{1, 4, 16, 64}));
  EXPECT_EQ(ParseConcurrency("1024")->front(), 1024u);
  for (const char* bad : {"", "0", "4,1", "1,1", "1,x", "1,2048", "-1"}) {
    auto r = ParseConcurrency(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_TRUE(r.status().message().starts_with("--concurrency: ")) << r.status().message();
  }
}

TEST(ReplicationCostTest, ValidateNamesTheBadFlag) {
  ReplicationCostOptions o;
  EXPECT_TRUE(ValidateReplicationCost(o).ok());
  o.step_s = 0.01;
  EXPECT_NE(ValidateReplicationCost(o).message().find("--step-duration"), std::string::npos);
  o = ReplicationCostOptions{};
  o.systems = {"tarantool", "memcached"};
  EXPECT_EQ(ValidateReplicationCost(o).message(), "--only: no system 'memcached'; known: tarantool, redis");
  o.systems.clear();
  EXPECT_FALSE(ValidateReplicationCost(o).ok());
  o = ReplicationCostOptions{};
  o.concurrency = {4, 4};
  EXPECT_FALSE(ValidateReplicationCost(o).ok());
}

TEST(ReplicationCostTest, KneeIsTheStepAfterWhichThroughputGrowsLessThanTenPercentWhileP99Rises) {
  // 1 -> 4 -> 16 rises; 16 -> 64 adds 5% while p99 triples: the knee is at 16.
  std::vector<KneePoint> p = {{1, 1000, 100}, {4, 3500, 150}, {16, 8000, 300}, {64, 8400, 900}};
  ASSERT_TRUE(ReplicationKnee(p).has_value());
  EXPECT_EQ(*ReplicationKnee(p), 2u);
  // +9% is flat under the 10% rule (the sweep command's 5% would call it a rise).
  p = {{1, 1000, 100}, {4, 5000, 150}, {16, 5450, 400}};
  EXPECT_EQ(ReplicationKnee(p), std::optional<size_t>(1));
  // +11% is a rise: no knee.
  p = {{1, 1000, 100}, {4, 5000, 150}, {16, 5550, 400}};
  EXPECT_FALSE(ReplicationKnee(p).has_value());
  // Flat, but p99 falls: not a knee.
  p = {{1, 1000, 100}, {4, 5000, 150}, {16, 5100, 120}};
  EXPECT_FALSE(ReplicationKnee(p).has_value());
  // Two steps cannot show a knee.
  p = {{1, 1000, 100}, {4, 1000, 400}};
  EXPECT_FALSE(ReplicationKnee(p).has_value());
}

TEST(ReplicationCostTest, AClientAboveNinetyPercentOfACoreIsTheBottleneck) {
  EXPECT_FALSE(ClientIsBottleneck(0.0));
  EXPECT_FALSE(ClientIsBottleneck(0.90));
  EXPECT_TRUE(ClientIsBottleneck(0.9001));
  EXPECT_TRUE(ClientIsBottleneck(1.0));
}

TEST(ReplicationCostTest, MajorityAndTheVersionsWithSynchronousReplication) {
  EXPECT_EQ(MajorityQuorum(4), 3);
  EXPECT_EQ(MajorityQuorum(3), 2);
  EXPECT_EQ(MajorityQuorum(1), 1);
  EXPECT_TRUE(SupportsSynchronousReplication("2.6.0-0-g47aa4e01e"));
  EXPECT_TRUE(SupportsSynchronousReplication("2.10.4"));
  EXPECT_TRUE(SupportsSynchronousReplication("3.1.0"));
  EXPECT_FALSE(SupportsSynchronousReplication("2.5.3"));
  EXPECT_FALSE(SupportsSynchronousReplication("1.10.15"));
  EXPECT_FALSE(SupportsSynchronousReplication("unknown"));
}

TEST(ReplicationCostTest, ExpectedSecondsCountsEveryCell) {
  ReplicationCostOptions o;
  o.concurrency = {1, 4};
  o.step_s = 1;
  o.warmup_s = 0.2;
  // Tarantool 3 paths + one per sync quorum (2) + Redis 3, 2 levels, 1.5 s a cell, 4 s of start-up.
  EXPECT_DOUBLE_EQ(ExpectedSeconds(o, 1), 4 + 8 * 2 * 1.5);
  EXPECT_DOUBLE_EQ(ExpectedSeconds(o, 2), 2 * (4 + 8 * 2 * 1.5));
  o.sync_quorums = {"all"};
  EXPECT_DOUBLE_EQ(ExpectedSeconds(o, 1), 4 + 7 * 2 * 1.5);
}

TEST(ReplicationCostTest, SyncQuorumsAreMajorityOrAllOnce) {
  auto both = ParseSyncQuorums("all,majority");
  ASSERT_TRUE(both.ok()) << both.status().message();
  EXPECT_EQ(*both, (std::vector<std::string>{"all", "majority"}));
  for (const char* bad : {"", "all,", "most", "all,all"}) {
    auto r = ParseSyncQuorums(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--sync-quorum"), std::string::npos) << r.status().message();
  }
  ReplicationCostOptions o;
  o.sync_quorums = {"some"};
  EXPECT_FALSE(ValidateReplicationCost(o).ok());
}

}  // namespace
}  // namespace memstand
