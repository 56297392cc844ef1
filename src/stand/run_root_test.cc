#include "stand/run_root.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>


namespace memstand {
namespace {

namespace fs = std::filesystem;

// Sets (or unsets, for nullptr) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    if (old != nullptr) old_ = old;
    had_ = old != nullptr;
    value != nullptr ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

class RunRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/run_root_test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(RunRootTest, DefaultIsTheEnvironmentThenAPrivateXdgFolderThenTmpPerUser) {
  std::string per_uid = "/tmp/memstand-" + std::to_string(geteuid());
  ScopedEnv run_dir("MEMSTAND_RUN_DIR", nullptr);
  {
    ScopedEnv xdg("XDG_RUNTIME_DIR", nullptr);
    EXPECT_EQ(DefaultRunRoot(), per_uid);
  }
  {
    ScopedEnv xdg("XDG_RUNTIME_DIR", dir_.c_str());  // mkdtemp: 0700, ours
    EXPECT_EQ(DefaultRunRoot(), dir_ + "/memstand");
    chmod(dir_.c_str(), 0755);  // not private: not usable
    EXPECT_EQ(DefaultRunRoot(), per_uid);
    chmod(dir_.c_str(), 0700);
  }
  {
    ScopedEnv xdg("XDG_RUNTIME_DIR", "relative/dir");
    EXPECT_EQ(DefaultRunRoot(), per_uid);
  }
  ScopedEnv given("MEMSTAND_RUN_DIR", "/somewhere/else");
  EXPECT_EQ(DefaultRunRoot(), "/somewhere/else");
}

TEST_F(RunRootTest, EnsurePrivateDirCreatesA0700FolderWhateverTheUmask) {
  mode_t old = umask(0);
  std::string root = dir_ + "/a/b/root/";
  Status s = EnsurePrivateDir(root, "run root");
  umask(old);
  ASSERT_TRUE(s.ok()) << s.message();
  struct stat st {};
  ASSERT_EQ(lstat((dir_ + "/a/b/root").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_TRUE(EnsurePrivateDir(root, "run root").ok());  // again: it exists and is fine
}

TEST_F(RunRootTest, LooseModesSymlinksAndFilesAreRefusedNotRepaired) {
  std::string loose = dir_ + "/loose";
  ASSERT_EQ(mkdir(loose.c_str(), 0700), 0);
  ASSERT_EQ(chmod(loose.c_str(), 0750), 0);
  Status s = EnsurePrivateDir(loose, "run root");
  EXPECT_EQ(s.code(), Status::Code::kFailed);
  EXPECT_EQ(s.message(), "run root " + loose + ": refused: mode 0750 lets group or others in (want 0700)");
  struct stat st {};
  ASSERT_EQ(stat(loose.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0750u);  // left as it was

  std::string link = dir_ + "/link";
  ASSERT_EQ(symlink(dir_.c_str(), link.c_str()), 0);
  EXPECT_EQ(CheckPrivateDir(link, "run root").message(), "run root " + link + ": refused: a symlink");
  EXPECT_EQ(CheckPrivateDir(dir_ + "/none", "run root").code(), Status::Code::kNotFound);

  std::string file = dir_ + "/state.json";
  ASSERT_TRUE(WritePrivateFile(file, "{}").ok());
  ASSERT_EQ(stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(*ReadPrivateFile(file, "state file"), "{}");
  chmod(file.c_str(), 0640);
  EXPECT_EQ(ReadPrivateFile(file, "state file").status().message(),
            "state file " + file + ": refused: mode 0640 lets group or others in (want 0600)");
  std::string file_link = dir_ + "/state-link.json";
  ASSERT_EQ(symlink(file.c_str(), file_link.c_str()), 0);
  EXPECT_EQ(ReadPrivateFile(file_link, "state file").status().code(), Status::Code::kFailed);
  if (geteuid() != 0) GTEST_SKIP() << "chown to another user needs root";
  chmod(file.c_str(), 0600);
  ASSERT_EQ(chown(file.c_str(), 65534, 65534), 0);
  EXPECT_EQ(ReadPrivateFile(file, "state file").status().message(),
            "state file " + file + ": refused: owned by uid 65534, not by you (uid 0)");
}

}  // namespace
}  // namespace memstand
