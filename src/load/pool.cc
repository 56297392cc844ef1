#include "load/pool.h"

#include <string>

#include "util/rng.h"

namespace memstand {

namespace {

// Keeps the pool's draws apart from the key, value and mix streams of the same seed.
constexpr uint64_t kPoolStream = 0x9001'ba1a'0ce5ULL;

}  // namespace

const char* BalanceName(Balance b) {
  switch (b) {
    case Balance::kRoundRobin: return "round-robin";
    case Balance::kRandom: return "random";
    case Balance::kPerRequest: return "per-request";
  }
  return "round-robin";
}

Result<Balance> ParseBalance(std::string_view name) {
  for (Balance b : {Balance::kRoundRobin, Balance::kRandom, Balance::kPerRequest}) {
    if (name == BalanceName(b)) return b;
  }
  return Status::InvalidArgument("'" + std::string(name) +
                                 "' is not a balancing policy; use round-robin, random or per-request");
}

int PoolIndex(Balance b, uint64_t seed, uint64_t client, int targets) {
  const auto n = static_cast<uint64_t>(targets);
  if (b != Balance::kRandom) return static_cast<int>(client % n);
  Rng rng(DeriveSeed(seed ^ kPoolStream, client));
  return static_cast<int>(rng.Uniform(n));
}

std::vector<uint64_t> PoolConnections(Balance b, uint64_t seed, uint64_t connections,
                                      int targets) {
  if (b == Balance::kPerRequest) return std::vector<uint64_t>(static_cast<size_t>(targets), connections);
  std::vector<uint64_t> counts(static_cast<size_t>(targets), 0);
  for (uint64_t i = 0; i < connections; ++i) ++counts[PoolIndex(b, seed, i, targets)];
  return counts;
}

}  // namespace memstand
