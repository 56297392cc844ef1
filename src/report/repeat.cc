#include "report/repeat.h"

#include <algorithm>
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
