// Fast deterministic pseudo-random numbers: xoshiro256** seeded through splitmix64.
// Same seed, same sequence, on every machine. One per connection; not thread-safe.
#pragma once

#include <bit>
#include <cstdint>

namespace memstand {

/// Mixes a run seed with a stream number (e.g. a connection's global index) into an
/// independent seed: streams with different numbers do not share sequences.
uint64_t DeriveSeed(uint64_t seed, uint64_t stream);

class Rng {
 public:
  explicit Rng(uint64_t seed);
  // Next and Uniform are defined here: they are drawn per request, and inlined they
  // cost a third of what a call does.
  [[gnu::always_inline]] uint64_t Next() {
    // xoshiro256** (Blackman, Vigna 2018).
    const uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }
  /// Uniform in [0, n). REQUIRES: n > 0. Unbiased (Lemire's method).
  [[gnu::always_inline]] uint64_t Uniform(uint64_t n) {
    // Lemire, "Fast random integer generation in an interval" (2019): the high word of
    // x * n, rejecting the few x whose low word falls below 2^64 mod n.
    unsigned __int128 m = static_cast<unsigned __int128>(Next()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) [[unlikely]] {
      const uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(Next()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }
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
