// PgCluster and PgClient against a real private PostgreSQL cluster (skipped where
// PostgreSQL is not installed).
#include "scenario/locality_pg.h"

#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace memstand {
namespace {

TEST(LocalityPgTest, QueriesRowsErrorsAndBothByteCounts) {
  if (!PostgresMissing().empty()) GTEST_SKIP() << PostgresMissing();
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
  // The same request through libpq: the same rows, and the same bytes on its socket.
  ASSERT_TRUE(paths[1].reference);
  auto ref = paths[1].reference();
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  EXPECT_EQ(ref->call.ids, local->ids);
  EXPECT_EQ(ref->kernel.received, k1->received - k0->received);
  EXPECT_EQ(ref->kernel.acked, k1->acked - k0->acked);
  EXPECT_EQ(paths[1].reference_library.rfind("libpq 15", 0), 0u) << paths[1].reference_library;
  (*cluster)->Stop();
}

TEST(LocalityPgTest, AFolderWithoutThePrograms) {
  const std::string empty = ::testing::TempDir() + "/no-pg-" + std::to_string(getpid());
  std::filesystem::create_directories(empty);
  setenv("MEMSTAND_PG_BINDIR", empty.c_str(), 1);
  const std::string missing = PostgresMissing();
  auto cluster = PgCluster::Start(nullptr);
  unsetenv("MEMSTAND_PG_BINDIR");
  std::filesystem::remove_all(empty);
  EXPECT_EQ(missing, "postgres is not in MEMSTAND_PG_BINDIR=" + empty + " (it needs initdb and postgres)");
  ASSERT_FALSE(cluster.ok());
  EXPECT_EQ(cluster.status().code(), Status::Code::kNotFound);
}

TEST(LocalityPgTest, AServerErrorIsAServerStatusAndTheConnectionStaysUsable) {
  if (!PostgresMissing().empty()) GTEST_SKIP() << PostgresMissing();
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
