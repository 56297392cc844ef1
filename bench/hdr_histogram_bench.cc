// Hot paths of the HDR histogram: Record (per request) and ValueAtPercentile (per report).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "stats/hdr_histogram.h"

namespace memstand {
namespace {

// Log-uniform latencies from 1 us to 100 ms, precomputed so the RNG is not measured.
const std::vector<int64_t>& Latencies() {
  static const std::vector<int64_t> latencies = [] {
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<double> u(std::log(1e3), std::log(1e8));
    std::vector<int64_t> out(1 << 16);
    for (auto& v : out) v = std::llround(std::exp(u(rng)));
    return out;
  }();
  return latencies;
}

void BM_HdrRecord(benchmark::State& state) {
  const std::vector<int64_t>& latencies = Latencies();
  HdrHistogram h;
  size_t i = 0;
  for (auto _ : state) {
    h.Record(latencies[i]);
    i = (i + 1) & (latencies.size() - 1);
  }
  benchmark::DoNotOptimize(h.total_count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HdrRecord);

void BM_HdrValueAtPercentile(benchmark::State& state) {
  HdrHistogram h;
  for (int64_t v : Latencies()) h.Record(v);
  const double p = static_cast<double>(state.range(0)) / 1000.0;
  for (auto _ : state) benchmark::DoNotOptimize(h.ValueAtPercentile(p));
}
BENCHMARK(BM_HdrValueAtPercentile)->Arg(50'000)->Arg(99'900);

// What a worker's one-second interval costs in histograms: a fresh one (1 ns to 1 h),
// a few thousand latencies in a narrow band, a copy for the interval report and an Add
// into the totals. The counts array is 270 KB; only the band's pages are touched.
void BM_HdrIntervalLifecycle(benchmark::State& state) {
  const std::vector<int64_t>& latencies = Latencies();
  HdrHistogram total;
  for (auto _ : state) {
    HdrHistogram h;
    for (size_t i = 0; i < 4096; ++i) h.Record(50'000 + (latencies[i] & 0xffff));
    HdrHistogram copy = h;
    total.Add(copy);
    benchmark::DoNotOptimize(copy.total_count());
  }
}
BENCHMARK(BM_HdrIntervalLifecycle);

}  // namespace
}  // namespace memstand
