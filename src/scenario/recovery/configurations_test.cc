#include "scenario/recovery/configurations.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(RecoveryConfigurationsTest, EachNameHasItsSystemAndPromise) {
  ASSERT_EQ(RecoveryConfigurations().size(), 6u);
  for (const char* redis : {"none", "rdb", "aof-everysec", "aof-always"}) {
    EXPECT_EQ(RecoverySystemOf(redis), SystemKind::kRedis) << redis;
    EXPECT_EQ(WalModeOf(redis), "") << redis;
  }
  EXPECT_EQ(RecoverySystemOf("tarantool-wal-write"), SystemKind::kTarantool);
  EXPECT_EQ(RecoverySystemOf("tarantool-wal-fsync"), SystemKind::kTarantool);
  EXPECT_EQ(WalModeOf("tarantool-wal-write"), "write");
  EXPECT_EQ(WalModeOf("tarantool-wal-fsync"), "fsync");
  // A loss is a finding only where the configuration promised none.
  EXPECT_TRUE(PromisesNoLoss("aof-always"));
  EXPECT_TRUE(PromisesNoLoss("tarantool-wal-fsync"));
  for (const char* figure : {"none", "rdb", "aof-everysec", "tarantool-wal-write"}) {
    EXPECT_FALSE(PromisesNoLoss(figure)) << figure;
  }
  EXPECT_NE(RecoveryPromise("tarantool-wal-write").find("page cache"), std::string::npos);
  EXPECT_NE(RecoveryPromise("tarantool-wal-fsync").find("fsynced"), std::string::npos);
  EXPECT_EQ(RecoveryPromise("none"), "no persistence: everything is lost");
}

TEST(RecoveryConfigurationsTest, MemtxGetsItsTwoEmptySlabsOnTop) {
  EXPECT_EQ(MemtxMemory(32ull << 20), 64ull << 20);
  EXPECT_EQ(MemtxMemory(1ull << 30), (1ull << 30) + (32ull << 20));
}

TEST(RecoveryConfigurationsTest, FillKeysMakeTheShareLessTheBaseline) {
  // 90% of 10 000 000 B = 9 000 000, less 1 000 000 used: 8 000 000 / 1000 per key.
  EXPECT_EQ(FillKeyCount(0.9, 10'000'000, 1'000'000, 1000), 8000u);
  EXPECT_EQ(FillKeyCount(0.5, 10'000'000, 0, 3), 1'666'666u);  // rounded down
  EXPECT_EQ(FillKeyCount(0.1, 10'000'000, 999'500, 1000), 0u);  // room for half a key
  EXPECT_EQ(FillKeyCount(0.1, 10'000'000, 2'000'000, 1000), 0u);  // already past the share
  EXPECT_EQ(FillKeyCount(0.9, 10'000'000, -1, 1000), 0u);  // the baseline unknown
  EXPECT_EQ(FillKeyCount(0.9, 10'000'000, 0, 0), 0u);
}

}  // namespace
}  // namespace memstand
