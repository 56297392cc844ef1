// Shared by the libFuzzer targets: feed a reader an input whole and split into chunks
// whose sizes come from the input itself, and trap if the two outcomes differ. Beyond
// crashes, sanitizer reports and hangs, this makes split-invariance a fuzzed property.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace memstand::fuzz {

struct Outcome {
  std::vector<std::string> replies;
  bool failed = false;
  std::string error;
  bool operator==(const Outcome&) const = default;
};

/// Feeds `chunks` in order to reader; dump(reader) renders each reply.
template <typename Reader, typename Dump>
Outcome Feed(Reader* reader, const std::vector<std::string_view>& chunks, Dump dump) {
  Outcome out;
  for (std::string_view chunk : chunks) {
    size_t off = 0;
    while (off < chunk.size()) {
      size_t used = 0;
      auto ev = reader->Feed(chunk.data() + off, chunk.size() - off, &used);
      if (used > chunk.size() - off) __builtin_trap();
      off += used;
      if (ev == Reader::Event::kNeedMore && off != chunk.size()) __builtin_trap();
      if (ev == Reader::Event::kProtocolError) {
        out.failed = true;
        out.error = reader->error();
        if (out.error.empty()) __builtin_trap();
        return out;
      }
      if (ev == Reader::Event::kReply) {
        out.replies.push_back(dump(reader));
        if (out.replies.size() > 100000) return out;
      } else if (used == 0) {
        __builtin_trap();  // no progress without a reply or an error
      }
    }
  }
  return out;
}

/// The first byte seeds the chunk sizes (1..16); the rest is the input.
/// Traps unless feeding it whole and in chunks gives the same outcome.
template <typename MakeReader, typename Dump>
void CheckSplitInvariant(const uint8_t* data, size_t size, MakeReader make, Dump dump) {
  if (size == 0) return;
  const unsigned seed = data[0];
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto whole_reader = make();
  const Outcome whole = Feed(&whole_reader, {in}, dump);
  std::vector<std::string_view> chunks;
  unsigned state = seed | 1;
  for (size_t pos = 0; pos < in.size();) {
    state = state * 1103515245u + 12345u;
    const size_t n = 1 + (state >> 16) % 16;
    chunks.push_back(in.substr(pos, n));
    pos += chunks.back().size();
  }
  auto split_reader = make();
  if (!(Feed(&split_reader, chunks, dump) == whole)) __builtin_trap();
}

}  // namespace memstand::fuzz
