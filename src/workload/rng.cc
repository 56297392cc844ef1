#include "workload/rng.h"

#include <cmath>

namespace memstand {
namespace {

// One step of splitmix64 (Steele, Lea, Flood 2014): advances `state` and returns a
// well-mixed 64-bit value.
uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Mix(uint64_t x) { return SplitMix64(x); }

inline uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

uint64_t DeriveSeed(uint64_t seed, uint64_t stream) {
  // Each input is mixed on its own first, so streams 1 and 2 of a seed differ in about
  // half their bits before they meet; the final mix spreads the combination again.
  return Mix(Mix(seed) ^ Rotl(Mix(stream ^ 0xd1b54a32d192ed03ULL), 17));
}

Rng::Rng(uint64_t seed) {
  uint64_t state = seed;
  for (uint64_t& word : s_) word = SplitMix64(state);
}

uint64_t Rng::Next() {
  // xoshiro256** (Blackman, Vigna 2018).
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

uint64_t Rng::Uniform(uint64_t n) {
  // Lemire, "Fast random integer generation in an interval" (2019): the high word of
  // x * n, rejecting the few x whose low word falls below 2^64 mod n.
  unsigned __int128 m = static_cast<unsigned __int128>(Next()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(Next()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

double Rng::NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

double Rng::NextGaussian() {
  // Marsaglia's polar method: yields two independent normals; the second is cached.
  if (has_cached_gaussian_) {
    has_cached_gaussian_ = false;
    return cached_gaussian_;
  }
  double u, v, s;
  do {
    u = 2.0 * NextDouble() - 1.0;
    v = 2.0 * NextDouble() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double scale = std::sqrt(-2.0 * std::log(s) / s);
  cached_gaussian_ = v * scale;
  has_cached_gaussian_ = true;
  return u * scale;
}

}  // namespace memstand
