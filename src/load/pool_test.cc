#include "load/pool.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(Pool, RoundRobinGoesByGlobalIndex) {
  EXPECT_EQ(PoolIndex(Balance::kRoundRobin, 1, 0, 3), 0);
  EXPECT_EQ(PoolIndex(Balance::kRoundRobin, 1, 4, 3), 1);
  EXPECT_EQ(PoolIndex(Balance::kRoundRobin, 99, 5, 3), 2);
  EXPECT_EQ(PoolConnections(Balance::kRoundRobin, 1, 4, 2), (std::vector<uint64_t>{2, 2}));
  EXPECT_EQ(PoolConnections(Balance::kRoundRobin, 1, 5, 3), (std::vector<uint64_t>{2, 2, 1}));
  EXPECT_EQ(PoolConnections(Balance::kRoundRobin, 1, 1, 3), (std::vector<uint64_t>{1, 0, 0}));
}

TEST(Pool, RandomIsReproducibleFromTheSeedAndCoversTheTargets) {
  auto a = PoolConnections(Balance::kRandom, 7, 1000, 4);
  EXPECT_EQ(a, PoolConnections(Balance::kRandom, 7, 1000, 4));
  uint64_t total = 0;
  for (uint64_t n : a) {
    EXPECT_GT(n, 150u);  // 250 expected; 150 is more than 6 standard deviations off
    total += n;
  }
  EXPECT_EQ(total, 1000u);
  // Another seed gives another assignment of the same connections.
  int differ = 0;
  for (uint64_t i = 0; i < 100; ++i) {
    differ += PoolIndex(Balance::kRandom, 7, i, 4) != PoolIndex(Balance::kRandom, 8, i, 4);
  }
  EXPECT_GT(differ, 30);
  for (uint64_t i = 0; i < 100; ++i) {
    int t = PoolIndex(Balance::kRandom, 3, i, 3);
    EXPECT_TRUE(t >= 0 && t < 3) << t;
  }
}

TEST(Pool, ParseBalanceNamesTheAcceptedValues) {
  EXPECT_EQ(*ParseBalance("round-robin"), Balance::kRoundRobin);
  EXPECT_EQ(*ParseBalance("random"), Balance::kRandom);
  auto bad = ParseBalance("least-conn");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'least-conn'"), std::string::npos);
  EXPECT_NE(bad.status().message().find("round-robin, random or per-request"), std::string::npos);
  EXPECT_STREQ(BalanceName(Balance::kRandom), "random");
}

}  // namespace
}  // namespace memstand
