#include "scenario/working_set/working_set.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

bool AllOk(const std::vector<Invariant>& v) {
  for (const Invariant& i : v) {
    if (!i.ok()) return false;
  }
  return true;
}

TEST(WorkingSetInvariantsTest, HoldForConsistentCounts) {
  EXPECT_TRUE(AllOk(WorkingSetInvariants(200000, 200000, 0, 168903, 31097)));   // evicts
  EXPECT_TRUE(AllOk(WorkingSetInvariants(200000, 31408, 168592, 0, 31408)));    // rejects
  auto keeps = WorkingSetInvariants(200000, 200000, 0, 0, 200000);
  EXPECT_EQ(keeps.size(), 3u);  // keeps all: present == attempted too
  EXPECT_TRUE(AllOk(keeps));
}

TEST(WorkingSetInvariantsTest, FailOnInconsistentCounters) {
  // More present than written minus evicted (the published "available 50,133").
  EXPECT_FALSE(AllOk(WorkingSetInvariants(200000, 200000, 0, 159793, 50133)));
  // A write neither successful nor rejected.
  EXPECT_FALSE(AllOk(WorkingSetInvariants(200000, 199999, 0, 0, 199999)));
  // Keeps all, but a key is missing.
  EXPECT_FALSE(AllOk(WorkingSetInvariants(200000, 200000, 0, 0, 199998)));
}

TEST(WorkingSetOutcomeTest, NamesWhatTheServerDid) {
  EXPECT_EQ(WorkingSetOutcome(1, 0), "evicts");
  EXPECT_EQ(WorkingSetOutcome(0, 1), "rejects");
  EXPECT_EQ(WorkingSetOutcome(2, 3), "evicts and rejects");
  EXPECT_EQ(WorkingSetOutcome(0, 0), "keeps all");
}

TEST(ServerConfigTest, ParsesSystemSettingsEngineAndName) {
  auto c = ParseServerConfig("redis maxmemory=16mb maxmemory-policy=allkeys-lfu name=lfu", 1);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->name, "lfu");
  EXPECT_EQ(c->system, SystemKind::kRedis);
  ASSERT_EQ(c->settings.size(), 2u);
  EXPECT_EQ(c->settings[1].second, "allkeys-lfu");
  auto t = ParseServerConfig("tarantool  engine=vinyl vinyl_memory=16M", 2);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->name, "tarantool-2");
  EXPECT_EQ(t->engine, "vinyl");
  EXPECT_EQ(t->Describe(), "tarantool engine=vinyl vinyl_memory=16M");
}

TEST(ServerConfigTest, RefusesWhatItCannotRun) {
  EXPECT_FALSE(ParseServerConfig("", 1).ok());
  EXPECT_NE(ParseServerConfig("mongodb x=1", 1).status().message().find("unknown system 'mongodb'"),
            std::string::npos);
  EXPECT_FALSE(ParseServerConfig("redis maxmemory", 1).ok());  // no '='
  EXPECT_FALSE(ParseServerConfig("tarantool engine=sophia", 1).ok());
}

TEST(WorkingSetOptionsTest, RefusesBadSizesAndDuplicateNames) {
  WorkingSetOptions o;
  o.configs = DefaultWorkingSetConfigs();
  EXPECT_TRUE(ValidateWorkingSet(o).ok());
  o.portion = 0;
  EXPECT_FALSE(ValidateWorkingSet(o).ok());
  o.portion = 10000;
  o.records = 200001;
  EXPECT_FALSE(ValidateWorkingSet(o).ok());
  o.records = 200000;
  o.configs.push_back(o.configs[0]);
  EXPECT_NE(ValidateWorkingSet(o).message().find("two configurations are named"), std::string::npos);
}

TEST(WorkingSetDefaultsTest, AreTheFiveOfTheSpecification) {
  auto c = DefaultWorkingSetConfigs();
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[0].Describe(), "redis maxmemory=8mb maxmemory-policy=allkeys-lru");
  EXPECT_EQ(c[1].Describe(), "redis maxmemory=8mb maxmemory-policy=noeviction");
  EXPECT_EQ(c[2].Describe(), "memcached memory-limit=8");
  EXPECT_EQ(c[3].Describe(), "tarantool engine=memtx memtx_memory=32M");
  EXPECT_EQ(c[4].Describe(), "tarantool engine=vinyl memtx_memory=32M vinyl_memory=8M vinyl_cache=8M");
}

}  // namespace
}  // namespace memstand
