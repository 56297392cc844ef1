#include "load/availability.h"

#include <algorithm>

namespace memstand {

namespace {

// The union of every thread's spans of one command: overlapping spans become one
// (an unrecovered span reaches the end).
std::vector<OutageSpan> Union(std::vector<OutageSpan> spans, int64_t end_ns) {
  for (OutageSpan& s : spans) {
    if (s.end_ns == 0) s.end_ns = INT64_MAX;
  }
  std::sort(spans.begin(), spans.end(),
            [](const OutageSpan& a, const OutageSpan& b) { return a.start_ns < b.start_ns; });
  std::vector<OutageSpan> out;
  for (const OutageSpan& s : spans) {
    if (!out.empty() && s.start_ns <= out.back().end_ns) {
      OutageSpan& last = out.back();
      last.end_ns = std::max(last.end_ns, s.end_ns);
      last.failed += s.failed;
      last.unknown += s.unknown;
    } else {
      out.push_back(s);
    }
  }
  for (OutageSpan& s : out) {
    if (s.end_ns == INT64_MAX) s.end_ns = -std::max(end_ns, s.start_ns);  // negative: not recovered
  }
  return out;
}

CommandAvailability OfCommand(const std::vector<OutageSpan>& spans, int64_t start_ns, int64_t end_ns) {
  CommandAvailability a;
  std::vector<CommandOutage> all;
  for (const OutageSpan& s : Union(spans, end_ns)) {
    CommandOutage o;
    o.recovered = s.end_ns >= 0;
    const int64_t end = o.recovered ? s.end_ns : -s.end_ns;
    o.start_s = (s.start_ns - start_ns) / 1e9;
    o.length_s = (end - s.start_ns) / 1e9;
    o.failed = s.failed;
    o.unknown = s.unknown;
    a.unavailable_s += o.length_s;
    all.push_back(o);
  }
  a.outages = all.size();
  std::stable_sort(all.begin(), all.end(),
                   [](const CommandOutage& x, const CommandOutage& y) { return x.length_s > y.length_s; });
  if (all.size() > kLongestOutages) all.resize(kLongestOutages);
  a.longest = std::move(all);
  return a;
}

}  // namespace

bool Availability::any() const {
  if (connections_lost > 0 || !seconds.empty()) return true;
  for (const CommandAvailability& c : commands) {
    if (c.outages > 0) return true;
  }
  return false;
}

Availability ComputeAvailability(const FaultStats& faults, size_t command_count, int64_t start_ns,
                                 int64_t end_ns, const std::vector<SeriesPoint>& all) {
  Availability a;
  a.connections_lost = faults.connections_lost;
  a.reconnects = faults.reconnects;
  a.reconnect_failures = faults.reconnect_failures;
  a.first_loss = faults.first_loss;
  a.commands.resize(command_count);
  for (size_t i = 0; i < command_count && i < faults.outages.size(); ++i) {
    a.commands[i] = OfCommand(faults.outages[i], start_ns, end_ns);
  }
  // Seconds with no ok operation. The last second is often a fraction of one: it counts
  // only when operations in it failed.
  for (size_t i = 0; i < all.size(); ++i) {
    const SeriesPoint& p = all[i];
    const bool last = i + 1 == all.size();
    const bool down = p.ok == 0 && (!last || p.failed + p.unknown > 0);
    if (!down) continue;
    if (!a.seconds.empty() && a.seconds.back().first_second + a.seconds.back().seconds == p.second) {
      SecondsOutage& o = a.seconds.back();
      ++o.seconds;
      o.failed += p.failed;
      o.unknown += p.unknown;
    } else {
      a.seconds.push_back({p.second, 1, p.failed, p.unknown, true});
    }
    if (last) a.seconds.back().recovered = false;
  }
  return a;
}

}  // namespace memstand
