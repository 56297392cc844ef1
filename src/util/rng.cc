#include "util/rng.h"

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

uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

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
