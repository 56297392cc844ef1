#include "stats/validity_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace memstand {

namespace {

constexpr size_t kMaxTrendPoints = 2048;  // Sen's slope keeps every pair: ~2.1 M doubles

// 1-based ranks of `x`, ties sharing their average rank.
std::vector<double> AverageRanks(const std::vector<double>& x) {
  std::vector<size_t> order(x.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
  std::vector<double> ranks(x.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]]) ++j;
    const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

std::optional<double> Pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n;
  const double mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  if (saa == 0 || sbb == 0) return std::nullopt;
  return sab / std::sqrt(saa * sbb);
}

// Equal runs of `series` averaged, down to at most `points` values.
std::vector<double> Downsample(const std::vector<double>& series, size_t points) {
  if (series.size() <= points) return series;
  std::vector<double> out;
  const size_t run = (series.size() + points - 1) / points;
  for (size_t i = 0; i < series.size(); i += run) {
    const size_t end = std::min(series.size(), i + run);
    out.push_back(std::accumulate(series.begin() + static_cast<std::ptrdiff_t>(i),
                                  series.begin() + static_cast<std::ptrdiff_t>(end), 0.0) /
                  static_cast<double>(end - i));
  }
  return out;
}

}  // namespace

std::optional<double> AndersonDarlingExponential(std::vector<double> samples) {
  const size_t n = samples.size();
  if (n < 8) return std::nullopt;
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  if (!(mean > 0)) return std::nullopt;
  std::sort(samples.begin(), samples.end());
  constexpr double kTiny = std::numeric_limits<double>::min();
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    // ln F(x_i) and ln(1 - F(x_{n+1-i})) for F(x) = 1 - exp(-x/mean).
    const double low = std::max(samples[i], kTiny) / mean;
    const double high = std::max(samples[n - 1 - i], kTiny) / mean;
    const double log_cdf = std::log(-std::expm1(-low));
    const double log_survival = -high;
    sum += static_cast<double>(2 * i + 1) * (log_cdf + log_survival);
  }
  const double dn = static_cast<double>(n);
  const double a2 = -dn - sum / dn;
  return a2 * (1 + 0.6 / dn);
}

std::optional<double> CoefficientOfVariation(const std::vector<double>& samples) {
  if (samples.size() < 2) return std::nullopt;
  const double n = static_cast<double>(samples.size());
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  if (mean == 0) return std::nullopt;
  double ss = 0;
  for (double x : samples) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / n) / std::fabs(mean);
}

std::optional<TrendTest> MannKendall(const std::vector<double>& raw) {
  const std::vector<double> x = Downsample(raw, kMaxTrendPoints);
  const size_t n = x.size();
  if (n < 4) return std::nullopt;
  TrendTest t;
  std::vector<double> slopes;
  slopes.reserve(n * (n - 1) / 2);
  for (size_t i = 0; i + 1 < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      t.s += (x[j] > x[i]) - (x[j] < x[i]);
      slopes.push_back((x[j] - x[i]) / static_cast<double>(j - i));
    }
  }
  std::vector<double> sorted = x;
  std::sort(sorted.begin(), sorted.end());
  const double dn = static_cast<double>(n);
  double var = dn * (dn - 1) * (2 * dn + 5);
  for (size_t i = 0; i < n;) {  // each group of ties
    size_t j = i;
    while (j < n && sorted[j] == sorted[i]) ++j;
    const double tie = static_cast<double>(j - i);
    var -= tie * (tie - 1) * (2 * tie + 5);
    i = j;
  }
  var /= 18;
  if (var > 0 && t.s != 0) {
    t.z = (static_cast<double>(t.s) - (t.s > 0 ? 1 : -1)) / std::sqrt(var);
  }
  t.p_value = std::erfc(std::fabs(t.z) / std::sqrt(2.0));
  auto mid = slopes.begin() + static_cast<std::ptrdiff_t>(slopes.size() / 2);
  std::nth_element(slopes.begin(), mid, slopes.end());
  t.slope = *mid;
  if (slopes.size() % 2 == 0) t.slope = (t.slope + *std::max_element(slopes.begin(), mid)) / 2;
  return t;
}

