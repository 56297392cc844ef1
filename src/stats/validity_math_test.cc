#include "stats/validity_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace memstand {
namespace {

// P(lower <= B < upper) for B ~ Binomial(n, q): how often [X_(lower), X_(upper)] holds
// the q quantile.
double BinomialCoverage(uint64_t n, double q, const RankInterval& r) {
  double sum = 0;
  for (uint64_t b = r.lower; b < r.upper; ++b) {
    const double dn = static_cast<double>(n), db = static_cast<double>(b);
    sum += std::exp(std::lgamma(dn + 1) - std::lgamma(db + 1) - std::lgamma(dn - db + 1) + db * std::log(q) +
                    (dn - db) * std::log1p(-q));
  }
  return sum;
}

std::vector<double> Exponential(size_t n, double mean, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> draw(1 / mean);
  std::vector<double> out(n);
  for (double& x : out) x = draw(rng);
  return out;
}

TEST(ValidityMathTest, NormalQuantileMatchesTables) {
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.001), -3.090232306167813, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.5), 0, 1e-15);
  EXPECT_NEAR(NormalQuantile(0.9999), 3.719016485455709, 1e-11);
}

// A Poisson process's gaps pass; even gaps (a constant rate) and uniform ones fail by far.
TEST(ValidityMathTest, AndersonDarlingTellsExponentialGapsFromOthers) {
  for (uint64_t seed : {1, 2, 3}) {
    auto a2 = AndersonDarlingExponential(Exponential(5000, 100, seed));
    ASSERT_TRUE(a2.has_value());
    EXPECT_LT(*a2, 2 * kAdExponential1Pct) << "seed " << seed;
  }
  auto constant = AndersonDarlingExponential(std::vector<double>(5000, 100.0));
  ASSERT_TRUE(constant.has_value());
  EXPECT_GT(*constant, 100 * kAdExponential1Pct);
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> uniform(0, 200);
  std::vector<double> gaps(5000);
  for (double& g : gaps) g = uniform(rng);
  EXPECT_GT(*AndersonDarlingExponential(gaps), 2 * kAdExponential1Pct);
  // Zeros (two sends in one nanosecond) are finite, not -inf.
  std::vector<double> with_zero = Exponential(100, 100, 4);
  with_zero[0] = 0;
  EXPECT_TRUE(std::isfinite(*AndersonDarlingExponential(with_zero)));
  EXPECT_FALSE(AndersonDarlingExponential({1, 2, 3}).has_value());
  EXPECT_FALSE(AndersonDarlingExponential(std::vector<double>(10, 0.0)).has_value());
}

TEST(ValidityMathTest, CoefficientOfVariation) {
  EXPECT_DOUBLE_EQ(*CoefficientOfVariation({5, 5, 5, 5}), 0);
  EXPECT_NEAR(*CoefficientOfVariation(Exponential(20000, 10, 5)), 1, 0.05);
  EXPECT_DOUBLE_EQ(*CoefficientOfVariation({1, 3}), 0.5);
  EXPECT_FALSE(CoefficientOfVariation({7}).has_value());
}

TEST(ValidityMathTest, MannKendallFindsATrendAndNotNoise) {
  // The textbook case: 1..5, S = 10, Var(S) = 5 * 4 * 15 / 18, z = 9 / sqrt(Var).
  auto rising = MannKendall({1, 2, 3, 4, 5});
  ASSERT_TRUE(rising.has_value());
  EXPECT_EQ(rising->s, 10);
  EXPECT_NEAR(rising->z, 9 / std::sqrt(5 * 4 * 15 / 18.0), 1e-12);
  EXPECT_NEAR(rising->p_value, 0.0275, 1e-4);
  EXPECT_DOUBLE_EQ(rising->slope, 1);
  // A steady throughput with noise, and the same falling by half in its second half.
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(0, 1000);
  std::vector<double> steady(120), sagging(120);
  for (size_t i = 0; i < steady.size(); ++i) {
    steady[i] = 100000 + noise(rng);
    sagging[i] = (i < 60 ? 100000 : 50000) + noise(rng);
  }
  EXPECT_GT(MannKendall(steady)->p_value, 0.01);
  EXPECT_LT(MannKendall(sagging)->p_value, 1e-6);
  EXPECT_LT(MannKendall(sagging)->slope, 0);
  // Ties: a flat series has no trend at all.
  auto flat = MannKendall({3, 3, 3, 3, 3, 3});
  EXPECT_EQ(flat->s, 0);
  EXPECT_DOUBLE_EQ(flat->p_value, 1);
  EXPECT_FALSE(MannKendall({1, 2, 3}).has_value());
  // A long series is averaged down, not refused.
  std::vector<double> hours(100000);
  for (size_t i = 0; i < hours.size(); ++i) hours[i] = static_cast<double>(i);
  EXPECT_LT(MannKendall(hours)->p_value, 1e-6);
}

