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
  o.warmup_bytes = 3 * 4096;
  auto r = RunStorageProbe(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->passes.size(), 5u);
  EXPECT_TRUE(r->passes[0].warmup);
  EXPECT_EQ(r->passes[0].content, "random");
  EXPECT_EQ(r->passes[0].bytes, 3u * 4096);
  EXPECT_EQ(r->passes[0].fsync_ns.size(), 3u);
  const char* order[] = {"random", "repeated", "repeated", "random"};
  for (size_t i = 0; i < 4; ++i) {
    const StoragePass& p = r->passes[i + 1];
    EXPECT_FALSE(p.warmup);
    EXPECT_EQ(p.content, order[i]);
    EXPECT_EQ(p.bytes, o.bytes / 2);
    EXPECT_EQ(p.fsync_ns.size(), 6u);
    EXPECT_EQ(p.write_ns.size(), 6u);
  }
  // The warm-up's 3 fsyncs and its bytes are in neither figure.
  EXPECT_EQ(r->FsyncNs("random").size(), 12u);
  double seconds = 0;
  for (size_t i : {1, 4}) seconds += r->passes[i].seconds;
  EXPECT_DOUBLE_EQ(r->BytesPerSecond("random"), static_cast<double>(o.bytes / 2 * 2) / seconds);
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
