#include "stand/shard_lua.h"

#include <gtest/gtest.h>

#include "stand/tarantool_driver.h"
#include "stand/topology_spec.h"

namespace memstand {
namespace {

TEST(ShardLuaTest, RoleArgsNameTheRoleAndTheSets) {
  const auto master = ShardStorageRoleArgs(true, {"127.0.0.1:1", "127.0.0.1:2"});
  const auto replica = ShardStorageRoleArgs(false, {"127.0.0.1:1", "127.0.0.1:2"});
  const auto router = ShardRouterRoleArgs({{"127.0.0.1:1", "127.0.0.1:2"}, {"127.0.0.1:3", "127.0.0.1:4"}});
  EXPECT_EQ(ShardRoleOf(master), ShardRole::kStorageMaster);
  EXPECT_EQ(ShardRoleOf(replica), ShardRole::kStorageReplica);
  EXPECT_EQ(ShardRoleOf(router), ShardRole::kRouter);
  EXPECT_EQ(ShardRoleOf(ReplicaSetRoleArgs(true, {"127.0.0.1:1"})), ShardRole::kNone);
  EXPECT_EQ(ShardRoleOf({}), ShardRole::kNone);
  EXPECT_EQ(router, (std::vector<std::string>{"shard-router", "127.0.0.1:1,127.0.0.1:2", "127.0.0.1:3,127.0.0.1:4"}));
  EXPECT_EQ(StorageAsMember(replica), ReplicaSetRoleArgs(false, {"127.0.0.1:1", "127.0.0.1:2"}));
}

TEST(ShardLuaTest, ARouterListsEverySetMasterFirstAndTheBuckets) {
  auto lua = ShardRouterLua(ShardRouterRoleArgs({{"127.0.0.1:1", "127.0.0.1:2"}, {"127.0.0.1:3"}}));
  ASSERT_TRUE(lua.ok()) << lua.status().message();
  EXPECT_NE(lua->find("local BUCKETS = 1024\n"), std::string::npos);
  EXPECT_NE(lua->find("local SETS = {{'127.0.0.1:1', '127.0.0.1:2'}, {'127.0.0.1:3'}}\n"), std::string::npos) << *lua;
  EXPECT_NE(lua->find("function shard.replace("), std::string::npos);
  EXPECT_NE(lua->find("function shard.check()"), std::string::npos);
  EXPECT_FALSE(ShardRouterLua(ShardStorageRoleArgs(true, {"127.0.0.1:1"})).ok());
}

TEST(ShardLuaTest, StoragesGetTheLayerOnlyMastersMakeTheSpaces) {
  TarantoolDriver driver({}, "");
  auto master = driver.InitLua("127.0.0.1", 1, ShardStorageRoleArgs(true, {"127.0.0.1:1", "127.0.0.1:2"}));
  auto replica = driver.InitLua("127.0.0.1", 2, ShardStorageRoleArgs(false, {"127.0.0.1:1", "127.0.0.1:2"}));
  auto router = driver.InitLua("127.0.0.1", 3, ShardRouterRoleArgs({{"127.0.0.1:1", "127.0.0.1:2"}}));
  ASSERT_TRUE(master.ok() && replica.ok() && router.ok());
  EXPECT_NE(master->find("memstand_storage = {}"), std::string::npos);
  EXPECT_NE(master->find("box.schema.space.create(def[1]"), std::string::npos);
  EXPECT_NE(replica->find("memstand_storage = {}"), std::string::npos);
  EXPECT_EQ(replica->find("box.schema.space.create"), std::string::npos);
  EXPECT_NE(replica->find("read_only = true"), std::string::npos);
  EXPECT_NE(replica->find("memstand: replication ready, pid "), std::string::npos);
  EXPECT_EQ(router->find("replication ="), std::string::npos);
  EXPECT_NE(router->find("box.schema.user.grant('guest', 'super'"), std::string::npos);
  EXPECT_NE(router->find("memstand: ready, pid "), std::string::npos);
}

TEST(ShardLuaTest, TheSpecDefaultsAndRefusesCounts) {
  TopologySpec spec;
  spec.kind = TopologyKind::kTarantoolSharded;
  ASSERT_TRUE(NormalizeSpec(&spec).ok());
  EXPECT_EQ(spec.storages, 2);
  EXPECT_EQ(spec.routers, 2);
  EXPECT_EQ(spec.replicas, 1);
  EXPECT_EQ(NodeCount(spec), 2 * 2 + 2);
  EXPECT_EQ(*ParseTopologyKind("tarantool-sharded"), TopologyKind::kTarantoolSharded);

  TopologySpec zero = TopologySpec{};
  zero.kind = TopologyKind::kTarantoolSharded;
  zero.routers = 0;
  EXPECT_NE(NormalizeSpec(&zero).message().find("--routers 0: 1..64"), std::string::npos);
  TopologySpec other;
  other.kind = TopologyKind::kTarantoolReplicaSet;
  other.storages = 3;
  EXPECT_NE(NormalizeSpec(&other).message().find("--storages applies to tarantool-sharded only"),
            std::string::npos);
  TopologySpec no_replica;
  no_replica.kind = TopologyKind::kTarantoolSharded;
  no_replica.replicas = 0;
  EXPECT_FALSE(NormalizeSpec(&no_replica).ok());
  TopologySpec many;
  many.kind = TopologyKind::kTarantoolSharded;
  many.storages = 64;
  many.replicas = 3;
  many.routers = 2;
  EXPECT_NE(NormalizeSpec(&many).message().find("at most 256"), std::string::npos);
}

}  // namespace
}  // namespace memstand
