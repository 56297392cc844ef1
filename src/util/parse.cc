#include "util/parse.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "util/redact.h"

namespace memstand {

namespace {

bool ToDouble(std::string_view s, double* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

// The user's text in a message, cut if long.
std::string Quote(std::string_view s) { return "'" + Abbreviate(s) + "'"; }

}  // namespace

Result<double> ParseDurationSeconds(std::string_view text) {
  static const std::pair<std::string_view, double> kUnits[] = {
      {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"m", 60}, {"h", 3600}};
  std::string_view number = text;
  double scale = 1;
  for (const auto& [suffix, factor] : kUnits) {
    if (text.size() > suffix.size() && text.ends_with(suffix) &&
        std::isdigit(static_cast<unsigned char>(text[text.size() - suffix.size() - 1]))) {
      number = text.substr(0, text.size() - suffix.size());
      scale = factor;
      break;
    }
  }
  double v;
  if (!ToDouble(number, &v) || v < 0) {
    return Status::InvalidArgument("bad duration " + Quote(text) +
                                   ": expected a number with an optional unit us, ms, s, m "
                                   "or h, e.g. 30s, 500ms, 2m");
  }
  return v * scale;
}

Result<uint64_t> ParseByteSize(std::string_view text) {
  static const std::pair<std::string_view, uint64_t> kUnits[] = {
      {"KiB", 1024}, {"MiB", 1 << 20}, {"k", 1024}, {"K", 1024}, {"m", 1 << 20},
      {"M", 1 << 20}, {"B", 1}};
  std::string_view number = text;
  uint64_t scale = 1;
  for (const auto& [suffix, factor] : kUnits) {
    if (text.size() > suffix.size() && text.ends_with(suffix)) {
      number = text.substr(0, text.size() - suffix.size());
      scale = factor;
      break;
    }
  }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
  if (number.empty() || ec != std::errc() || p != number.data() + number.size() || v == 0 ||
      v > (1ULL << 40) / scale) {
    return Status::InvalidArgument("bad size " + Quote(text) +
                                   ": expected a positive whole number of bytes, optionally "
                                   "with K or M (x1024), e.g. 100, 4K, 1M");
  }
  return v * scale;
}

Result<std::pair<uint64_t, uint64_t>> ParseByteRange(std::string_view text) {
  size_t dash = text.find('-');
  if (dash == std::string_view::npos) {
    return Status::InvalidArgument("bad size range " + Quote(text) + ": expected MIN-MAX, e.g. 100-1000");
  }
  auto lo = ParseByteSize(text.substr(0, dash));
  if (!lo.ok()) return lo.status();
  auto hi = ParseByteSize(text.substr(dash + 1));
  if (!hi.ok()) return hi.status();
  if (*lo > *hi) {
    return Status::InvalidArgument("bad size range " + Quote(text) + ": MIN is above MAX");
  }
  return std::make_pair(*lo, *hi);
}

Result<std::vector<double>> ParsePercentiles(std::string_view text) {
  std::vector<double> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    double v;
    if (!ToDouble(item, &v) || v <= 0 || v > 100) {
      return Status::InvalidArgument("bad percentile " + Quote(item) + " in " + Quote(text) +
                                     ": expected numbers in (0, 100] separated by commas, "
                                     "e.g. 50,99,99.9");
    }
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<std::vector<uint64_t>> ParseIncreasingList(std::string_view text) {
  std::vector<uint64_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    bool number = !item.empty() && ec == std::errc() && p == item.data() + item.size();
    if (!number || v == 0 || v > (1ULL << 40) || (!out.empty() && v <= out.back())) {
      return Status::InvalidArgument("bad list " + Quote(text) + " at " + Quote(item) +
                                     ": expected increasing positive whole numbers separated "
                                     "by commas, e.g. 1,2,4,8");
    }
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace memstand
