#include "stand/temp_folder.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "stand/local_redis.h"
#include "stand/proc_identity.h"
#include "stand/run_root.h"

namespace memstand {
namespace {

namespace fs = std::filesystem;

class TempFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/temp_folder_test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override { fs::remove_all(root_); }

  // A folder as MakeTempFolder leaves it, naming (pid, start_ticks); no marker if pid 0.
  std::string Plant(const std::string& name, pid_t pid, uint64_t start_ticks) {
    std::string dir = root_ + "/" + name;
    EXPECT_TRUE(fs::create_directory(dir));
    std::ofstream(dir + "/redis.log") << "a log\n";
    if (pid != 0) {
      std::string marker = "pid " + std::to_string(pid) + "\nstart_ticks " +
                           std::to_string(start_ticks) + "\n";
      EXPECT_TRUE(WritePrivateFile(dir + "/" + kTempOwnerFile, marker).ok());
    }
    return dir;
  }
  std::string root_;
};

// A pid that ran and is gone: a child that exited and was reaped.
pid_t DeadPid() {
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

uint64_t OurStartTicks() { return ReadProcessIdentity(getpid())->start_ticks; }

TEST_F(TempFolderTest, FoldersOfAGoneMemstandAreRemovedOthersKept) {
  pid_t dead = DeadPid();
  std::string gone = Plant("memstand-redis-dead01", dead, 12345);
  std::string reused = Plant("memstand-memcached-reuse1", getpid(), OurStartTicks() + 1);
  std::string live = Plant("memstand-redis-live01", getpid(), OurStartTicks());
  std::string unmarked = Plant("memstand-redis-nomark", 0, 0);
  std::string other_name = Plant("memstand-redis-dead0123", dead, 12345);  // not mkdtemp's
  std::string loose = Plant("memstand-etcd-loose1", dead, 12345);
  chmod((loose + "/" + kTempOwnerFile).c_str(), 0644);  // a marker anyone could have written
  std::string theirs;
  if (geteuid() == 0) {  // another user's folder, with a marker that would qualify
    theirs = Plant("memstand-tarantool-their1", dead, 12345);
    ASSERT_EQ(chown((theirs + "/" + kTempOwnerFile).c_str(), 65534, 65534), 0);
    ASSERT_EQ(chown(theirs.c_str(), 65534, 65534), 0);
  }
  std::vector<std::string> lines = RemoveLeftoverTempFolders(root_);
  std::sort(lines.begin(), lines.end());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "memstand: removed leftover folder " + reused +
                          " of a killed run (pid " + std::to_string(getpid()) + ")");
  EXPECT_EQ(lines[1], "memstand: removed leftover folder " + gone + " of a killed run (pid " +
                          std::to_string(dead) + ")");
  EXPECT_FALSE(fs::exists(gone));
  EXPECT_FALSE(fs::exists(reused));
  for (const std::string& kept : {live, unmarked, other_name, loose}) {
    EXPECT_TRUE(fs::exists(kept + "/redis.log")) << kept;
  }
  if (!theirs.empty()) {
    EXPECT_TRUE(fs::exists(theirs + "/redis.log"));
  }
}

TEST_F(TempFolderTest, LocalRedisMarksItsFolderAndCleansUpBeforeStarting) {
  std::string gone = Plant("memstand-redis-dead02", DeadPid(), 1);
  const char* old = std::getenv("TMPDIR");
  std::string saved = old != nullptr ? old : "";
  setenv("TMPDIR", root_.c_str(), 1);
  testing::internal::CaptureStderr();
  auto redis = LocalRedis::Start(LocalRedisOptions{});
  std::string err = testing::internal::GetCapturedStderr();
  old != nullptr ? setenv("TMPDIR", saved.c_str(), 1) : unsetenv("TMPDIR");
  ASSERT_TRUE(redis.ok()) << redis.status().message();
  EXPECT_NE(err.find("memstand: removed leftover folder " + gone + " of a killed run"),
            std::string::npos)
      << err;
  EXPECT_FALSE(fs::exists(gone));
  std::string dir = (*redis)->dir();
  EXPECT_TRUE(fs::path(dir).filename().string().starts_with("memstand-redis-")) << dir;
  auto marker = ReadPrivateFile(dir + "/" + kTempOwnerFile, "owner file");
  ASSERT_TRUE(marker.ok()) << marker.status().message();
  EXPECT_EQ(*marker, "pid " + std::to_string(getpid()) + "\nstart_ticks " +
                         std::to_string(OurStartTicks()) + "\n");
  EXPECT_TRUE(RemoveLeftoverTempFolders(root_).empty());  // ours, alive: kept
  EXPECT_TRUE((*redis)->Stop().ok());
  EXPECT_FALSE(fs::exists(dir));
}

// compute-locality's PostgreSQL folder (MakeTempFolder("pg")) is one of them: a killed
// run's is removed, a live one's kept.
TEST_F(TempFolderTest, PostgresFoldersAreCleanedLikeTheOthers) {
  std::string gone = Plant("memstand-pg-dead03", DeadPid(), 1);
  ASSERT_TRUE(fs::create_directory(gone + "/cluster"));
  std::string live = Plant("memstand-pg-live03", getpid(), OurStartTicks());
  std::vector<std::string> lines = RemoveLeftoverTempFolders(root_);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("removed leftover folder " + gone + " of a killed run"), std::string::npos)
      << lines[0];
  EXPECT_FALSE(fs::exists(gone));
  EXPECT_TRUE(fs::exists(live + "/redis.log"));
}

}  // namespace
}  // namespace memstand
