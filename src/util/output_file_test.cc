#include "util/output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace memstand {
namespace {

namespace fs = std::filesystem;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = "/tmp/memstand-output-file-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The folder's entries: no temporary file may be left behind.
  size_t Entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++n;
    return n;
  }
  static std::string Read(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }

  std::string dir_;
};

TEST_F(OutputFileTest, ANewFileAppearsOnlyWhenCommitted) {
  const std::string path = dir_ + "/out.json";
  auto f = OutputFile::Open("--json", path);
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_TRUE((*f)->Write("{}\n").ok());
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(Entries(), 0u);
  ASSERT_TRUE((*f)->Commit().ok());
  EXPECT_EQ(Read(path), "{}\n");
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(OutputFileTest, WithoutCommitNothingIsLeft) {
  const std::string path = dir_ + "/out.json";
  {
    auto f = OutputFile::Open("--json", path);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->Write("partial").ok());
  }
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(OutputFileTest, AnExistingFileIsReplacedWholeAndKeepsItsMode) {
  const std::string path = dir_ + "/out.csv";
  std::ofstream(path) << "old content, longer than the new one\n";
  ASSERT_EQ(chmod(path.c_str(), 0640), 0);
  auto f = OutputFile::Open("--samples", path);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->Write("new\n").ok());
  EXPECT_EQ(Read(path), "old content, longer than the new one\n");  // until Commit
  ASSERT_TRUE((*f)->Commit().ok());
  EXPECT_EQ(Read(path), "new\n");
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(OutputFileTest, ASymlinkToAFileReplacesTheFileAndKeepsTheLink) {
  const std::string target = dir_ + "/real.json", link = dir_ + "/link.json";
  std::ofstream(target) << "old\n";
  fs::create_symlink(target, link);
  auto f = OutputFile::Open("--json", link);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->Write("new\n").ok());
  ASSERT_TRUE((*f)->Commit().ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(Read(target), "new\n");
}

TEST_F(OutputFileTest, ADeviceIsWrittenDirectlyNeverReplaced) {
  auto f = OutputFile::Open("--json", "/dev/null");
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->Write("{}\n").ok());
  ASSERT_TRUE((*f)->Commit().ok());
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(OutputFileTest, AFullDeviceNamesTheFlagThePathAndErrno) {
  auto f = OutputFile::Open("--json", "/dev/full");
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->Write("{}\n").ok());  // buffered
  Status s = (*f)->Commit();
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_EQ(s.message(), "--json: cannot write '/dev/full': No space left on device");
}

TEST_F(OutputFileTest, BadPathsAreRefusedUpFront) {
  struct Case {
    std::string path, message;
  } cases[] = {
      {"", "--hgrm: needs a file path, got ''"},
      {dir_, "--hgrm: cannot write '" + dir_ + "': Is a directory"},
      {dir_ + "/no/such/x",
       "--hgrm: cannot write '" + dir_ + "/no/such/x': No such file or directory"},
  };
  for (const Case& c : cases) {
    auto f = OutputFile::Open("--hgrm", c.path);
    ASSERT_FALSE(f.ok()) << c.path;
    EXPECT_EQ(f.status().code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(f.status().message(), c.message);
  }
  fs::create_symlink(dir_ + "/missing", dir_ + "/dangling");
  auto f = OutputFile::Open("--hgrm", dir_ + "/dangling");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("symbolic link to a missing file"), std::string::npos);
}

TEST_F(OutputFileTest, TwoFlagsNamingOneFileAreRefused) {
  const std::string a = dir_ + "/a";
  Status s = CheckDistinctOutputs({{"--json", a}, {"--samples", dir_ + "/./a"}});
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("--json '" + a + "' and --samples"), std::string::npos) << s.message();
  std::ofstream(a) << "x";
  fs::create_hard_link(a, dir_ + "/b");
  EXPECT_FALSE(
      CheckDistinctOutputs({{"--json", ""}, {"--hgrm", a}, {"--hdr-log", dir_ + "/b"}}).ok());
  EXPECT_TRUE(CheckDistinctOutputs({{"--json", a}, {"--samples", dir_ + "/c"}}).ok());
  EXPECT_TRUE(CheckDistinctOutputs({{"--json", "/dev/null"}, {"--samples", "/dev/null"}}).ok());
}

TEST_F(OutputFileTest, AnOutputNamingAnInputIsRefused) {
  const std::string in = dir_ + "/in.json";
  std::ofstream(in) << "{}";
  fs::create_hard_link(in, dir_ + "/hard.json");
  fs::create_symlink(in, dir_ + "/link.json");
  fs::create_directory(dir_ + "/sub");
  for (const std::string& out : {in, dir_ + "/./in.json", dir_ + "/sub/../in.json", dir_ + "/hard.json",
                                 dir_ + "/link.json"}) {
    Status s = CheckOutputsSpareInputs({{"--hdr-log", ""}, {"-o", out}}, {dir_ + "/other.json", in});
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << out;
    EXPECT_NE(s.message().find("-o '" + out + "' names the input '" + in + "'"), std::string::npos)
        << s.message();
  }
  EXPECT_TRUE(CheckOutputsSpareInputs({{"-o", dir_ + "/new.json"}}, {in}).ok());
  EXPECT_TRUE(CheckOutputsSpareInputs({{"-o", "/dev/null"}}, {"/dev/null"}).ok());
}

}  // namespace
}  // namespace memstand
