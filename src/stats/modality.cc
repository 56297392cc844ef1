#include "stats/modality.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace memstand {
namespace {

constexpr double kLowQuantile = 0.005;  // the histogram ignores the outer 0.5% each side
constexpr double kHighQuantile = 0.995;
// Bin width = kWidthFactor * IQR * n^(-1/3): half the Freedman-Diaconis width. The
// noise test (c) guards against the extra noise, and full FD width blurs modes together
// (it is tuned for unimodal densities).
constexpr double kWidthFactor = 1.0;
constexpr int kMinBins = 10;
constexpr int kMaxBins = 200;
constexpr double kKernelSigmaBins = 1.0;
constexpr int kKernelRadiusBins = 3;
constexpr double kMaxValleyRatio = 0.5;     // valley <= 50% of the smaller peak
constexpr double kMinProminence = 0.05;     // drop >= 5% of the tallest peak
constexpr double kMinStandardErrors = 3.0;  // drop >= 3 Poisson standard errors

// A share of the samples spread uniformly over [lo, hi] on the ln(value) axis.
struct Atom {
  double center;
  double lo;
  double hi;
  double weight;
};

// The smoothed histogram and what is needed to read it.
struct Profile {
  double lo = 0;                 // ln(value) at the left edge of bin 0
  double width = 0;              // bin width on the ln(value) axis
  std::vector<double> smooth;    // smoothed counts
  std::vector<double> variance;  // per-bin factor f: Var(smooth[i]) ~ f * smooth[i]
};

std::string Format(const char* format, double a, double b) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), format, a, b);
  return buf;
}

// The center of the atom holding the q-quantile of the weight. REQUIRES: sorted atoms.
const Atom& AtomAtQuantile(const std::vector<Atom>& atoms, double total, double q) {
  double cumulative = 0;
  for (const Atom& atom : atoms) {
    cumulative += atom.weight;
    if (cumulative >= q * total) return atom;
  }
  return atoms.back();
}

double MedianPositiveGap(const std::vector<double>& distinct) {
  std::vector<double> gaps;
  for (size_t i = 1; i < distinct.size(); ++i) gaps.push_back(distinct[i] - distinct[i - 1]);
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  return gaps[gaps.size() / 2];
}

// Distinct sorted values with their counts, each spread over the median gap.
std::vector<Atom> AtomsFromSamples(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  std::vector<double> distinct;
  std::vector<double> counts;
  for (double v : values) {
    if (distinct.empty() || v != distinct.back()) {
      distinct.push_back(v);
      counts.push_back(0);
    }
    ++counts.back();
  }
  const double gap = distinct.size() > 1 ? MedianPositiveGap(distinct) : 0;
  std::vector<Atom> atoms;
  for (size_t i = 0; i < distinct.size(); ++i) {
    const double x = distinct[i];
    atoms.push_back(
        {std::log(x), std::log(std::max(x - gap / 2, x / 2)), std::log(x + gap / 2), counts[i]});
  }
  return atoms;
}

std::vector<Atom> AtomsFromHistogram(const HdrHistogram& h) {
  std::vector<Atom> atoms;
  for (int i = 0; i < h.counts_len(); ++i) {
    const int64_t count = h.count_at_index(i);
    const int64_t low = h.ValueFromIndex(i);
    if (count == 0 || low < 1) continue;
    const double lo = std::log(static_cast<double>(low));
    const double hi = std::log(static_cast<double>(h.HighestEquivalentValue(low)) + 1.0);
    atoms.push_back({(lo + hi) / 2, lo, hi, static_cast<double>(count)});
  }
  return atoms;
}

int BinCount(const std::vector<Atom>& atoms, double total, double range) {
  const double iqr =
      AtomAtQuantile(atoms, total, 0.75).center - AtomAtQuantile(atoms, total, 0.25).center;
  const double fd_width = kWidthFactor * iqr / std::cbrt(total);
  const double bins = fd_width > 0 ? std::ceil(range / fd_width) : std::ceil(std::sqrt(total));
  return static_cast<int>(std::clamp(bins, double{kMinBins}, double{kMaxBins}));
}

// Adds each atom's weight to the bins its interval overlaps, in proportion.
std::vector<double> Histogram(const std::vector<Atom>& atoms, double lo, double width, int bins) {
  std::vector<double> counts(bins, 0.0);
  const double hi = lo + width * bins;
  for (const Atom& atom : atoms) {
    const double a = std::max(atom.lo, lo), b = std::min(atom.hi, hi);
    if (b <= a) continue;
    const double density = atom.weight / (atom.hi - atom.lo);
    const int first = std::clamp(static_cast<int>((a - lo) / width), 0, bins - 1);
    const int last = std::clamp(static_cast<int>((b - lo) / width), 0, bins - 1);
    for (int i = first; i <= last; ++i) {
      const double overlap = std::min(b, lo + (i + 1) * width) - std::max(a, lo + i * width);
      if (overlap > 0) counts[i] += density * overlap;
    }
  }
  return counts;
}

void Smooth(const std::vector<double>& counts, Profile& profile) {
  const int bins = static_cast<int>(counts.size());
  profile.smooth.assign(bins, 0.0);
  profile.variance.assign(bins, 0.0);
  for (int i = 0; i < bins; ++i) {
    double weight_sum = 0, value = 0, square_sum = 0;
    for (int j = std::max(0, i - kKernelRadiusBins); j <= std::min(bins - 1, i + kKernelRadiusBins);
         ++j) {
      const double d = (j - i) / kKernelSigmaBins;
      const double w = std::exp(-0.5 * d * d);
      weight_sum += w;
      value += w * counts[j];
      square_sum += w * w;
    }
    profile.smooth[i] = value / weight_sum;
    profile.variance[i] = square_sum / (weight_sum * weight_sum);
  }
}

