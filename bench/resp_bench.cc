// RESP codec hot paths: parsing replies in kSummary mode (the load engine's reader)
// and encoding a SET command.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "proto/resp/resp.h"

namespace memstand::resp {
namespace {

constexpr int kRepliesPerBuffer = 1000;

std::string Repeat(const std::string& reply, int n) {
  std::string out;
  out.reserve(reply.size() * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out += reply;
  return out;
}

// Parses a buffer holding kRepliesPerBuffer copies of `reply`, one Feed per reply.
void ParseBuffer(benchmark::State& state, const std::string& reply, Reader::Mode mode) {
  const std::string buf = Repeat(reply, kRepliesPerBuffer);
  Reader reader(mode);
  int64_t replies = 0;
  for (auto _ : state) {
    size_t pos = 0;
    while (pos < buf.size()) {
      size_t used = 0;
      if (reader.Feed(buf.data() + pos, buf.size() - pos, &used) != Reader::Event::kReply) {
        state.SkipWithError("parse failed");
        return;
      }
      if (mode == Reader::Mode::kFull) benchmark::DoNotOptimize(reader.TakeReply());
      benchmark::DoNotOptimize(reader.summary().wire_bytes);
      pos += used;
      ++replies;
    }
  }
  state.SetItemsProcessed(replies);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(buf.size()));
}

const std::string kBulk100 = "$100\r\n" + std::string(100, 'v') + "\r\n";

void BM_ParseSummary_Ok(benchmark::State& state) {
  ParseBuffer(state, "+OK\r\n", Reader::Mode::kSummary);
}
BENCHMARK(BM_ParseSummary_Ok);

void BM_ParseSummary_Bulk100(benchmark::State& state) {
  ParseBuffer(state, kBulk100, Reader::Mode::kSummary);
}
BENCHMARK(BM_ParseSummary_Bulk100);

void BM_ParseFull_Bulk100(benchmark::State& state) {
  ParseBuffer(state, kBulk100, Reader::Mode::kFull);
}
BENCHMARK(BM_ParseFull_Bulk100);

void BM_EncodeSet(benchmark::State& state) {
  const std::string value(100, 'x');
  const std::vector<std::string_view> args = {"SET", "key:12345", value};
  Buffer out;
  for (auto _ : state) {
    AppendCommand(&out, args);
    benchmark::DoNotOptimize(out.ReadPtr());
    out.Clear();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_EncodeSet);

}  // namespace
}  // namespace memstand::resp
