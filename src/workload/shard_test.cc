#include "workload/shard.h"

#include <cmath>
#include <map>
#include <set>

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(ShardTest, ParsesKOverN) {
  auto s = ParseShard("2/5");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->index, 2u);
  EXPECT_EQ(s->count, 5u);
  for (const char* bad : {"5/5", "0/0", "1", "a/3", "1/b", "-1/3", "1/3/4", "", "/3", "1/"}) {
    auto r = ParseShard(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << bad;
    }
  }
  EXPECT_NE(ParseShard("3/3").status().message().find("0-based"), std::string::npos);
}

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

TEST(ShardTest, ReadsTheLaunchersVariables) {
  auto k8s = ShardFromEnv(Env({{"JOB_COMPLETION_INDEX", "3"}}), 4);
  ASSERT_TRUE(k8s.ok());
  EXPECT_EQ(k8s->index, 3u);
  EXPECT_EQ(k8s->count, 4u);
  auto slurm = ShardFromEnv(Env({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}}), 0);
  ASSERT_TRUE(slurm.ok());
  EXPECT_EQ(slurm->index, 1u);
  EXPECT_EQ(slurm->count, 2u);
  // Missing count, index past the count, malformed, nothing set, disagreeing --shards.
  EXPECT_NE(ShardFromEnv(Env({{"JOB_COMPLETION_INDEX", "0"}}), 0).status().message().find("--shards"),
            std::string::npos);
  EXPECT_FALSE(ShardFromEnv(Env({{"JOB_COMPLETION_INDEX", "4"}}), 4).ok());
  EXPECT_FALSE(ShardFromEnv(Env({{"JOB_COMPLETION_INDEX", "x"}}), 4).ok());
  EXPECT_NE(ShardFromEnv(Env({}), 3).status().message().find("SLURM_PROCID"), std::string::npos);
  EXPECT_FALSE(ShardFromEnv(Env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}}), 3).ok());
  EXPECT_FALSE(ShardFromEnv(Env({{"SLURM_PROCID", "2"}, {"SLURM_NTASKS", "2"}}), 0).ok());
}

TEST(ShardTest, KeySlicesCoverTheRangeExactlyOnce) {
  for (uint64_t lo : {0ull, 7ull}) {
    for (uint64_t size : {1ull, 2ull, 3ull, 10ull, 97ull, 1000ull}) {
      for (uint64_t n = 1; n <= 12; ++n) {
        if (size < n) {
          EXPECT_FALSE(ShardKeySlice(lo, lo + size - 1, {0, n}).ok());
          continue;
        }
        uint64_t next = lo;  // each slice starts where the previous ended
        for (uint64_t k = 0; k < n; ++k) {
          auto s = ShardKeySlice(lo, lo + size - 1, {k, n});
          ASSERT_TRUE(s.ok());
          EXPECT_EQ(s->min, next) << "k " << k << " n " << n << " size " << size;
          EXPECT_LE(s->min, s->max);
          next = s->max + 1;
        }
        EXPECT_EQ(next, lo + size) << "n " << n << " size " << size;
      }
    }
  }
  // The whole 64-bit range.
  auto last = ShardKeySlice(0, UINT64_MAX, {2, 3});
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->max, UINT64_MAX);
}

TEST(ShardTest, SeqValuesAreDisjointAcrossShards) {
  for (uint64_t n = 1; n <= 5; ++n) {
    std::set<uint64_t> seen;
    for (uint64_t k = 0; k < n; ++k) {
      for (uint64_t seq = 0; seq < 200; ++seq) EXPECT_TRUE(seen.insert(ShardSeq(seq, {k, n})).second);
    }
    EXPECT_EQ(seen.size(), 200 * n);
    EXPECT_EQ(*seen.rbegin(), 200 * n - 1);  // and dense: 0 .. 200n-1
  }
}

TEST(ShardTest, SeedsDifferPerShardAndStayForOne) {
  EXPECT_EQ(ShardSeed(42, {0, 1}), 42u);
  std::set<uint64_t> seeds;
  for (uint64_t k = 0; k < 8; ++k) seeds.insert(ShardSeed(42, {k, 8}));
  EXPECT_EQ(seeds.size(), 8u);
  EXPECT_EQ(seeds.count(42), 0u);
}

TEST(ShardTest, RatesSumExactly) {
  for (double rate : {1000.0, 1001.0, 7.0, 0.5, 333.333, 123456.789}) {
    for (uint64_t n = 1; n <= 7; ++n) {
      if (rate * 1000 < static_cast<double>(n)) continue;
      uint64_t milli = 0;
      for (uint64_t k = 0; k < n; ++k) {
        auto r = ShardRate(rate, {k, n});
        ASSERT_TRUE(r.ok()) << rate << " " << n;
        milli += static_cast<uint64_t>(std::llround(*r * 1000));
      }
      EXPECT_EQ(milli, static_cast<uint64_t>(std::llround(rate * 1000))) << rate << " over " << n;
    }
  }
  EXPECT_FALSE(ShardRate(0.002, {0, 3}).ok());  // 2 milli-requests/s: shard 0 gets none
  EXPECT_EQ(ShareOf(10, {0, 3}).size() + ShareOf(10, {1, 3}).size() + ShareOf(10, {2, 3}).size(), 10u);
}

TEST(ShardTest, PoolMembersAreKPlusMultiplesOfN) {
  auto m = ShardMembers(7, {1, 3});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, (std::vector<int>{1, 4}));
  for (int members = 3; members <= 10; ++members) {
    std::vector<int> owner(members, -1);
    for (uint64_t k = 0; k < 3; ++k) {
      auto taken = ShardMembers(members, {k, 3});
      ASSERT_TRUE(taken.ok());
      EXPECT_FALSE(taken->empty());
      for (int i : *taken) {
        EXPECT_EQ(owner[i], -1) << "member " << i << " taken twice";
        owner[i] = static_cast<int>(k);
      }
    }
    for (int i = 0; i < members; ++i) EXPECT_EQ(owner[i], i % 3);
  }
  EXPECT_FALSE(ShardMembers(2, {0, 3}).ok());
}

}  // namespace
}  // namespace memstand
