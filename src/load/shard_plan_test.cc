#include "load/shard_plan.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

LoadOptions Fleet(KeyPatternSpec::Kind a, KeyPatternSpec::Kind b) {
  LoadOptions o;
  o.commands.resize(2);
  o.commands[0].key_pattern.kind = a;
  o.commands[1].key_pattern.kind = b;
  o.key_min = 100;
  o.key_max = 199;
  o.seed = 7;
  o.requests = 1000;
  return o;
}

using PatternKind = KeyPatternSpec::Kind;

TEST(ShardPlanTest, SequentialShardsTakeSlicesAndShareTheRequests) {
  uint64_t next_key = 100, requests = 0;
  for (uint64_t k = 0; k < 3; ++k) {
    LoadOptions o = Fleet(PatternKind::kSequential, PatternKind::kUniform);
    ASSERT_TRUE(ApplyShard({k, 3}, &o).ok());
    EXPECT_EQ(o.key_min, next_key);
    next_key = o.key_max + 1;
    requests += o.requests;
    EXPECT_NE(o.seed, 7u);
    ASSERT_TRUE(o.shard.has_value());
    EXPECT_TRUE(o.shard->key_sliced);
    EXPECT_EQ(o.shard->whole_key_max, 199u);
    EXPECT_EQ(o.shard->whole_requests, 1000u);
  }
  EXPECT_EQ(next_key, 200u);
  EXPECT_EQ(requests, 1000u);
}

TEST(ShardPlanTest, RandomPatternsKeepTheWholeRange) {
  LoadOptions o = Fleet(PatternKind::kZipf, PatternKind::kGaussian);
  o.requests = 0;
  o.duration_s = 5;
  o.rate = 1000;
  ASSERT_TRUE(ApplyShard({1, 3}, &o).ok());
  EXPECT_EQ(o.key_min, 100u);
  EXPECT_EQ(o.key_max, 199u);
  EXPECT_FALSE(o.shard->key_sliced);
  EXPECT_DOUBLE_EQ(o.rate, 333.333);
}

TEST(ShardPlanTest, RefusesWhatCannotBeSplit) {
  LoadOptions mixed = Fleet(PatternKind::kPartitioned, PatternKind::kZipf);
  Status s = ApplyShard({0, 2}, &mixed);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("--shard"), std::string::npos);
  LoadOptions few = Fleet(PatternKind::kUniform, PatternKind::kUniform);
  few.requests = 2;
  EXPECT_FALSE(ApplyShard({0, 3}, &few).ok());  // shard 0 of 3 would get no request
  LoadOptions narrow = Fleet(PatternKind::kSequential, PatternKind::kSequential);
  narrow.key_max = 101;  // 2 keys, 3 shards
  EXPECT_FALSE(ApplyShard({0, 3}, &narrow).ok());
}

TEST(ShardPlanTest, PoolMembersSplitByShard) {
  for (uint64_t k = 0; k < 2; ++k) {
    LoadOptions o = Fleet(PatternKind::kUniform, PatternKind::kUniform);
    for (int port = 7000; port < 7005; ++port) {
      RedisTarget t;
      t.host = "10.0.0.1";
      t.port = port;
      o.pool.push_back(t);
    }
    o.target = o.pool[0];
    ASSERT_TRUE(ApplyShard({k, 2}, &o).ok());
    const std::vector<int> want = k == 0 ? std::vector<int>{0, 2, 4} : std::vector<int>{1, 3};
    EXPECT_EQ(o.shard->members, want);
    ASSERT_EQ(o.pool.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(o.pool[i].port, 7000 + want[i]);
    EXPECT_EQ(o.target.port, 7000 + want[0]);
    EXPECT_EQ(o.shard->whole_pool, 5);
  }
}

}  // namespace
}  // namespace memstand
