// The statistics behind a run's validity verdict (docs/method.md, Validity): pure
// functions over the figures a run keeps (inter-arrival times, latency samples in send
// order, the per-second series, the histogram's counts). Each returns its statistic, not a
// verdict: the thresholds are the report's, documented with their source.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace memstand {

/// The Anderson-Darling statistic of `samples` against an exponential distribution whose
/// mean is estimated from them, with Stephens' small-sample factor (A² (1 + 0.6/n)): the
/// form whose critical values are tabulated for an estimated scale (kAdExponential1Pct).
/// Zeros count as the smallest positive double. nullopt for fewer than 8 samples or a
/// mean of 0.
std::optional<double> AndersonDarlingExponential(std::vector<double> samples);
/// The 1% critical value of that statistic (D'Agostino and Stephens, Goodness-of-Fit
/// Techniques, 1986, table 4.14, exponential with the scale estimated).
inline constexpr double kAdExponential1Pct = 1.957;

/// Standard deviation over mean (population form); nullopt for fewer than 2 samples or a
/// mean of 0.
std::optional<double> CoefficientOfVariation(const std::vector<double>& samples);

/// The Mann-Kendall trend test over a series in time order.
struct TrendTest {
  int64_t s = 0;        // sum of the signs of every later-minus-earlier pair
  double z = 0;         // the continuity-corrected normal score (ties accounted for)
  double p_value = 1;   // two-sided
  /// Sen's slope: the median of the pairwise slopes, per step of the series.
  double slope = 0;
};
/// nullopt for fewer than 4 points. O(n²): meant for per-second series (a run's seconds);
/// `series.size()` above 20,000 is nullopt too.
std::optional<TrendTest> MannKendall(const std::vector<double>& series);

/// Spearman's rank correlation of x[t] with x[t + lag] (ties get their average rank).
/// nullopt when fewer than 8 pairs remain or either side is constant.
std::optional<double> SpearmanAtLag(const std::vector<double>& x, size_t lag);

/// The same over several runs of consecutive values (a BlockSample's blocks): the pairs
/// (x[t], x[t + lag]) are taken inside each block only, then ranked together.
std::optional<double> SpearmanAtLagInBlocks(const std::vector<std::vector<double>>& blocks, size_t lag);

/// The number of independent samples `n` correlated ones are worth, for a lag-1
/// correlation `rho` (first-order autoregressive approximation: n (1 - rho) / (1 + rho)),
/// at most n and at least 1.
double EffectiveSampleSize(size_t n, double rho);

/// The ranks (1-based, in sorted order) of the order statistics bounding the `p`
/// percentile (0 < p < 100) of `n` independent samples with `confidence` (e.g. 0.95),
/// from the binomial distribution of the count below the percentile (normal approximation
/// with continuity correction; exact enough from n p (1-p) >= 10, and always conservative
/// in clamping to [1, n]). nullopt for n == 0 or p, confidence outside (0, 100), (0, 1).
struct RankInterval {
  uint64_t lower = 0;
  uint64_t upper = 0;
  /// True when the interval had to be clamped at 1 or n: too few samples for the
  /// percentile's tail, so the bound on that side is the extreme itself.
  bool clamped = false;
};
std::optional<RankInterval> PercentileRankInterval(uint64_t n, double p, double confidence);

/// The standard normal quantile (inverse CDF) for 0 < q < 1 (Acklam's rational
/// approximation refined by one Halley step: about 1e-15 relative).
double NormalQuantile(double q);

/// The mean a distribution can have given points of its CDF: `percentiles` as (percent,
/// value) ascending in both, with the minimum and maximum. Between two points every
/// sample lies between their values, so the mean lies between the sums of each band's
/// share times its lower value and times its upper one.
struct MeanBounds {
  double low = 0;
  double high = 0;
};
/// nullopt when the points are not ascending, lie outside [min, max] or outside 0..100.
std::optional<MeanBounds> MeanBoundsFromPercentiles(const std::vector<std::pair<double, double>>& percentiles,
                                                    double min, double max);

/// Little's law, L = lambda W: the relative difference between the requests in flight and
/// throughput (per second) times mean latency (seconds); nullopt when either side is 0.
std::optional<double> LittlesLawGap(double in_flight, double throughput_per_s, double mean_latency_s);

}  // namespace memstand
