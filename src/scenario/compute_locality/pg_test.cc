// PgCluster and PgClient against a real private PostgreSQL cluster (skipped where
// PostgreSQL is not installed).
#include "scenario/compute_locality/pg.h"

#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "stand/run_root.h"
#include "stand/temp_folder.h"

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

// Sets TMPDIR for one scope.
class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const std::string& dir) {
    const char* old = getenv("TMPDIR");
    had_ = old != nullptr;
    if (had_) saved_ = old;
    setenv("TMPDIR", dir.c_str(), 1);
  }
  ~ScopedTmpdir() { had_ ? setenv("TMPDIR", saved_.c_str(), 1) : unsetenv("TMPDIR"); }

 private:
  bool had_ = false;
  std::string saved_;
};

// The cluster's folder is marked like memstand run's (a SIGKILLed run's is removed by
// the next start), and a killed run's pg folder goes when the next cluster starts.
TEST(LocalityPgTest, ItsTempFolderIsMarkedAndALeftoverIsRemoved) {
  if (!PostgresMissing().empty()) GTEST_SKIP() << PostgresMissing();
  char tmpl[] = "/tmp/locality_pg_test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string root = tmpl;
  chmod(root.c_str(), 0755);  // user postgres passes through it when we are root
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);  // a pid that is gone
  const std::string left = root + "/memstand-pg-Left01";
  std::filesystem::create_directories(left + "/cluster/data");
  ASSERT_TRUE(WritePrivateFile(left + "/" + kTempOwnerFile,
                               "pid " + std::to_string(child) + "\nstart_ticks 1\n")
                  .ok());
  std::string dir;
  {
    ScopedTmpdir scoped(root);
    auto cluster = PgCluster::Start(nullptr);
    ASSERT_TRUE(cluster.ok()) << cluster.status().message();
    dir = (*cluster)->dir();
    EXPECT_TRUE(std::filesystem::path(dir).filename().string().starts_with("memstand-pg-")) << dir;
    EXPECT_TRUE(ReadPrivateFile(dir + "/" + kTempOwnerFile, "owner file").ok());
    EXPECT_TRUE(RemoveLeftoverTempFolders(root).empty());  // ours, alive: kept
  }
  EXPECT_FALSE(std::filesystem::exists(left));
  EXPECT_FALSE(std::filesystem::exists(dir));
  std::filesystem::remove_all(root);
}

// As root, initdb runs as postgres: a TMPDIR postgres cannot pass through is named as
// the cause up front (not the last line of initdb's chatter).
TEST(LocalityPgTest, APrivateTmpdirIsNamedAsTheCause) {
  if (!PostgresMissing().empty()) GTEST_SKIP() << PostgresMissing();
  if (geteuid() != 0) GTEST_SKIP() << "initdb runs as postgres only when memstand is root";
  char tmpl[] = "/tmp/locality_pg_private-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);  // 0700, root's
  const std::string root = tmpl;
  Result<std::unique_ptr<PgCluster>> cluster = Status::NotFound("");
  {
    ScopedTmpdir scoped(root);
    cluster = PgCluster::Start(nullptr);
  }
  ASSERT_FALSE(cluster.ok());
  EXPECT_NE(cluster.status().message().find("(TMPDIR) cannot be reached by user postgres, who runs initdb "
                                            "and postgres: " + root + " has mode 0700"),
            std::string::npos)
      << cluster.status().message();
  EXPECT_TRUE(std::filesystem::is_empty(root));  // its folder removed
  std::filesystem::remove_all(root);
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
