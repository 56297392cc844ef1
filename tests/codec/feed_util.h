// Test helpers shared by the codec tests: feed a reader a sequence of chunks and record
// everything it produced, so that every way of splitting an input can be compared with
// feeding it whole. Works with any reader of the resp::Reader shape (Feed, error).
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
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

/// `in` cut into consecutive chunks of 1 to max_chunk bytes drawn from rng.
inline std::vector<std::string> RandomChunks(const std::string& in, size_t max_chunk,
                                             std::mt19937* rng) {
  std::vector<std::string> chunks;
  for (size_t pos = 0; pos < in.size(); pos += chunks.back().size()) {
    chunks.push_back(in.substr(pos, 1 + (*rng)() % max_chunk));
  }
  return chunks;
}

/// Feeds `in` whole to `reader` and expects one complete reply that uses all of it.
template <typename Reader>
void ExpectOneReply(Reader* reader, const std::string& in) {
  size_t used = 0;
  EXPECT_EQ(reader->Feed(in.data(), in.size(), &used), Reader::Event::kReply) << reader->error();
  EXPECT_EQ(used, in.size());
}

/// The reply `in` holds (all of it), read by a Reader in Mode::kFull (TakeReply()).
template <typename Reader>
auto FullReplyOf(const std::string& in) {
  Reader reader(Reader::Mode::kFull);
  ExpectOneReply(&reader, in);
  return reader.TakeReply();
}

/// The summary of the reply `in` holds (all of it), read in Mode::kSummary.
template <typename Reader>
auto SummaryOf(const std::string& in) {
  Reader reader(Reader::Mode::kSummary);
  ExpectOneReply(&reader, in);
  return reader.summary();
}

/// Expects parse(chunks) to fail with an error containing `what`, for `in` fed whole and
/// one byte at a time. parse returns an Outcome-like value (failed, error).
template <typename Parse>
void ExpectFailsWholeAndBytewise(const std::string& in, const std::string& what, Parse parse) {
  for (const auto& chunks : {std::vector<std::string>{in}, Bytewise(in)}) {
    const auto o = parse(chunks);
    EXPECT_TRUE(o.failed) << in;
    EXPECT_NE(o.error.find(what), std::string::npos) << in << " -> " << o.error;
  }
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
