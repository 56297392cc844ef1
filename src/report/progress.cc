#include "report/progress.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace memstand {

namespace {

std::string HowFar(const ProgressSnapshot& s) {
  if (s.requests_total > 0) return fmt::format("{}/{} requests", s.requests_done, s.requests_total);
  double left = std::max(0.0, std::ceil(s.duration_s - s.elapsed_s));
  return fmt::format("{}s elapsed, {:g}s left", s.elapsed_s, left);
}

}  // namespace

std::string FormatProgress(const ProgressSnapshot& s) {
  std::string line = s.label.empty() ? "" : s.label + " | ";
  line += fmt::format("{} | {} ops/s | p99 {:.1f} µs | {} errors", HowFar(s), s.last_ops,
                      s.last_p99_ns / 1000.0, s.errors);
  if (s.last_fail + s.last_unknown > 0) {
    line += fmt::format(" | last second: fail {}, unknown {}", s.last_fail, s.last_unknown);
  }
  return line;
}

}  // namespace memstand
