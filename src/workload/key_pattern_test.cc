#include "workload/key_pattern.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <vector>

namespace memstand {
namespace {

using PatternKind = KeyPatternSpec::Kind;
constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();

KeyPatternSpec SpecOf(PatternKind kind) {
  KeyPatternSpec spec;
  spec.kind = kind;
  return spec;
}

KeyPatternSpec ZipfSpec(double exponent) {
  KeyPatternSpec spec = SpecOf(PatternKind::kZipf);
  spec.zipf_exponent = exponent;
  return spec;
}

std::vector<uint64_t> Draw(KeySequence& seq, int n) {
  std::vector<uint64_t> keys(n);
  for (uint64_t& key : keys) key = seq.Next();
  return keys;
}

// Generalised harmonic number H(n, s) = sum of 1/k^s for k in 1..n.
double Harmonic(int n, double s) {
  double sum = 0;
  for (int k = n; k >= 1; --k) sum += std::pow(k, -s);
  return sum;
}

TEST(ParseKeyPatternTest, AcceptsEachLetterInEitherCase) {
  const std::map<std::string, PatternKind> cases = {{"R", PatternKind::kUniform},     {"s", PatternKind::kSequential},
                                             {"G", PatternKind::kGaussian},    {"z", PatternKind::kZipf},
                                             {"P", PatternKind::kPartitioned}, {"r", PatternKind::kUniform}};
  for (const auto& [text, kind] : cases) {
    auto spec = ParseKeyPattern(text);
    ASSERT_TRUE(spec.ok()) << text;
    EXPECT_EQ(spec->kind, kind) << text;
  }
}

TEST(ParseKeyPatternTest, RejectsAnythingElseNamingTheChoices) {
  for (const char* text : {"", "X", "RR", "uniform", " R", "1"}) {
    auto spec = ParseKeyPattern(text);
    ASSERT_FALSE(spec.ok()) << text;
    EXPECT_EQ(spec.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(spec.status().message().find("'" + std::string(text) + "'"), std::string::npos);
    EXPECT_NE(spec.status().message().find("R (uniform)"), std::string::npos);
    EXPECT_NE(spec.status().message().find("P (partitioned)"), std::string::npos);
  }
}

TEST(ValidateKeyPatternSpecTest, ChecksZipfExponentAndFiniteness) {
  EXPECT_TRUE(ValidateKeyPatternSpec(KeyPatternSpec()).ok());
  EXPECT_TRUE(ValidateKeyPatternSpec(ZipfSpec(1.0)).ok());
  for (double bad : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    EXPECT_FALSE(ValidateKeyPatternSpec(ZipfSpec(bad)).ok()) << bad;
  }
  KeyPatternSpec spec = SpecOf(PatternKind::kGaussian);
  spec.stddev = std::nan("");
  EXPECT_FALSE(ValidateKeyPatternSpec(spec).ok());
}

TEST(KeySequenceTest, AllKeysStayInRange) {
  const std::vector<std::pair<uint64_t, uint64_t>> ranges = {
      {5, 5}, {0, 0}, {10, 20}, {0, kMax64}, {kMax64 - 3, kMax64}, {kMax64, kMax64}};
  for (PatternKind kind :
       {PatternKind::kUniform, PatternKind::kSequential, PatternKind::kGaussian, PatternKind::kZipf, PatternKind::kPartitioned}) {
    for (const auto& [lo, hi] : ranges) {
      for (uint64_t conn = 0; conn < 7; ++conn) {
        KeySequence seq(SpecOf(kind), lo, hi, 99, conn, 7);
        for (int i = 0; i < 2000; ++i) {
          const uint64_t key = seq.Next();
          ASSERT_GE(key, lo) << static_cast<int>(kind) << " conn " << conn;
          ASSERT_LE(key, hi) << static_cast<int>(kind) << " conn " << conn;
        }
      }
    }
  }
}

TEST(KeySequenceTest, SingleKeyRangeAlwaysGivesThatKey) {
  for (PatternKind kind :
       {PatternKind::kUniform, PatternKind::kSequential, PatternKind::kGaussian, PatternKind::kZipf, PatternKind::kPartitioned}) {
    KeySequence seq(SpecOf(kind), 42, 42, 1, 2, 3);
    for (int i = 0; i < 100; ++i) ASSERT_EQ(seq.Next(), 42u);
  }
}

TEST(KeySequenceTest, SameIndexReproducesDifferentIndexDiffers) {
  for (PatternKind kind : {PatternKind::kUniform, PatternKind::kGaussian, PatternKind::kZipf}) {
    KeySequence a(SpecOf(kind), 0, 1000000, 7, 3, 8);
    KeySequence b(SpecOf(kind), 0, 1000000, 7, 3, 8);
    KeySequence other_conn(SpecOf(kind), 0, 1000000, 7, 4, 8);
    KeySequence other_seed(SpecOf(kind), 0, 1000000, 8, 3, 8);
    const auto keys = Draw(a, 1000);
    EXPECT_EQ(keys, Draw(b, 1000));
    EXPECT_NE(keys, Draw(other_conn, 1000));
    EXPECT_NE(keys, Draw(other_seed, 1000));
  }
}

TEST(KeySequenceTest, UniformPassesChiSquare) {
  constexpr int kKeys = 100, kDraws = 1000000;
  KeySequence seq(SpecOf(PatternKind::kUniform), 1000, 1000 + kKeys - 1, 11, 0, 1);
  std::vector<int> counts(kKeys);
  for (int i = 0; i < kDraws; ++i) ++counts[seq.Next() - 1000];
  const double expected = static_cast<double>(kDraws) / kKeys;
  double chi2 = 0;
  for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 200.0);  // 99 degrees of freedom: mean 99, stddev 14
}

struct Moments {
  double mean, stddev;
};

Moments MomentsOf(KeySequence& seq, int n) {
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < n; ++i) {
    const double x = static_cast<double>(seq.Next());
    sum += x;
    sum_sq += x * x;
  }
  const double mean = sum / n;
  return {mean, std::sqrt(sum_sq / n - mean * mean)};
}

TEST(KeySequenceTest, GaussianDefaultsToMiddleAndSixthOfRange) {
  KeySequence seq(SpecOf(PatternKind::kGaussian), 100000, 160000, 5, 0, 1);
  const Moments m = MomentsOf(seq, 500000);
  EXPECT_NEAR(m.mean, 130000, 100);  // 1% of the stddev
  EXPECT_NEAR(m.stddev, 10000, 200);
}

TEST(KeySequenceTest, GaussianHonoursMedianAndStddev) {
  KeyPatternSpec spec = SpecOf(PatternKind::kGaussian);
  spec.median = 5000;
  spec.stddev = 300;
  KeySequence seq(spec, 0, 1000000, 5, 0, 1);
  const Moments m = MomentsOf(seq, 500000);
  EXPECT_NEAR(m.mean, 5000, 3);
  EXPECT_NEAR(m.stddev, 300, 6);
}

TEST(KeySequenceTest, GaussianClampsToTheRange) {
  KeyPatternSpec spec = SpecOf(PatternKind::kGaussian);
  spec.median = 0;
  spec.stddev = 10;
  KeySequence seq(spec, 0, 100, 5, 0, 1);
  int at_min = 0;
  constexpr int kDraws = 100000;
  for (int i = 0; i < kDraws; ++i) at_min += seq.Next() == 0;
  // P(normal(0, 10) < 0.5) = 0.52: everything below rounds or clamps to 0.
  EXPECT_NEAR(static_cast<double>(at_min) / kDraws, 0.52, 0.01);
}

class ZipfTest : public ::testing::TestWithParam<double> {};

// Over N = 1000 ranks: P(rank 1) = 1 / H(N, s), P(1) / P(2) = 2^s, and the mass of
// the upper half of the ranks matches the formula (catches a wrong tail).
TEST_P(ZipfTest, MatchesTheDistribution) {
  const double s = GetParam();
  constexpr int kN = 1000, kDraws = 2000000;
  KeySequence seq(ZipfSpec(s), 1, kN, 17, 0, 1);
  std::vector<int> counts(kN + 1);
  for (int i = 0; i < kDraws; ++i) ++counts[seq.Next()];
  const double h = Harmonic(kN, s);
  EXPECT_NEAR(static_cast<double>(counts[1]) / kDraws, 1 / h, 0.02 / h);
  EXPECT_NEAR(static_cast<double>(counts[1]) / counts[2], std::pow(2, s), 0.04 * std::pow(2, s));
  for (int k = 3; k <= 10; ++k) {
    const double expected = kDraws * std::pow(k, -s) / h;
    EXPECT_NEAR(counts[k], expected, 0.05 * expected) << "rank " << k;
  }
  double upper_half = 0, upper_half_expected = 0;
  for (int k = kN / 2 + 1; k <= kN; ++k) {
    upper_half += counts[k];
    upper_half_expected += kDraws * std::pow(k, -s) / h;
  }
  EXPECT_NEAR(upper_half, upper_half_expected, 0.05 * upper_half_expected + 30);
}

INSTANTIATE_TEST_SUITE_P(Exponents, ZipfTest, ::testing::Values(0.5, 0.99, 1.0, 1.5, 3.0));

TEST(KeySequenceTest, ZipfRankOneIsKeyMin) {
  KeySequence seq(ZipfSpec(0.99), 5000, 5999, 3, 0, 1);
  std::map<uint64_t, int> counts;
  for (int i = 0; i < 100000; ++i) ++counts[seq.Next()];
  EXPECT_GT(counts[5000], counts[5001]);
  EXPECT_GT(counts[5001], counts[5002]);
  EXPECT_EQ(counts.begin()->first, 5000u);
}

TEST(KeySequenceTest, ZipfWorksOverTheWholeKeySpace) {
  KeySequence seq(ZipfSpec(1.2), 0, kMax64, 3, 0, 1);
  std::map<uint64_t, int> counts;
  uint64_t largest = 0;
  for (int i = 0; i < 500000; ++i) {
    const uint64_t key = seq.Next();
    ++counts[key];
    largest = std::max(largest, key);
  }
  EXPECT_NEAR(static_cast<double>(counts[0]) / counts[1], std::pow(2, 1.2), 0.1);
  EXPECT_GT(largest, 1000000u);  // the tail is reached
}

TEST(KeySequenceTest, StripedConnectionsCoverEachKeyOncePerRange) {
  constexpr uint64_t kMin = 7, kKeys = 1000, kConns = 4;
  std::vector<KeySequence> conns;
  for (uint64_t i = 0; i < kConns; ++i) {
    conns.emplace_back(SpecOf(PatternKind::kSequential), kMin, kMin + kKeys - 1, 1, i, kConns);
  }
  for (int round = 0; round < 2; ++round) {
    std::vector<int> seen(kKeys);
    for (uint64_t draw = 0; draw < kKeys; ++draw) ++seen[conns[draw % kConns].Next() - kMin];
    for (uint64_t k = 0; k < kKeys; ++k) ASSERT_EQ(seen[k], 1) << "key " << k + kMin;
  }
}

TEST(KeySequenceTest, StripedWrapsToTheStartOfItsStripe) {
  KeySequence c0(SpecOf(PatternKind::kSequential), 0, 9, 1, 0, 3);
  KeySequence c1(SpecOf(PatternKind::kSequential), 0, 9, 1, 1, 3);
  EXPECT_EQ(Draw(c0, 6), (std::vector<uint64_t>{0, 3, 6, 9, 0, 3}));
  EXPECT_EQ(Draw(c1, 5), (std::vector<uint64_t>{1, 4, 7, 1, 4}));
  KeySequence more_conns_than_keys(SpecOf(PatternKind::kSequential), 10, 12, 1, 4, 5);
  EXPECT_EQ(Draw(more_conns_than_keys, 3), (std::vector<uint64_t>{11, 11, 11}));
}

TEST(KeySequenceTest, StripedWrapsAtTheTopOfTheKeySpace) {
  KeySequence seq(SpecOf(PatternKind::kSequential), kMax64 - 4, kMax64, 1, 1, 2);
  EXPECT_EQ(Draw(seq, 3), (std::vector<uint64_t>{kMax64 - 3, kMax64 - 1, kMax64 - 3}));
  KeySequence whole(SpecOf(PatternKind::kSequential), 0, kMax64, 1, 1, 2);
  EXPECT_EQ(Draw(whole, 3), (std::vector<uint64_t>{1, 3, 5}));
}

TEST(KeySequenceTest, PartitionSlicesAreDisjointContiguousAndCovering) {
  constexpr uint64_t kMin = 100, kKeys = 1000, kConns = 7;
  std::vector<int> owner_count(kKeys);
  for (uint64_t i = 0; i < kConns; ++i) {
    KeySequence seq(SpecOf(PatternKind::kPartitioned), kMin, kMin + kKeys - 1, 1, i, kConns);
    const uint64_t first = seq.Next();
    // The first kKeys % kConns slices one key longer: the split of --requests.
    const uint64_t base = kKeys / kConns, extra = kKeys % kConns;
    EXPECT_EQ(first, kMin + i * base + std::min(i, extra));
    const uint64_t slice = base + (i < extra ? 1 : 0);
    ++owner_count[first - kMin];
    for (uint64_t j = 1; j < slice; ++j) {
      const uint64_t key = seq.Next();
      ASSERT_EQ(key, first + j);
      ++owner_count[key - kMin];
    }
    EXPECT_EQ(seq.Next(), first) << "wraps to the slice start";
  }
  for (uint64_t k = 0; k < kKeys; ++k) ASSERT_EQ(owner_count[k], 1) << "key " << k + kMin;
}

TEST(KeySequenceTest, PartitionWithMoreConnectionsThanKeysSharesKeys) {
  std::set<uint64_t> covered;
  for (uint64_t i = 0; i < 5; ++i) {
    KeySequence seq(SpecOf(PatternKind::kPartitioned), 10, 12, 1, i, 5);
    const uint64_t key = seq.Next();
    EXPECT_EQ(key, 10 + i % 3);
    EXPECT_EQ(seq.Next(), key);
    covered.insert(key);
  }
  EXPECT_EQ(covered, (std::set<uint64_t>{10, 11, 12}));
}

TEST(KeySequenceTest, PartitionOverTheWholeKeySpace) {
  KeySequence seq(SpecOf(PatternKind::kPartitioned), 0, kMax64, 1, 1, 2);
  EXPECT_EQ(Draw(seq, 2), (std::vector<uint64_t>{1ULL << 63, (1ULL << 63) + 1}));
  KeySequence last(SpecOf(PatternKind::kPartitioned), kMax64 - 1, kMax64, 1, 1, 2);
  EXPECT_EQ(Draw(last, 2), (std::vector<uint64_t>{kMax64, kMax64}));
}

}  // namespace
}  // namespace memstand
