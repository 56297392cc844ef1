// Test helpers shared by the codec tests: feed a reader a sequence of chunks and record
// everything it produced, so that every way of splitting an input can be compared with
// feeding it whole. Works with any reader of the resp::Reader shape (Feed, error).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace memstand::codec_test {

struct Outcome {
  std::vector<std::string> replies;  // what `dump` made of each reply
  bool failed = false;
  std::string error;
  size_t consumed = 0;  // 0 after a failure

  bool operator==(const Outcome&) const = default;
};

inline std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  os << "{replies:";
  for (const std::string& r : o.replies) os << " [" << r << "]";
  return os << (o.failed ? " failed: " + o.error : "") << " consumed=" << o.consumed << "}";
}

/// Feeds `chunks` in order; after each kReply calls dump(reader) and keeps the text.
template <typename Reader, typename Dump>
Outcome FeedChunks(Reader* reader, const std::vector<std::string>& chunks, Dump dump) {
  Outcome out;
  for (const std::string& chunk : chunks) {
    size_t off = 0;
    while (off < chunk.size() && !out.failed) {
      size_t used = 0;
      auto ev = reader->Feed(chunk.data() + off, chunk.size() - off, &used);
      EXPECT_LE(used, chunk.size() - off);
      off += used;
      if (ev == Reader::Event::kNeedMore) {
        EXPECT_EQ(off, chunk.size());
      }
      if (ev == Reader::Event::kProtocolError) {
        out.failed = true;
        out.error = reader->error();
      }
      if (ev == Reader::Event::kReply) out.replies.push_back(dump(reader));
    }
    out.consumed += off;
    if (out.failed) {
      out.consumed = 0;  // what a failed Feed() consumed is not part of its contract
      break;
    }
  }
  return out;
}

inline std::vector<std::string> Bytewise(const std::string& in) {
  std::vector<std::string> out;
  for (char c : in) out.emplace_back(1, c);
  return out;
}

/// Checks that feeding `in` one byte at a time and in every two-part split gives the
/// same outcome as feeding it whole; returns the whole outcome. make() gives a fresh
/// reader.
template <typename MakeReader, typename Dump>
Outcome ExpectSplitInvariant(const std::string& in, MakeReader make, Dump dump) {
  auto reader = make();
  const Outcome whole = FeedChunks(&reader, {in}, dump);
  auto bytewise = make();
  EXPECT_EQ(FeedChunks(&bytewise, Bytewise(in), dump), whole) << "bytewise: " << in;
  for (size_t i = 1; i < in.size(); ++i) {
    auto r = make();
    EXPECT_EQ(FeedChunks(&r, {in.substr(0, i), in.substr(i)}, dump), whole)
        << "split at " << i << ": " << in;
  }
  return whole;
}

}  // namespace memstand::codec_test