std::vector<int> LocalMaxima(const std::vector<double>& s) {
  std::vector<int> peaks;
  const int n = static_cast<int>(s.size());
  for (int i = 0; i < n; ++i) {
    const bool rises = i == 0 || s[i] > s[i - 1];
    const bool falls = i == n - 1 || s[i] >= s[i + 1];
    if (rises && falls && s[i] > 0) peaks.push_back(i);
  }
  return peaks;
}

// How well two adjacent peaks are separated.
struct Separation {
  int weaker;        // bin of the lower peak
  double depth;      // 1 - valley / lower peak
  bool deep_enough;  // test (a)
  bool significant;  // tests (b) and (c)
};

Separation Separate(const Profile& p, int left, int right, double tallest) {
  const auto& s = p.smooth;
  const int valley =
      static_cast<int>(std::min_element(s.begin() + left, s.begin() + right + 1) - s.begin());
  const int weaker = s[left] <= s[right] ? left : right;
  const double drop = s[weaker] - s[valley];
  const double error = std::sqrt(p.variance[weaker] * s[weaker] + p.variance[valley] * s[valley]);
  return {weaker, drop / s[weaker], s[valley] <= kMaxValleyRatio * s[weaker],
          drop >= kMinProminence * tallest && drop >= kMinStandardErrors * error};
}

// Drops peaks until every adjacent pair is separated; returns the survivors and sets
// `score` as documented for ModalityResult::dip_or_score.
std::vector<int> SeparatedPeaks(const Profile& p, double& score) {
  std::vector<int> peaks = LocalMaxima(p.smooth);
  double tallest = 0;
  for (int peak : peaks) tallest = std::max(tallest, p.smooth[peak]);
  double shoulder = 0;
  while (true) {
    int drop_at = -1;
    double shallowest = 1;
    for (size_t k = 0; k + 1 < peaks.size(); ++k) {
      const Separation sep = Separate(p, peaks[k], peaks[k + 1], tallest);
      shallowest = std::min(shallowest, sep.depth);
      if (sep.deep_enough && sep.significant) continue;
      if (sep.significant) shoulder = std::max(shoulder, sep.depth);
      const size_t weaker = sep.weaker == peaks[k] ? k : k + 1;
      if (drop_at < 0 || p.smooth[peaks[weaker]] < p.smooth[peaks[drop_at]]) {
        drop_at = static_cast<int>(weaker);
      }
    }
    if (drop_at < 0) {
      score = peaks.size() > 1 ? shallowest : shoulder;
      return peaks;
    }
    peaks.erase(peaks.begin() + drop_at);
  }
}

// The peak's position on the value axis, refined by a parabola through its neighbours.
double PeakValue(const Profile& p, int peak) {
  const auto& s = p.smooth;
  double offset = 0;
  if (peak > 0 && peak + 1 < static_cast<int>(s.size())) {
    const double curvature = s[peak - 1] - 2 * s[peak] + s[peak + 1];
    if (curvature < 0) {
      offset = std::clamp(0.5 * (s[peak - 1] - s[peak + 1]) / curvature, -0.5, 0.5);
    }
  }
  return std::exp(p.lo + (peak + 0.5 + offset) * p.width);
}

ModalityResult SingleValue(double ln_value, int64_t samples) {
  ModalityResult result;
  result.modes = 1;
  result.mode_values = {std::exp(ln_value)};
  result.samples = samples;
  result.method = "all samples are equal";
  return result;
}

ModalityResult Analyze(const std::vector<Atom>& atoms) {
  ModalityResult result;
  double total = 0;
  for (const Atom& atom : atoms) total += atom.weight;
  result.samples = static_cast<int64_t>(total);
  if (result.samples < kModalityMinSamples) {
    result.method = Format("not enough samples: %.0f usable, %.0f needed", total,
                           static_cast<double>(kModalityMinSamples));
    return result;
  }
  if (atoms.size() == 1 && atoms[0].hi == atoms[0].lo) {
    return SingleValue(atoms[0].center, result.samples);
  }
  Profile profile;
  profile.lo = AtomAtQuantile(atoms, total, kLowQuantile).lo;
  const double range = AtomAtQuantile(atoms, total, kHighQuantile).hi - profile.lo;
  const int bins = BinCount(atoms, total, range);
  profile.width = range / bins;
  Smooth(Histogram(atoms, profile.lo, profile.width, bins), profile);
  for (int peak : SeparatedPeaks(profile, result.dip_or_score)) {
    result.mode_values.push_back(PeakValue(profile, peak));
  }
  result.modes = static_cast<int>(result.mode_values.size());
  result.multimodal = result.modes > 1;
  result.method = Format(
      "smoothed log-histogram peaks: %.0f bins of ln(value) over the 0.5-99.5th percentiles "
      "(half Freedman-Diaconis width: %.3g), Gaussian kernel sigma 1 bin; modes need a valley "
      "<= 50%% of the smaller peak, >= 5%% of the tallest peak and >= 3 Poisson standard errors "
      "below it",
      bins, profile.width);
  return result;
}

}  // namespace

ModalityResult DetectModes(const std::vector<double>& samples) {
  std::vector<double> usable;
  usable.reserve(samples.size());
  for (double v : samples) {
    if (std::isfinite(v) && v > 0) usable.push_back(v);
  }
  return Analyze(AtomsFromSamples(std::move(usable)));
}

ModalityResult DetectModes(const HdrHistogram& histogram) {
  return Analyze(AtomsFromHistogram(histogram));
}

}  // namespace memstand
