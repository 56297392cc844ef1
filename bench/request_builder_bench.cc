// The engine's per-request encode path: template -> RESP bytes with key and value.
#include <benchmark/benchmark.h>

#include "load/request_builder.h"
#include "util/rng.h"

namespace memstand {
namespace {

void BM_RequestBuilderSet(benchmark::State& state) {
  auto tmpl = ParseCommandTemplate("set __key__ __data__");
  RequestBuilder builder(*tmpl, "memtier-");
  std::string value(static_cast<size_t>(state.range(0)), 'x');
  Buffer out(1 << 20);
  Rng rng(1);
  uint64_t n = 0;
  for (auto _ : state) {
    builder.Append(&out, rng.Uniform(10'000'000), value);
    if (++n % 1024 == 0) out.Clear();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RequestBuilderSet)->Arg(32)->Arg(100)->Arg(4096);

void BM_RequestBuilderGet(benchmark::State& state) {
  auto tmpl = ParseCommandTemplate("get __key__");
  RequestBuilder builder(*tmpl, "memtier-");
  Buffer out(1 << 20);
  Rng rng(1);
  uint64_t n = 0;
  for (auto _ : state) {
    builder.Append(&out, rng.Uniform(10'000'000), {});
    if (++n % 1024 == 0) out.Clear();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RequestBuilderGet);

}  // namespace
}  // namespace memstand
