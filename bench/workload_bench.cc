// Hot paths of the workload layer: drawing the next key and picking a value.
#include <benchmark/benchmark.h>

#include "workload/key_pattern.h"
#include "workload/value_pool.h"

namespace memstand {
namespace {

void RunKeySequence(benchmark::State& state, KeyPatternSpec::Kind kind) {
  KeyPatternSpec spec;
  spec.kind = kind;
  KeySequence seq(spec, 0, 10000000, 1, 0, 1);
  for (auto _ : state) benchmark::DoNotOptimize(seq.Next());
}

void BM_KeySequenceUniform(benchmark::State& state) {
  RunKeySequence(state, KeyPatternSpec::Kind::kUniform);
}
void BM_KeySequenceGaussian(benchmark::State& state) {
  RunKeySequence(state, KeyPatternSpec::Kind::kGaussian);
}
void BM_KeySequenceZipf(benchmark::State& state) {
  RunKeySequence(state, KeyPatternSpec::Kind::kZipf);
}
BENCHMARK(BM_KeySequenceUniform);
BENCHMARK(BM_KeySequenceGaussian);
BENCHMARK(BM_KeySequenceZipf);

// Arg: max value size; sizes are drawn in [32, max].
void BM_ValuePick(benchmark::State& state) {
  ValueSpec spec;
  spec.min_size = 32;
  spec.max_size = static_cast<size_t>(state.range(0));
  spec.content = ValueSpec::Content::kRandom;
  const ValuePool pool(spec, 1);
  Rng rng(2);
  for (auto _ : state) benchmark::DoNotOptimize(pool.Pick(rng, 0));
}
BENCHMARK(BM_ValuePick)->Arg(32)->Arg(4096)->Arg(1 << 20);

}  // namespace
}  // namespace memstand
