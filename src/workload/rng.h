// Fast deterministic pseudo-random numbers: xoshiro256** seeded through splitmix64.
// Same seed, same sequence, on every machine. One per connection; not thread-safe.
#pragma once

#include <cstdint>

namespace memstand {

/// Mixes a run seed with a stream number (e.g. a connection's global index) into an
/// independent seed: streams with different numbers do not share sequences.
uint64_t DeriveSeed(uint64_t seed, uint64_t stream);

class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t Next();
  /// Uniform in [0, n). REQUIRES: n > 0. Unbiased (Lemire's method).
  uint64_t Uniform(uint64_t n);
  /// Uniform in [0, 1).
  double NextDouble();
  /// Standard normal (mean 0, stddev 1). Draws come in pairs; the second is cached.
  double NextGaussian();

 private:
  uint64_t s_[4];
  double cached_gaussian_ = 0;
  bool has_cached_gaussian_ = false;
};

}  // namespace memstand
