#include "core/buffer.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace memstand {
namespace {

TEST(BufferTest, TakesNoMemoryUntilTheFirstWrite) {
  Buffer b;
  EXPECT_EQ(b.Capacity(), 0u);
  EXPECT_EQ(b.Readable(), 0u);
  EXPECT_EQ(b.View(), "");
  b.Append("GET k\r\n");
  EXPECT_EQ(b.Capacity(), Buffer::kMinGrowth);  // a small request takes the least growth
  EXPECT_EQ(b.View(), "GET k\r\n");
}

TEST(BufferTest, GrowsKeepingWhatIsUnreadAndCompactsFirst) {
  Buffer b(8);
  EXPECT_EQ(b.Capacity(), 8u);
  b.Append("abcdefgh");
  b.Consume(6);
  b.Append("ijklmn");  // fits once "gh" moves to the front
  EXPECT_EQ(b.Capacity(), 8u);
  EXPECT_EQ(b.View(), "ghijklmn");
  const std::string big(5000, 'x');
  b.Append(big);
  EXPECT_GE(b.Capacity(), 5008u);
  EXPECT_EQ(b.View(), "ghijklmn" + big);
}

TEST(BufferTest, ReleaseGivesTheMemoryBackOnlyWhenNothingIsUnread) {
  Buffer b;
  b.Append(std::string(20000, 'r'));
  const size_t grown = b.Capacity();
  EXPECT_GE(grown, 20000u);
  EXPECT_EQ(b.Release(), 0u);  // bytes still to be read (a send in flight): kept
  EXPECT_EQ(b.Capacity(), grown);
  b.Consume(b.Readable());
  EXPECT_EQ(b.Release(), grown);
  EXPECT_EQ(b.Capacity(), 0u);
  EXPECT_EQ(b.Release(), 0u);
  b.Append("again");  // taken again on demand
  EXPECT_EQ(b.View(), "again");
  EXPECT_EQ(b.Capacity(), Buffer::kMinGrowth);
}

TEST(BufferTest, SwapAndMoveHandOverTheMemoryAndTheContents) {
  Buffer a, b;
  a.Append("queued");
  a.Swap(b);  // what the io_uring send path does: b is sent, a takes new requests
  EXPECT_EQ(a.Capacity(), 0u);
  EXPECT_EQ(b.View(), "queued");
  Buffer c(std::move(b));
  EXPECT_EQ(b.Capacity(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(b.Readable(), 0u);
  EXPECT_EQ(c.View(), "queued");
  Buffer d = c;
  EXPECT_EQ(d.View(), "queued");
  EXPECT_EQ(c.View(), "queued");
}

}  // namespace
}  // namespace memstand
