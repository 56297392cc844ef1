#include "load/start_at.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>

#include "util/redact.h"

namespace memstand {

namespace {

Status NotATime(std::string_view text) {
  return Status::InvalidArgument("'" + Abbreviate(text) +
                                 "' is not a time; give RFC 3339 (2026-12-01T18:30:00Z, "
                                 "2026-12-01T19:30:00+01:00) or Unix seconds (1796149800)");
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return false;
  }
  return true;
}

// The days of month mo (1..12) of year y, Gregorian.
int DaysInMonth(int y, int mo) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return mo == 2 && leap ? 29 : kDays[mo - 1];
}

// ".000" or "" before the zone; false for a fraction that is not zero.
bool ZeroFraction(std::string_view* rest) {
  if (rest->empty() || rest->front() != '.') return true;
  size_t i = 1;
  while (i < rest->size() && (*rest)[i] >= '0' && (*rest)[i] <= '9') {
    if ((*rest)[i] != '0') return false;
    ++i;
  }
  rest->remove_prefix(i);
  return true;
}

// The zone's offset east of UTC in seconds: Z, +hh:mm or -hh:mm.
bool ZoneOffset(std::string_view zone, long* offset) {
  if (zone == "Z" || zone == "z") return *offset = 0, true;
  int hh = 0, mm = 0;
  char sign = 0, end = 0;
  std::string z(zone);
  if (z.size() != 6 || std::sscanf(z.c_str(), "%c%2d:%2d%c", &sign, &hh, &mm, &end) != 3) {
    return false;
  }
  if ((sign != '+' && sign != '-') || hh > 23 || mm > 59) return false;
  *offset = (sign == '+' ? 1 : -1) * (hh * 3600L + mm * 60L);
  return true;
}

Result<double> ParseRfc3339(std::string_view text) {
  if (text.size() < 20) return NotATime(text);
  std::string head(text.substr(0, 19));
  int y, mo, d, h, mi, s;
  char sep, end;
  if (std::sscanf(head.c_str(), "%4d-%2d-%2d%c%2d:%2d:%2d%c", &y, &mo, &d, &sep, &h, &mi, &s,
                  &end) != 7 ||
      (sep != 'T' && sep != 't' && sep != ' ') || mo < 1 || mo > 12 || d < 1 || d > 31 ||
      h > 23 || mi > 59 || s > 60) {
    return NotATime(text);
  }
  if (d > DaysInMonth(y, mo)) {  // timegm would make 2026-02-30 March 2nd
    return Status::InvalidArgument("'" + Abbreviate(text) + "': " + std::to_string(y) + "-" +
                                   (mo < 10 ? "0" : "") + std::to_string(mo) + " has " +
                                   std::to_string(DaysInMonth(y, mo)) + " days");
  }
  std::string_view rest = text.substr(19);
  if (!ZeroFraction(&rest)) {
    return Status::InvalidArgument("'" + Abbreviate(text) +
                                   "': give a whole second, so that the shards' per-second "
                                   "series align to wall-clock seconds");
  }
  long offset = 0;
  if (!ZoneOffset(rest, &offset)) return NotATime(text);
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return static_cast<double>(timegm(&tm) - offset);
}

}  // namespace

Result<double> ParseStartAt(std::string_view text) {
  if (AllDigits(text)) {
    if (text.size() > 12) return NotATime(text);
    return std::stod(std::string(text));
  }
  const size_t dot = text.find('.');
  if (dot != std::string_view::npos && AllDigits(text.substr(0, dot)) &&
      AllDigits(text.substr(dot + 1))) {
    return Status::InvalidArgument("'" + Abbreviate(text) +
                                   "': give a whole second, so that the shards' per-second "
                                   "series align to wall-clock seconds");
  }
  return ParseRfc3339(text);
}

StartPlan PlanStart(double start_at, double now, double warmup_s) {
  StartPlan p;
  p.measured_unix_s = start_at;
  if (now > start_at) {
    p.measured_unix_s = start_at + std::ceil(now - start_at);
    p.late = true;
  }
  p.warmup_s = std::min(warmup_s, p.measured_unix_s - now);
  p.release_unix_s = p.measured_unix_s - p.warmup_s;
  return p;
}

}  // namespace memstand