TEST(ValidityMathTest, SpearmanSeesCorrelatedSamples) {
  auto independent = SpearmanAtLag(Exponential(10000, 100, 12), 1);
  ASSERT_TRUE(independent.has_value());
  EXPECT_LT(std::fabs(*independent), 0.05);
  std::mt19937_64 rng(13);
  std::normal_distribution<double> noise;
  std::vector<double> ar(10000);
  double v = 0;
  for (double& x : ar) x = v = 0.9 * v + noise(rng);
  EXPECT_GT(*SpearmanAtLag(ar, 1), 0.8);
  EXPECT_LT(*SpearmanAtLag(ar, 100), 0.2);
  // Ties get average ranks: a series alternating two values is perfectly anti-correlated.
  std::vector<double> alternating;
  for (int i = 0; i < 20; ++i) alternating.push_back(i % 2);
  EXPECT_DOUBLE_EQ(*SpearmanAtLag(alternating, 1), -1);
  EXPECT_FALSE(SpearmanAtLag(std::vector<double>(50, 1.0), 1).has_value());
  EXPECT_FALSE(SpearmanAtLag({1, 2, 3, 4, 5, 6, 7, 8}, 1).has_value());
  EXPECT_NEAR(EffectiveSampleSize(1000, 0.5), 1000 / 3.0, 1e-9);
  EXPECT_DOUBLE_EQ(EffectiveSampleSize(1000, -0.5), 1000);
  EXPECT_DOUBLE_EQ(EffectiveSampleSize(1000, 0.99999), 1);
}

// The rank interval holds the percentile at least about as often as asked (exact binomial
// sums), and says when the tail is too thin to bound.
TEST(ValidityMathTest, PercentileRankIntervalCoversItsConfidence) {
  auto median = PercentileRankInterval(1000, 50, 0.95);
  ASSERT_TRUE(median.has_value());
  EXPECT_EQ(median->lower, 469u);
  EXPECT_EQ(median->upper, 532u);
  EXPECT_FALSE(median->clamped);
  for (auto [n, p] : std::vector<std::pair<uint64_t, double>>{{1000, 50}, {1000, 99}, {100000, 99.9}, {200, 90}}) {
    auto r = PercentileRankInterval(n, p, 0.95);
    ASSERT_TRUE(r.has_value());
    EXPECT_GE(BinomialCoverage(n, p / 100, *r), 0.95) << n << " p" << p;
    EXPECT_LT(r->lower, r->upper);
  }
  auto thin = PercentileRankInterval(30000, 99.99, 0.95);  // three samples above it
  ASSERT_TRUE(thin.has_value());
  EXPECT_TRUE(thin->clamped);
  EXPECT_EQ(thin->upper, 30000u);
  EXPECT_FALSE(PercentileRankInterval(0, 50, 0.95).has_value());
  EXPECT_FALSE(PercentileRankInterval(10, 100, 0.95).has_value());
  EXPECT_FALSE(PercentileRankInterval(10, 50, 1).has_value());
}

TEST(ValidityMathTest, MeanBoundsFromPercentilesAndLittlesLaw) {
  auto b = MeanBoundsFromPercentiles({{50, 10}, {99, 20}}, 1, 100);
  ASSERT_TRUE(b.has_value());
  EXPECT_DOUBLE_EQ(b->low, 0.5 * 1 + 0.49 * 10 + 0.01 * 20);
  EXPECT_DOUBLE_EQ(b->high, 0.5 * 10 + 0.49 * 20 + 0.01 * 100);
  EXPECT_FALSE(MeanBoundsFromPercentiles({{99, 20}, {50, 10}}, 1, 100).has_value());
  EXPECT_FALSE(MeanBoundsFromPercentiles({{50, 10}, {99, 5}}, 1, 100).has_value());
  EXPECT_FALSE(MeanBoundsFromPercentiles({{50, 200}}, 1, 100).has_value());
  // 18,000 requests in flight at 633,142 per second hold a mean of 28.4 ms.
  EXPECT_NEAR(*LittlesLawGap(18000, 633142, 0.02843), 0, 0.001);
  EXPECT_NEAR(*LittlesLawGap(18000, 633142, 0.012), 18000 / (633142 * 0.012) - 1, 1e-12);
  EXPECT_FALSE(LittlesLawGap(0, 1000, 0.001).has_value());
}

// Blocks: pairs never straddle two blocks. Each block alone is perfectly ordered (a
// lag-1 correlation of 1), but block i+1 starts far below block i's end: pairs across
// blocks would pull the correlation down, pairs inside keep it at 1.
TEST(ValidityMathTest, SpearmanInBlocksPairsInsideEachBlockOnly) {
  std::vector<std::vector<double>> blocks;
  for (int b = 0; b < 4; ++b) {
    std::vector<double> x;
    for (int i = 0; i < 50; ++i) x.push_back(1000.0 * (3 - b) + i);
    blocks.push_back(x);
  }
  auto rho = SpearmanAtLagInBlocks(blocks, 1);
  ASSERT_TRUE(rho.has_value());
  EXPECT_GT(*rho, 0.99);
  std::vector<double> flat;
  for (const auto& x : blocks) flat.insert(flat.end(), x.begin(), x.end());
  EXPECT_LT(*SpearmanAtLag(flat, 1), *rho);  // the straddling pairs count there
  // Independent draws, cut into blocks: no correlation to speak of.
  std::vector<std::vector<double>> noise = {Exponential(4000, 1, 7), Exponential(4000, 1, 8)};
  EXPECT_LT(std::fabs(*SpearmanAtLagInBlocks(noise, 1)), 0.05);
  EXPECT_FALSE(SpearmanAtLagInBlocks({{1, 2, 3}, {4, 5}}, 1).has_value());  // 3 pairs
  EXPECT_FALSE(SpearmanAtLagInBlocks(blocks, 0).has_value());
}

}  // namespace
}  // namespace memstand
