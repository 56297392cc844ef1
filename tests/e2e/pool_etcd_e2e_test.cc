// A pool of two endpoints of one etcd store: both report the store's revision, so the
// cross-check must count it once (by header.cluster_id), not once per endpoint.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec/server_util.h"
#include "core/socket.h"
#include "e2e/e2e_util.h"

namespace memstand::e2e {
namespace {

TEST(PoolEtcdE2E, EndpointsOfOneStoreCountItsRevisionOnce) {
  auto second = PickFreePort();
  ASSERT_TRUE(second.ok()) << second.status().message();
  const std::string b = "http://127.0.0.1:" + std::to_string(*second);
  // One member listening for clients on two ports: two pool members, one store.
  auto etcd = codec_test::StartEtcd({"--listen-client-urls", "http://127.0.0.1:{PORT}," + b,
                                     "--advertise-client-urls", "http://127.0.0.1:{PORT}," + b});
  ASSERT_TRUE(etcd.ok()) << etcd.status().message();
  const std::string json = TempDir() + "/run.json";
  Outcome out = RunMemstand(
      {"run", "--target", "etcd://127.0.0.1:" + std::to_string((*etcd)->port()), "--target",
       "etcd://127.0.0.1:" + std::to_string(*second), "-c", "4", "-n", "400", "--command",
       "put __key__ __data__", "--exclusive", "--json", json, "-q"},
      120);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const nlohmann::json j = ReadJson(json);
  ASSERT_EQ(j["pool"]["targets"].size(), 2u) << j.dump();
  EXPECT_EQ(j["pool"]["targets"][0]["connections"], 2);
  EXPECT_EQ(j["pool"]["targets"][1]["connections"], 2);
  EXPECT_EQ(j["cross_check"]["available"], true);
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
  bool found = false;
  for (const auto& row : j["cross_check"]["commands"]) {
    if (row["command"] != "revision") continue;
    found = true;
    EXPECT_EQ(row["memstand"], 400);
    EXPECT_EQ(row["server"], 400);  // not 800: one store seen through two endpoints
  }
  EXPECT_TRUE(found) << j["cross_check"].dump();
  // Each endpoint, alone, saw the whole store move.
  for (const auto& m : j["pool"]["targets"]) EXPECT_EQ(m["server_counts"]["revision"], 400) << m.dump();
}

}  // namespace
}  // namespace memstand::e2e
