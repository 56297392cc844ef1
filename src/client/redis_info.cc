#include "client/redis_info.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace memstand {

namespace {

constexpr std::string_view kCmdstatPrefix = "cmdstat_";

// Calls fn(line) for every line of text, without its LF or CRLF ending.
template <typename Fn>
void ForEachLine(std::string_view text, Fn fn) {
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(line);
  }
}

// Whole-string, non-negative number parses.
bool ParseCount(std::string_view s, int64_t* out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size() && *out >= 0;
}

bool ParseMicros(std::string_view s, double* out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size() && *out >= 0;
}

// Applies one "name=value" field; false when a known field has a bad value.
bool ApplyField(std::string_view name, std::string_view value, CommandStat* stat, bool* have_calls,
                bool* have_usec) {
  if (name == "calls") return *have_calls = ParseCount(value, &stat->calls);
  if (name == "usec") return *have_usec = ParseMicros(value, &stat->usec);
  if (name == "rejected_calls") return ParseCount(value, &stat->rejected_calls);
  if (name == "failed_calls") return ParseCount(value, &stat->failed_calls);
  return true;  // usec_per_call and fields of later Redis versions
}

// Parses "calls=12,usec=3,usec_per_call=0.25,...". False when malformed.
bool ParseStatFields(std::string_view fields, CommandStat* stat) {
  bool have_calls = false;
  bool have_usec = false;
  while (!fields.empty()) {
    const size_t comma = fields.find(',');
    const std::string_view field = fields.substr(0, comma);
    fields.remove_prefix(comma == std::string_view::npos ? fields.size() : comma + 1);
    const size_t eq = field.find('=');
    if (eq == std::string_view::npos) return false;
    if (!ApplyField(field.substr(0, eq), field.substr(eq + 1), stat, &have_calls, &have_usec)) {
      return false;
    }
  }
  return have_calls && have_usec;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::map<std::string, std::string> ParseInfo(std::string_view text) {
  std::map<std::string, std::string> out;
  ForEachLine(text, [&out](std::string_view line) {
    if (line.empty() || line[0] == '#') return;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return;
    out[std::string(line.substr(0, colon))] = std::string(line.substr(colon + 1));
  });
  return out;
}

std::map<std::string, CommandStat> ParseCommandStats(std::string_view text) {
  std::map<std::string, CommandStat> out;
  ForEachLine(text, [&out](std::string_view line) {
    if (!line.starts_with(kCmdstatPrefix)) return;
    line.remove_prefix(kCmdstatPrefix.size());
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return;
    CommandStat stat;
    if (!ParseStatFields(line.substr(colon + 1), &stat)) return;
    out[Lower(line.substr(0, colon))] = stat;
  });
  return out;
}

}  // namespace memstand