std::optional<double> SpearmanAtLag(const std::vector<double>& x, size_t lag) {
  if (lag >= x.size() || x.size() - lag < 8) return std::nullopt;
  const std::vector<double> a(x.begin(), x.end() - static_cast<std::ptrdiff_t>(lag));
  const std::vector<double> b(x.begin() + static_cast<std::ptrdiff_t>(lag), x.end());
  return Pearson(AverageRanks(a), AverageRanks(b));
}

std::optional<double> SpearmanAtLagInBlocks(const std::vector<std::vector<double>>& blocks, size_t lag) {
  std::vector<double> a, b;
  for (const auto& x : blocks) {
    for (size_t t = 0; t + lag < x.size(); ++t) {
      a.push_back(x[t]);
      b.push_back(x[t + lag]);
    }
  }
  if (lag == 0 || a.size() < 8) return std::nullopt;
  return Pearson(AverageRanks(a), AverageRanks(b));
}

double EffectiveSampleSize(size_t n, double rho) {
  const double dn = static_cast<double>(n);
  if (n == 0) return 0;
  if (rho <= -1) return dn;
  const double eff = dn * (1 - rho) / (1 + rho);
  return std::clamp(eff, 1.0, dn);
}

double NormalQuantile(double q) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  double x = 0;
  if (q < kLow) {
    const double r = std::sqrt(-2 * std::log(q));
    x = (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
        ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1);
  } else if (q <= 1 - kLow) {
    const double u = q - 0.5, r = u * u;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * u /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double r = std::sqrt(-2 * std::log1p(-q));
    x = -(((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
        ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1);
  }
  // One Halley step against the exact CDF.
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - q;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

std::optional<RankInterval> PercentileRankInterval(uint64_t n, double p, double confidence) {
  if (n == 0 || !(p > 0 && p < 100) || !(confidence > 0 && confidence < 1)) return std::nullopt;
  const double q = p / 100, dn = static_cast<double>(n);
  const double z = NormalQuantile(1 - (1 - confidence) / 2);
  const double sd = std::sqrt(dn * q * (1 - q));
  // B, the count of samples below the percentile, is Binomial(n, q); [X_(r), X_(s)] holds
  // the percentile when r <= B < s.
  const double r = std::floor(dn * q - z * sd);
  const double s = std::ceil(dn * q + z * sd) + 1;
  RankInterval out;
  out.clamped = r < 1 || s > dn;
  out.lower = static_cast<uint64_t>(std::clamp(r, 1.0, dn));
  out.upper = static_cast<uint64_t>(std::clamp(s, 1.0, dn));
  return out;
}

std::optional<MeanBounds> MeanBoundsFromPercentiles(const std::vector<std::pair<double, double>>& percentiles,
                                                    double min, double max) {
  std::vector<std::pair<double, double>> points;
  points.emplace_back(0.0, min);
  points.insert(points.end(), percentiles.begin(), percentiles.end());
  points.emplace_back(100.0, max);
  MeanBounds out;
  for (size_t i = 1; i < points.size(); ++i) {
    const auto& [p0, v0] = points[i - 1];
    const auto& [p1, v1] = points[i];
    if (p1 < p0 || v1 < v0 || p0 < 0 || p1 > 100) return std::nullopt;
    out.low += (p1 - p0) / 100 * v0;
    out.high += (p1 - p0) / 100 * v1;
  }
  return out;
}

std::optional<double> LittlesLawGap(double in_flight, double throughput_per_s, double mean_latency_s) {
  const double expected = throughput_per_s * mean_latency_s;
  if (!(in_flight > 0) || !(expected > 0)) return std::nullopt;
  return std::fabs(in_flight - expected) / expected;
}

}  // namespace memstand
