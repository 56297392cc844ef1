// The fixed cost of one system call on this machine (entry, exit and the CPU's
// speculation mitigations; no work inside): the most that batching system calls across
// connections (io_uring) could save per call. bench/README.md multiplies it by the
// system calls per request that `memstand run` reports.
#include <benchmark/benchmark.h>

#include <sys/syscall.h>
#include <unistd.h>

namespace memstand {
namespace {

void BM_SyscallRoundTrip(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(syscall(SYS_getppid));
}
BENCHMARK(BM_SyscallRoundTrip);

}  // namespace
}  // namespace memstand
