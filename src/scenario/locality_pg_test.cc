// PgCluster and PgClient against a real private PostgreSQL cluster (skipped where
// PostgreSQL is not installed).
#include "scenario/locality_pg.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace memstand {
namespace {

TEST(LocalityPgTest, QueriesRowsErrorsAndBothByteCounts) {
  if (!PostgresInstalled()) GTEST_SKIP() << "postgresql is not installed";
  auto cluster = PgCluster::Start(nullptr);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  ASSERT_TRUE((*cluster)->Load(1, 2000).ok());
  auto paths = (*cluster)->Paths("tools", 3);
  ASSERT_EQ(paths.size(), 4u);
  const SocketBytes a0 = paths[1].app_bytes();
  auto k0 = paths[1].kernel_bytes();
  ASSERT_TRUE(k0.ok());
  auto local = paths[1].call();
  ASSERT_TRUE(local.ok()) << local.status().message();
  EXPECT_EQ(local->objects, 3);
  const SocketBytes a1 = paths[1].app_bytes();
  auto k1 = paths[1].kernel_bytes();
  ASSERT_TRUE(k1.ok());
  // The query message: 'Q', its length, the SQL and its terminating zero.
  EXPECT_EQ(a1.written - a0.written, 1 + 4 + paths[1].request.size() + 1);
  EXPECT_GT(a1.read - a0.read, 0u);
  EXPECT_EQ(k1->received - k0->received, a1.read - a0.read);
  EXPECT_EQ(k1->acked - k0->acked, a1.written - a0.written);
  // The naive path over the same rows finds the same top.
  auto naive = paths[0].call();
  ASSERT_TRUE(naive.ok()) << naive.status().message();
  EXPECT_GT(naive->objects, 3);
  EXPECT_EQ(naive->ids, local->ids);
  EXPECT_NE((*cluster)->Describe().find("127.0.0.1"), std::string::npos);
  (*cluster)->Stop();
}

TEST(LocalityPgTest, AServerErrorIsAServerStatusAndTheConnectionStaysUsable) {
  if (!PostgresInstalled()) GTEST_SKIP() << "postgresql is not installed";
  auto cluster = PgCluster::Start(nullptr);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  Status s = (*cluster)->Load(1, 10);
  ASSERT_TRUE(s.ok()) << s.message();
  Status again = (*cluster)->Load(1, 10);  // the table exists already
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.code(), Status::Code::kServer);
  EXPECT_NE(again.message().find("already exists"), std::string::npos) << again.message();
  auto paths = (*cluster)->Paths("tools", 1);
  EXPECT_TRUE(paths[1].call().ok());
}

}  // namespace
}  // namespace memstand
