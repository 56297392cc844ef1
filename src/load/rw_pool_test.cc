// FindWritable against a real replica set (the stand's tarantool-replicaset: a master and
// a replica): the writable member is the one whose box.info.ro is false, wherever it is
// in the list, and its absence is an error naming what each member said.
#include "load/rw_pool.h"

#include <stdlib.h>

#include <filesystem>
#include <system_error>

#include <gtest/gtest.h>

#include "load/proto_control.h"
#include "stand/topology.h"

namespace memstand {
namespace {

class RwPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/rw_pool_test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    TopologySpec spec;
    spec.kind = TopologyKind::kTarantoolReplicaSet;
    spec.replicas = 1;
    TopologyOptions o;
    o.run_root = root_;
    auto t = Topology::Start(spec, o);
    ASSERT_TRUE(t.ok()) << t.status().message();
    topology_ = std::move(*t);
  }
  void TearDown() override {
    if (topology_ != nullptr) {
      EXPECT_TRUE(topology_->Stop().ok());
    }
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  std::string Address(size_t i) const {
    return topology_->nodes()[i].host + ":" + std::to_string(topology_->nodes()[i].port);
  }
  RedisTarget Pool(const std::string& members) {
    auto t = ParseTargetUrl("tarantool+rw://" + members);
    EXPECT_TRUE(t.ok()) << t.status().message();
    return t.ok() ? *t : RedisTarget();
  }
  void SetReadOnly(size_t i, bool ro) {
    RedisTarget node;
    node.scheme = "tarantool";
    node.host = topology_->nodes()[i].host;
    node.port = topology_->nodes()[i].port;
    auto c = ProtoControl::Connect(Protocol::kIproto, node, 2000);
    ASSERT_TRUE(c.ok()) << c.status().message();
    auto r = (*c)->Eval(ro ? "box.cfg{read_only = true}" : "box.cfg{read_only = false}", iproto::Value::Array({}));
    ASSERT_TRUE(r.ok()) << r.status().message();
  }

  std::string root_;
  std::unique_ptr<Topology> topology_;
};

TEST_F(RwPoolTest, TheWritableMemberIsFoundWhereverItIsInTheList) {
  for (const std::string& members : {Address(0) + "," + Address(1), Address(1) + "," + Address(0)}) {
    auto found = FindWritable(Pool(members), "", 2000);
    ASSERT_TRUE(found.ok()) << found.status().message();
    EXPECT_EQ(found->primary.Address(), Address(0));  // the master
    EXPECT_EQ(found->primary.scheme, "tarantool");
    EXPECT_FALSE(found->primary.rw_pool());
    EXPECT_EQ(found->sent.at("EVAL"), 1);  // box.stat() counts the asking
  }
  // The master made read-only and the replica writable (what failover's orchestrator
  // does): the replica is found, the old one asked last.
  SetReadOnly(0, true);
  SetReadOnly(1, false);
  auto found = FindWritable(Pool(Address(0) + "," + Address(1)), Address(0), 2000);
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ(found->primary.Address(), Address(1));
  SetReadOnly(1, true);
  SetReadOnly(0, false);
}

TEST_F(RwPoolTest, NoWritableMemberIsAnErrorSayingWhatEachAnswered) {
  auto found = FindWritable(Pool(Address(1) + ",127.0.0.1:1"), "", 2000);
  ASSERT_FALSE(found.ok());
  const std::string m = found.status().message();
  EXPECT_NE(m.find(Address(1) + ": read-only"), std::string::npos) << m;
  EXPECT_NE(m.find("127.0.0.1:1: "), std::string::npos) << m;
  EXPECT_NE(m.find("is writable"), std::string::npos) << m;
}

}  // namespace
}  // namespace memstand
