#include "stats/modality.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "stats/hdr_histogram.h"
#include "util/rng.h"

namespace memstand {
namespace {

constexpr double kUs = 1000.0;  // samples are in ns

// A lognormal sample with the given median and sigma of ln(value); its mode (the peak
// of its density) is median * exp(-sigma^2).
double LogNormal(Rng& rng, double median, double sigma) {
  return median * std::exp(sigma * rng.NextGaussian());
}

struct Component {
  double weight;
  double median;
  double sigma;
};

std::vector<double> Mixture(uint64_t seed, int n, const std::vector<Component>& parts) {
  Rng rng(seed);
  std::vector<double> samples;
  for (int i = 0; i < n; ++i) {
    double u = rng.NextDouble();
    size_t k = 0;
    while (k + 1 < parts.size() && u >= parts[k].weight) u -= parts[k++].weight;
    samples.push_back(LogNormal(rng, parts[k].median, parts[k].sigma));
  }
  return samples;
}

void ExpectModesNear(const ModalityResult& result, const std::vector<double>& expected,
                     double tolerance) {
  ASSERT_EQ(result.modes, static_cast<int>(expected.size())) << result.method;
  ASSERT_EQ(result.mode_values.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(result.mode_values[i], expected[i], tolerance * expected[i]) << "mode " << i;
  }
}

TEST(DetectModesTest, UnimodalLognormal) {
  const ModalityResult result = DetectModes(Mixture(1, 10'000, {{1.0, 50 * kUs, 0.3}}));
  EXPECT_FALSE(result.multimodal);
  EXPECT_EQ(result.samples, 10'000);
  ExpectModesNear(result, {50 * kUs * std::exp(-0.09)}, 0.10);
  EXPECT_LT(result.dip_or_score, 0.5);
  EXPECT_NE(result.method.find("log-histogram"), std::string::npos);
}

TEST(DetectModesTest, TwoSeparatedModesWithTheirValues) {
  // The brief's case: 50 us and 400 us, 70/30.
  const ModalityResult result =
      DetectModes(Mixture(2, 10'000, {{0.7, 50 * kUs, 0.25}, {0.3, 400 * kUs, 0.25}}));
  EXPECT_TRUE(result.multimodal);
  ExpectModesNear(result, {50 * kUs, 400 * kUs}, 0.15);
  EXPECT_GE(result.dip_or_score, 0.5);
  EXPECT_LE(result.dip_or_score, 1.0);
}

TEST(DetectModesTest, ThreeModes) {
  const ModalityResult result = DetectModes(
      Mixture(3, 20'000, {{0.4, 30 * kUs, 0.2}, {0.35, 200 * kUs, 0.2}, {0.25, 1500 * kUs, 0.2}}));
  EXPECT_TRUE(result.multimodal);
  ExpectModesNear(result, {30 * kUs, 200 * kUs, 1500 * kUs}, 0.15);
}

TEST(DetectModesTest, VerdictsHoldAcrossSeeds) {
  // Not one lucky seed: 20 seeds at a modest n.
  for (uint64_t seed = 100; seed < 120; ++seed) {
    SCOPED_TRACE(seed);
    EXPECT_EQ(DetectModes(Mixture(seed, 1'000, {{1.0, 80 * kUs, 0.5}})).modes, 1);
    EXPECT_EQ(
        DetectModes(Mixture(seed, 1'000, {{0.9, 50 * kUs, 0.25}, {0.1, 400 * kUs, 0.25}})).modes,
        2);
  }
}

TEST(DetectModesTest, UniformIsNotMultimodal) {
  for (uint64_t seed : {4, 5, 6}) {
    Rng rng(seed);
    std::vector<double> wide, narrow;
    for (int i = 0; i < 10'000; ++i) {
      wide.push_back(10 * kUs + 990 * kUs * rng.NextDouble());
      narrow.push_back(100 * kUs + 100 * kUs * rng.NextDouble());
    }
    EXPECT_FALSE(DetectModes(wide).multimodal) << DetectModes(wide).modes;
    EXPECT_FALSE(DetectModes(narrow).multimodal) << DetectModes(narrow).modes;
  }
}

TEST(DetectModesTest, HeavyTailedSingleModeIsUnimodal) {
  // A narrow body times a Pareto factor (alpha 1.5): p99.9 is ~100x the median.
  Rng rng(7);
  std::vector<double> samples;
  for (int i = 0; i < 20'000; ++i) {
    samples.push_back(LogNormal(rng, 50 * kUs, 0.1) * std::pow(1 - rng.NextDouble(), -1 / 1.5));
  }
  const ModalityResult result = DetectModes(samples);
  EXPECT_FALSE(result.multimodal);
  EXPECT_EQ(result.modes, 1);
}

TEST(DetectModesTest, CoarseClockTicksAreNotModes) {
  // A 1 us clock: values 14..28 us only. Fine log bins would show one spike per tick.
  std::vector<double> samples = Mixture(8, 10'000, {{1.0, 20 * kUs, 0.15}});
  for (double& v : samples) v = kUs * std::round(v / kUs);
  const ModalityResult result = DetectModes(samples);
  EXPECT_FALSE(result.multimodal) << result.modes;
  ExpectModesNear(result, {20 * kUs}, 0.10);
}

TEST(DetectModesTest, TooFewSamplesGiveNoVerdict) {
  const ModalityResult result = DetectModes(Mixture(9, 50, {{1.0, 50 * kUs, 0.3}}));
  EXPECT_FALSE(result.multimodal);
  EXPECT_EQ(result.modes, 0);
  EXPECT_TRUE(result.mode_values.empty());
  EXPECT_EQ(result.samples, 50);
  EXPECT_NE(result.method.find("not enough samples"), std::string::npos) << result.method;
  EXPECT_FALSE(DetectModes(std::vector<double>{}).multimodal);
}

TEST(DetectModesTest, UnusableValuesAreIgnoredAndNotCounted) {
  std::vector<double> samples = Mixture(10, kModalityMinSamples - 1, {{1.0, 50 * kUs, 0.3}});
  for (double junk : {0.0, -5.0, std::numeric_limits<double>::quiet_NaN(),
                      std::numeric_limits<double>::infinity()}) {
    samples.push_back(junk);
  }
  const ModalityResult result = DetectModes(samples);
  EXPECT_EQ(result.samples, kModalityMinSamples - 1);
  EXPECT_EQ(result.modes, 0);
  samples.push_back(50 * kUs);
  EXPECT_EQ(DetectModes(samples).modes, 1);
}

TEST(DetectModesTest, AllEqualSamplesAreOneMode) {
  const ModalityResult result = DetectModes(std::vector<double>(500, 42.0));
  EXPECT_FALSE(result.multimodal);
  ExpectModesNear(result, {42.0}, 1e-12);
}

TEST(DetectModesTest, FromHdrHistogram) {
  const std::vector<double> bimodal =
      Mixture(11, 10'000, {{0.7, 50 * kUs, 0.25}, {0.3, 400 * kUs, 0.25}});
  HdrHistogram histogram;
  for (double v : bimodal) histogram.Record(std::llround(v));
  const ModalityResult result = DetectModes(histogram);
  EXPECT_EQ(result.samples, 10'000);
  EXPECT_TRUE(result.multimodal);
  ExpectModesNear(result, {50 * kUs, 400 * kUs}, 0.15);

  HdrHistogram unimodal;
  for (double v : Mixture(12, 10'000, {{1.0, 20 * kUs, 0.15}})) {
    unimodal.Record(std::llround(v));
  }
  EXPECT_EQ(DetectModes(unimodal).modes, 1);

  HdrHistogram tiny;
  tiny.RecordN(1000, 99);
  EXPECT_EQ(DetectModes(tiny).modes, 0);
  tiny.Record(1000);
  EXPECT_EQ(DetectModes(tiny).modes, 1);
}

}  // namespace
}  // namespace memstand
