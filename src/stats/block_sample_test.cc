#include "stats/block_sample.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

// Offers 0, 1, 2, ...: every kept block must be consecutive offers starting at a
// multiple of the final stride, the blocks must cover the stream evenly, and offered()
// must count every offer, inside a block or between two.
void CheckAfter(uint64_t n, uint32_t max_blocks) {
  BlockSample s(max_blocks);
  for (uint64_t i = 0; i < n; ++i) {
    s.Offer(static_cast<int64_t>(i));
    ASSERT_EQ(s.offered(), i + 1) << "after offer " << i;
  }
  const auto blocks = s.blocks();
  ASSERT_FALSE(blocks.empty());
  EXPECT_LE(blocks.size(), max_blocks);
  for (size_t b = 0; b < blocks.size(); ++b) {
    const auto& block = blocks[b];
    EXPECT_EQ(static_cast<uint64_t>(block[0]), b * s.stride()) << "block " << b;
    for (size_t i = 1; i < block.size(); ++i) ASSERT_EQ(block[i], block[0] + static_cast<int64_t>(i));
    if (b + 1 < blocks.size()) {
      EXPECT_EQ(block.size(), BlockSample::kBlock);
    }
  }
  // The kept blocks reach the stream's last stride: nothing at its end goes unsampled.
  const uint64_t last_start = static_cast<uint64_t>(blocks.back()[0]);
  EXPECT_GE(last_start + s.stride(), n);
  if (n >= uint64_t{max_blocks} * BlockSample::kBlock) {
    EXPECT_GE(blocks.size(), max_blocks / 2);
  }
}

TEST(BlockSampleTest, KeepsEverythingWhileItFits) {
  BlockSample s(4);
  for (int64_t i = 0; i < 1000; ++i) s.Offer(i * 10);
  EXPECT_EQ(s.kept(), 1000u);
  EXPECT_EQ(s.stride(), BlockSample::kBlock);
  const auto blocks = s.blocks();
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(blocks[3].size(), 1000u - 3 * BlockSample::kBlock);
  EXPECT_EQ(blocks[3].back(), 9990);
}

TEST(BlockSampleTest, BlocksStaySpreadOverTheWholeStream) {
  for (uint64_t n : {1ull, 255ull, 256ull, 257ull, 2048ull, 2049ull, 5000ull, 100000ull, 1234567ull}) {
    SCOPED_TRACE(n);
    CheckAfter(n, 8);
  }
  CheckAfter(3000000, 64);
}

TEST(BlockSampleTest, StrideDoublesAsTheStreamGrows) {
  BlockSample s(8);
  for (int64_t i = 0; i < 8 * 256; ++i) s.Offer(i);
  EXPECT_EQ(s.stride(), 2u * BlockSample::kBlock);  // full: halved, stride doubled
  EXPECT_EQ(s.kept(), 4u * BlockSample::kBlock);
  for (int64_t i = 8 * 256; i < 64 * 256; ++i) s.Offer(i);
  EXPECT_EQ(s.stride(), 16u * BlockSample::kBlock);
  EXPECT_EQ(s.kept(), 4u * BlockSample::kBlock);
}

}  // namespace
}  // namespace memstand
