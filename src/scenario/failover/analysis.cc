#include "scenario/failover/analysis.h"

#include <algorithm>

namespace memstand {

using history::Outcome;
using history::Record;

namespace {

// Whether a history's node name ("127.0.0.1:7001", or a target's Display as the engine
// names a Sentinel or RW pool's primary, "tarantool://127.0.0.1:7001") is `address`.
bool IsNode(std::string_view name, const std::string& address) {
  return name == address || (name.ends_with(address) && name.substr(0, name.size() - address.size()).ends_with("://"));
}

}  // namespace

FailoverOutage MeasureOutage(const history::History& h, int64_t fault_ns, const std::string& old_node) {
  FailoverOutage o;
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
    if (!IsNode(h.String(r.node), old_node) && (o.first_ok_elsewhere_ns < 0 || r.complete_ns < o.first_ok_elsewhere_ns)) {
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

std::vector<FailoverSecond> PerSecond(const history::History& h) {
  std::vector<FailoverSecond> out;
  for (const Record& r : h.records) {
    if (r.complete_ns < 0) continue;
    const size_t s = static_cast<size_t>(r.complete_ns / 1'000'000'000);
    if (s >= out.size()) out.resize(s + 1);
    FailoverSecond& x = out[s];
    x.ok += r.outcome == Outcome::kOk;
    x.fail += r.outcome == Outcome::kFail;
    x.unknown += r.outcome == Outcome::kUnknown;
    x.writes_ok += r.outcome == Outcome::kOk && r.writes();
  }
  return out;
}

}  // namespace memstand
