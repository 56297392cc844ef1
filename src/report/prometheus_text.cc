#include "report/prometheus_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <vector>

namespace memstand {
namespace {

// The request-latency bounds (see the header): 32 per decade, each 10^(j/32) rounded to
// three significant digits, from 1 us up to the last one at or below 60 s.
std::vector<int64_t> MakeRequestBoundsNs() {
  constexpr int kPerDecade = 32;
  constexpr int64_t kLastNs = 60'000'000'000;
  std::vector<int64_t> bounds;
  for (int64_t scale = 10;; scale *= 10) {  // ns per unit of the 3-digit mantissa
    for (int j = 0; j < kPerDecade; ++j) {
      const int64_t mantissa = std::lround(100 * std::pow(10.0, j / double{kPerDecade}));
      if (mantissa * scale > kLastNs) return bounds;
      bounds.push_back(mantissa * scale);
    }
  }
}

constexpr int64_t kRelayBoundsNs[] = {
    1'000,         2'500,         5'000,         10'000,         25'000,      50'000,
    100'000,       250'000,       500'000,       1'000'000,      2'500'000,   5'000'000,
    10'000'000,    25'000'000,    50'000'000,    100'000'000,    250'000'000, 500'000'000,
    1'000'000'000, 2'500'000'000, 5'000'000'000, 10'000'000'000,
};

// Cumulative counts per bound; see the rounding note in the header.
std::vector<int64_t> CumulativeBucketCounts(const HdrHistogram& h,
                                            std::span<const int64_t> bounds) {
  std::vector<int64_t> counts(bounds.size(), 0);
  const int64_t max = h.max();
  for (int i = 0; i < h.counts_len(); ++i) {
    int64_t n = h.count_at_index(i);
    if (n == 0) continue;
    int64_t value = std::min(h.HighestEquivalentValue(h.ValueFromIndex(i)), max);
    auto it = std::lower_bound(bounds.begin(), bounds.end(), value);
    if (it != bounds.end()) counts[it - bounds.begin()] += n;
  }
  for (size_t b = 1; b < counts.size(); ++b) counts[b] += counts[b - 1];
  return counts;
}

// labels + "," + extra, or extra alone.
std::string Join(std::string_view labels, const std::string& extra) {
  return labels.empty() ? extra : std::string(labels) + "," + extra;
}

}  // namespace

std::span<const int64_t> RequestLatencyBoundsNs() {
  static const std::vector<int64_t> bounds = MakeRequestBoundsNs();
  return bounds;
}
std::span<const int64_t> RelayDelayBoundsNs() { return kRelayBoundsNs; }

std::string EscapeLabelValue(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string PromLabel(std::string_view name, std::string_view value) {
  return std::string(name) + "=\"" + EscapeLabelValue(value) + "\"";
}

std::string PromDouble(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string scientific(buf, r.ptr);
  int exponent = std::atoi(scientific.c_str() + scientific.find('e') + 1);
  if (exponent < -4 || exponent > 20) return scientific;
  r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  return std::string(buf, r.ptr);
}

void AppendPromHeader(std::string* out, std::string_view name, std::string_view type,
                      std::string_view help) {
  *out += "# HELP ";
  *out += name;
  *out += ' ';
  *out += help;
  *out += "\n# TYPE ";
  *out += name;
  *out += ' ';
  *out += type;
  *out += '\n';
}

void AppendPromSample(std::string* out, std::string_view name, std::string_view labels,
                      std::string_view value) {
  *out += name;
  if (!labels.empty()) {
    *out += '{';
    *out += labels;
    *out += '}';
  }
  *out += ' ';
  *out += value;
  *out += '\n';
}

void AppendPromHistogram(std::string* out, std::string_view name, std::string_view labels,
                         const HdrHistogram& h, std::span<const int64_t> bounds_ns) {
  const std::string bucket = std::string(name) + "_bucket";
  std::vector<int64_t> counts = CumulativeBucketCounts(h, bounds_ns);
  for (size_t b = 0; b < counts.size(); ++b) {
    std::string le = PromDouble(static_cast<double>(bounds_ns[b]) / 1e9);
    AppendPromSample(out, bucket, Join(labels, PromLabel("le", le)), std::to_string(counts[b]));
  }
  const std::string total = std::to_string(h.total_count());
  AppendPromSample(out, bucket, Join(labels, "le=\"+Inf\""), total);
  double sum_s = h.mean() * static_cast<double>(h.total_count()) / 1e9;
  AppendPromSample(out, std::string(name) + "_sum", labels, PromDouble(sum_s));
  AppendPromSample(out, std::string(name) + "_count", labels, total);
}

}  // namespace memstand
