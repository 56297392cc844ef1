#include "stand/storage_probe.h"

#include <stdlib.h>

#include <filesystem>

#include <gtest/gtest.h>

namespace memstand {
namespace {

namespace fs = std::filesystem;

std::string NewDir() {
  std::string t = (fs::temp_directory_path() / "memstand-probe-test-XXXXXX").string();
  return mkdtemp(t.data()) != nullptr ? t : "";
}

TEST(StorageProbeTest, WritesEachContentInTwoPassesAndRemovesItsFile) {
  const std::string dir = NewDir();
  ASSERT_FALSE(dir.empty());
  StorageProbeOptions o;
  o.dir = dir;
  o.bytes = 10 * 4096 + 100;  // half: 5 whole chunks and a short one per pass
  o.chunk = 4096;
  auto r = RunStorageProbe(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->passes.size(), 4u);
  const char* order[] = {"random", "repeated", "repeated", "random"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r->passes[i].content, order[i]);
    EXPECT_EQ(r->passes[i].bytes, o.bytes / 2);
    EXPECT_EQ(r->passes[i].fsync_ns.size(), 6u);
    EXPECT_EQ(r->passes[i].write_ns.size(), 6u);
  }
  EXPECT_EQ(r->FsyncNs("random").size(), 12u);
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST(StorageProbeTest, AMissingFolderIsAnIoErrorNamingThePath) {
  StorageProbeOptions o;
  o.dir = "/nonexistent-memstand-dir";
  auto r = RunStorageProbe(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kIoError);
  EXPECT_NE(r.status().message().find("/nonexistent-memstand-dir/memstand-storage-probe-"), std::string::npos);
}

TEST(StorageProbeTest, ACancelledProbeStopsAndLeavesNothing) {
  const std::string dir = NewDir();
  ASSERT_FALSE(dir.empty());
  std::atomic<bool> cancel{true};
  StorageProbeOptions o;
  o.dir = dir;
  o.cancel = &cancel;
  auto r = RunStorageProbe(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "interrupted");
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace memstand
