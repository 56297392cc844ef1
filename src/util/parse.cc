#include "util/parse.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>
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
  // Largest unit first: "1h2m3.5s", "1m30s", "1s500ms"; each unit at most once and in
  // this order; a plain number is seconds and stands alone.
  static const std::pair<std::string_view, double> kUnits[] = {
      {"h", 3600}, {"m", 60}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}};
  const Status bad = Status::InvalidArgument(
      "bad duration " + Quote(text) +
      ": expected a number with an optional unit us, ms, s, m or h, or units combined largest first, "
      "e.g. 30s, 500ms, 2m, 1m30s");
  double v = 0;
  if (ToDouble(text, &v)) return v >= 0 ? Result<double>(v) : Result<double>(bad);
  double total = 0;
  size_t at = 0, next_unit = 0;
  while (at < text.size()) {
    size_t end = at;
    while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
    size_t unit_end = end;
    while (unit_end < text.size() && std::isalpha(static_cast<unsigned char>(text[unit_end]))) ++unit_end;
    const std::string_view number = text.substr(at, end - at), unit = text.substr(end, unit_end - end);
    size_t u = next_unit;
    while (u < std::size(kUnits) && kUnits[u].first != unit) ++u;
    if (!ToDouble(number, &v) || u == std::size(kUnits)) return bad;
    total += v * kUnits[u].second;
    next_unit = u + 1;
    at = unit_end;
  }
  if (text.empty()) return bad;
  return total;
}

Result<uint64_t> ParseByteSize(std::string_view text) {
  // Every multiple is binary (x1024), as redis.conf reads kb, mb and gb.
  static const std::pair<std::string_view, uint64_t> kUnits[] = {
      {"KiB", 1024},    {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1024},    {"MB", 1 << 20}, {"GB", 1 << 30},
      {"kb", 1024},     {"mb", 1 << 20},  {"gb", 1 << 30},  {"k", 1024},     {"K", 1024},     {"m", 1 << 20},
      {"M", 1 << 20},   {"g", 1 << 30},   {"G", 1 << 30},   {"B", 1}};
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
                                   ": expected a positive whole number of bytes, at most 1 TiB, optionally "
                                   "with K, M or G (also KB, KiB, ...; all x1024), e.g. 100, 4K, 1MB, 1GiB");
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

Result<std::vector<std::string>> ParseWordList(std::string_view text, std::string_view flag) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = std::min(text.find(',', at), text.size());
    std::string word(text.substr(at, end - at));
    if (word.empty()) {
      return Status::InvalidArgument(std::string(flag) + ": an empty item in " + Quote(text));
    }
    if (std::find(out.begin(), out.end(), word) != out.end()) {
      return Status::InvalidArgument(std::string(flag) + ": " + Quote(word) + " given twice");
    }
    out.push_back(std::move(word));
    at = end + 1;
  }
  return out;
}

Result<std::vector<std::string>> ParseWordList(std::string_view text, std::string_view flag,
                                               std::initializer_list<const char*> known) {
  auto words = ParseWordList(text, flag);
  if (!words.ok()) return words;
  for (const std::string& w : *words) {
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return w == k; })) {
      std::string list;
      for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return Status::InvalidArgument(std::string(flag) + ": unknown " + Quote(w) + "; known: " + list);
    }
  }
  return words;
}

}  // namespace memstand
