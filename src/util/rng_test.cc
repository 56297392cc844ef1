#include "util/rng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

namespace memstand {
namespace {

// Values from an independent Python implementation of splitmix64 + xoshiro256**.
TEST(RngTest, MatchesReferenceSequence) {
  Rng zero(0);
  EXPECT_EQ(zero.Next(), 0x99ec5f36cb75f2b4ULL);
  EXPECT_EQ(zero.Next(), 0xbf6e1f784956452aULL);
  EXPECT_EQ(zero.Next(), 0x1a5f849d4933e6e0ULL);
  Rng answer(42);
  EXPECT_EQ(answer.Next(), 0x15780b2e0c2ec716ULL);
  EXPECT_EQ(answer.Next(), 0x6104d9866d113a7eULL);
  EXPECT_EQ(answer.Next(), 0xae17533239e499a1ULL);
}

TEST(RngTest, SameSeedSameSequence) {
  Rng a(12345), b(12345), c(12346);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    differs |= x != c.Next();
  }
  EXPECT_TRUE(differs);
}

TEST(RngTest, DeriveSeedSeparatesStreamsAndSeeds) {
  std::set<uint64_t> seen;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    for (uint64_t stream = 0; stream < 1000; ++stream) seen.insert(DeriveSeed(seed, stream));
  }
  EXPECT_EQ(seen.size(), 8000u);
  EXPECT_EQ(DeriveSeed(7, 3), DeriveSeed(7, 3));
  EXPECT_NE(DeriveSeed(7, 3), DeriveSeed(3, 7));
}

TEST(RngTest, NeighbouringStreamsAreUnrelated) {
  // Seeds of adjacent streams differ in about half their bits, and so do their outputs.
  int total_bits = 0;
  constexpr int kPairs = 1000;
  for (uint64_t stream = 0; stream < kPairs; ++stream) {
    Rng a(DeriveSeed(1, stream)), b(DeriveSeed(1, stream + 1));
    total_bits += __builtin_popcountll(a.Next() ^ b.Next());
  }
  const double mean_bits = static_cast<double>(total_bits) / kPairs;
  EXPECT_GT(mean_bits, 30.0);
  EXPECT_LT(mean_bits, 34.0);
}

TEST(RngTest, UniformStaysInRange) {
  Rng rng(1);
  for (uint64_t n : {1ULL, 2ULL, 3ULL, 7ULL, 1000ULL, (1ULL << 63) + 1, ~0ULL}) {
    for (int i = 0; i < 1000; ++i) EXPECT_LT(rng.Uniform(n), n);
  }
  for (int i = 0; i < 100; ++i) EXPECT_EQ(rng.Uniform(1), 0u);
}

// Chi-square over 100 buckets, 99 degrees of freedom: mean 99, stddev 14. 200 is
// p < 1e-8 for a correct generator and far below what a biased one produces.
TEST(RngTest, UniformPassesChiSquare) {
  constexpr int kBuckets = 100;
  constexpr int kDraws = 1000000;
  Rng rng(2024);
  std::vector<int> counts(kBuckets);
  for (int i = 0; i < kDraws; ++i) ++counts[rng.Uniform(kBuckets)];
  const double expected = static_cast<double>(kDraws) / kBuckets;
  double chi2 = 0;
  for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 200.0);
  EXPECT_GT(chi2, 40.0);  // far too even is a bug too (e.g. a counter)
}

// With n = 3 * 2^62, a modulo reduction would put half the draws below 2^62; an
// unbiased one puts a third there.
TEST(RngTest, UniformIsUnbiasedForLargeBounds) {
  Rng rng(5);
  const uint64_t n = 3ULL << 62;
  int below = 0;
  constexpr int kDraws = 300000;
  for (int i = 0; i < kDraws; ++i) below += rng.Uniform(n) < (1ULL << 62);
  EXPECT_NEAR(static_cast<double>(below) / kDraws, 1.0 / 3, 0.01);
}

TEST(RngTest, NextDoubleInUnitInterval) {
  Rng rng(3);
  double sum = 0;
  constexpr int kDraws = 200000;
  for (int i = 0; i < kDraws; ++i) {
    const double x = rng.NextDouble();
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
    sum += x;
  }
  EXPECT_NEAR(sum / kDraws, 0.5, 0.005);
}

TEST(RngTest, GaussianHasUnitMoments) {
  Rng rng(4);
  constexpr int kDraws = 1000000;
  double sum = 0, sum_sq = 0;
  int within_one = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double x = rng.NextGaussian();
    sum += x;
    sum_sq += x * x;
    within_one += std::fabs(x) < 1.0;
  }
  const double mean = sum / kDraws;
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(std::sqrt(sum_sq / kDraws - mean * mean), 1.0, 0.01);
  EXPECT_NEAR(static_cast<double>(within_one) / kDraws, 0.6827, 0.005);
}

}  // namespace
}  // namespace memstand
