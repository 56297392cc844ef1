#include "scenario/kit/outage.h"

#include <algorithm>
#include <cmath>

namespace memstand {

using history::Outcome;
using history::Record;

WriteOutage MeasureOutage(const history::History& h, int64_t fault_ns, const std::string& old_node) {
  WriteOutage o;
  for (const Record& r : h.records) {
    if (!r.writes()) continue;
    o.all_writes_ok += r.outcome == Outcome::kOk;
    o.all_writes_fail += r.outcome == Outcome::kFail;
    o.all_writes_unknown += r.outcome == Outcome::kUnknown;
    if (r.outcome != Outcome::kOk) continue;
    if (r.invoke_ns < fault_ns) {
      o.last_ok_before_ns = std::max(o.last_ok_before_ns, r.complete_ns);
      continue;
    }
    if (o.first_ok_ns < 0 || r.complete_ns < o.first_ok_ns) {
      o.first_ok_ns = r.complete_ns;
      o.first_ok_node = h.String(r.node);
    }
    if (h.String(r.node) != old_node && (o.first_ok_elsewhere_ns < 0 || r.complete_ns < o.first_ok_elsewhere_ns)) {
      o.first_ok_elsewhere_ns = r.complete_ns;
      o.first_ok_elsewhere_node = h.String(r.node);
    }
  }
  const int64_t end = o.first_ok_ns >= 0 ? o.first_ok_ns : INT64_MAX;
  if (o.first_ok_ns >= 0) o.outage_s = static_cast<double>(o.first_ok_ns - fault_ns) / 1e9;
  for (const Record& r : h.records) {
    if (r.complete_ns < fault_ns || r.complete_ns > end) continue;
    if (r.writes()) {
      o.writes_ok += r.outcome == Outcome::kOk;
      o.writes_fail += r.outcome == Outcome::kFail;
      o.writes_unknown += r.outcome == Outcome::kUnknown;
    } else {
      o.reads_ok += r.outcome == Outcome::kOk;
      o.reads_fail += r.outcome != Outcome::kOk;
    }
  }
  return o;
}

std::vector<OpsSecond> PerSecond(const history::History& h) {
  std::vector<OpsSecond> out;
  std::vector<std::vector<int64_t>> latencies;
  for (const Record& r : h.records) {
    if (r.complete_ns < 0) continue;
    const size_t s = static_cast<size_t>(r.complete_ns / 1'000'000'000);
    if (s >= out.size()) {
      out.resize(s + 1);
      latencies.resize(s + 1);
    }
    OpsSecond& x = out[s];
    x.ok += r.outcome == Outcome::kOk;
    x.fail += r.outcome == Outcome::kFail;
    x.unknown += r.outcome == Outcome::kUnknown;
    x.writes_ok += r.outcome == Outcome::kOk && r.writes();
    if (r.outcome == Outcome::kOk) latencies[s].push_back(r.complete_ns - (r.intended_ns >= 0 ? r.intended_ns : r.invoke_ns));
  }
  for (size_t s = 0; s < out.size(); ++s) {
    std::vector<int64_t>& l = latencies[s];
    if (l.empty()) continue;
    std::sort(l.begin(), l.end());
    // Nearest rank: the smallest value with at least q of the values at or below it.
    const auto rank = [&](double q) { return l[static_cast<size_t>(std::ceil(q * static_cast<double>(l.size()))) - 1]; };
    out[s].p50_ns = rank(0.5);
    out[s].p99_ns = rank(0.99);
    out[s].max_ns = l.back();
  }
  return out;
}

}  // namespace memstand
