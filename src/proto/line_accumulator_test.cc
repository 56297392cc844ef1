#include "proto/line_accumulator.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace memstand::proto {
namespace {

using Step = LineAccumulator::Step;

// What feeding the chunks in order produced: each line as "<start>:<text>", then
// "error <offset>: <message>" if it failed. Input after a failure is ignored.
std::vector<std::string> FeedAll(LineAccumulator* acc, const std::vector<std::string>& chunks) {
  std::vector<std::string> out;
  size_t base = 0;
  for (const std::string& chunk : chunks) {
    size_t pos = 0;
    while (pos < chunk.size()) {
      const Step step = acc->Feed(chunk.data(), chunk.size(), base, &pos);
      if (step == Step::kError) {
        out.push_back("error " + std::to_string(acc->error_offset()) + ": " + acc->error());
        return out;
      }
      if (step == Step::kLine) {
        out.push_back(std::to_string(acc->line_start()) + ":" + std::string(acc->line()));
      } else {
        EXPECT_EQ(pos, chunk.size());
      }
    }
    base += chunk.size();
  }
  return out;
}

std::vector<std::string> FeedWhole(const std::string& in, size_t max_line = 16) {
  LineAccumulator acc(max_line, 4);
  return FeedAll(&acc, {in});
}

// Feeds `in` whole, one byte at a time and split in two at every byte; all must agree.
std::vector<std::string> ExpectSplitInvariant(const std::string& in, size_t max_line = 16) {
  const std::vector<std::string> whole = FeedWhole(in, max_line);
  std::vector<std::string> bytes;
  for (char c : in) bytes.emplace_back(1, c);
  LineAccumulator bytewise(max_line, 4);
  EXPECT_EQ(FeedAll(&bytewise, bytes), whole) << "bytewise: " << in;
  for (size_t i = 1; i < in.size(); ++i) {
    LineAccumulator acc(max_line, 4);
    EXPECT_EQ(FeedAll(&acc, {in.substr(0, i), in.substr(i)}), whole) << "split at " << i;
  }
  return whole;
}

using Lines = std::vector<std::string>;

TEST(LineAccumulatorTest, LineInOnePiece) {
  EXPECT_EQ(FeedWhole("STORED\r\n"), Lines{"0:STORED"});
  EXPECT_EQ(FeedWhole("\r\n"), Lines{"0:"});
  EXPECT_EQ(FeedWhole("partial"), Lines{});
}

TEST(LineAccumulatorTest, SplitAtEveryByte) {
  EXPECT_EQ(ExpectSplitInvariant("a\r\n\r\nHTTP/1.1 200 OK\r\nrest"),
            (Lines{"0:a", "3:", "5:HTTP/1.1 200 OK"}));
}

TEST(LineAccumulatorTest, StopsAfterEachLine) {
  LineAccumulator acc(16, 4);
  const std::string in = "ab\r\ncd\r\n";
  size_t pos = 0;
  ASSERT_EQ(acc.Feed(in.data(), in.size(), 100, &pos), Step::kLine);
  EXPECT_EQ(pos, 4u);
  EXPECT_EQ(acc.line(), "ab");
  ASSERT_EQ(acc.Feed(in.data(), in.size(), 100, &pos), Step::kLine);
  EXPECT_EQ(pos, in.size());
  EXPECT_EQ(acc.line(), "cd");
  EXPECT_EQ(acc.line_start(), 104u);
}

TEST(LineAccumulatorTest, OverLongLineNamesItsStart) {
  // 16 bytes of text plus CRLF is the longest accepted.
  EXPECT_EQ(ExpectSplitInvariant("x\r\n0123456789abcdef\r\n"),
            (Lines{"0:x", "3:0123456789abcdef"}));
  EXPECT_EQ(ExpectSplitInvariant("x\r\n0123456789abcdefg\r\n"),
            (Lines{"0:x", "error 3: line longer than 16 bytes"}));
  // Without a '\n' in sight, the error comes as soon as the line cannot fit.
  EXPECT_EQ(FeedWhole("x\r\n0123456789abcdefgh"),
            (Lines{"0:x", "error 3: line longer than 16 bytes"}));
}

TEST(LineAccumulatorTest, MissingCrNamesTheNewline) {
  EXPECT_EQ(ExpectSplitInvariant("ok\r\nbad\n"),
            (Lines{"0:ok", "error 7: line not terminated by CRLF"}));
  EXPECT_EQ(ExpectSplitInvariant("\n"), Lines{"error 0: line not terminated by CRLF"});
}

TEST(LineAccumulatorTest, ClearForgetsAPartialLine) {
  LineAccumulator acc(16, 4);
  EXPECT_EQ(FeedAll(&acc, {"abc"}), Lines{});
  acc.Clear();
  EXPECT_EQ(FeedAll(&acc, {"de\r\n"}), Lines{"0:de"});
}

}  // namespace
}  // namespace memstand::proto
