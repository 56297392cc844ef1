#include "report/repeat.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace memstand {

Range RangeOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  Range r;
  r.n = static_cast<int>(n);
  r.min = values.front();
  r.max = values.back();
  r.median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  // P(B <= j) for B ~ Binomial(n, 1/2), summed as k grows.
  auto coverage = [n](size_t k) {
    double below = 0, term = std::pow(0.5, static_cast<double>(n));  // P(B = 0)
    for (size_t j = 0; j < k; ++j) {
      below += term;
      term = term * static_cast<double>(n - j) / static_cast<double>(j + 1);
    }
    return 1 - 2 * below;
  };
  size_t k = 1;
  while (k + 1 <= n / 2 && coverage(k + 1) >= 0.95) ++k;
  r.median_low = values[k - 1];
  r.median_high = values[n - k];
  r.median_coverage = n >= 2 ? coverage(k) : 0;
  return r;
}

namespace {

// The values of every figure over the OK runs, in first-appearance order.
std::vector<std::pair<FigureRange, std::vector<double>>> Collect(const std::vector<RunFigures>& runs) {
  std::vector<std::pair<FigureRange, std::vector<double>>> out;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const RunFigures& run : runs) {
    if (run.outcome != RunOutcome::kOk) continue;
    for (const Figure& f : run.figures) {
      auto [it, added] = index.try_emplace({f.row, f.key}, out.size());
      if (added) out.push_back({FigureRange{f.row, f.key, f.label, {}}, {}});
      out[it->second].second.push_back(f.value);
    }
  }
  return out;
}

}  // namespace

RepeatSummary Summarize(const std::vector<RunFigures>& runs, int requested) {
  RepeatSummary s;
  s.requested = requested;
  s.runs = static_cast<int>(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    switch (runs[i].outcome) {
      case RunOutcome::kOk: ++s.ok; break;
      case RunOutcome::kInterrupted: ++s.interrupted; break;
      case RunOutcome::kFailed:
        ++s.failed;
        s.failures.push_back("run " + std::to_string(i + 1) + ": " + runs[i].reason);
        break;
    }
  }
  for (auto& [range, values] : Collect(runs)) {
    range.range = RangeOf(std::move(values));
    s.ranges.push_back(std::move(range));
  }
  return s;
}

}  // namespace memstand
