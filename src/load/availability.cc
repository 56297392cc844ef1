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

// Outages already joined, in time order: counted, summed, the longest kept.
CommandAvailability Listed(std::vector<CommandOutage> all) {
  CommandAvailability a;
  for (const CommandOutage& o : all) a.unavailable_s += o.length_s;
  a.outages = all.size();
  std::stable_sort(all.begin(), all.end(),
                   [](const CommandOutage& x, const CommandOutage& y) { return x.length_s > y.length_s; });
  if (all.size() > kLongestOutages) all.resize(kLongestOutages);
  a.longest = std::move(all);
  return a;
}

CommandAvailability OfCommand(const std::vector<OutageSpan>& spans, int64_t start_ns, int64_t end_ns) {
  std::vector<CommandOutage> all;
  for (const OutageSpan& s : Union(spans, end_ns)) {
    CommandOutage o;
    o.recovered = s.end_ns >= 0;
    const int64_t end = o.recovered ? s.end_ns : -s.end_ns;
    o.start_s = (s.start_ns - start_ns) / 1e9;
    o.length_s = (end - s.start_ns) / 1e9;
    o.failed = s.failed;
    o.unknown = s.unknown;
    all.push_back(o);
  }
  return Listed(std::move(all));
}

double End(const CommandOutage& o) { return o.start_s + o.length_s; }

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
  a.seconds = SecondsWithoutOk(all);
  return a;
}

CommandAvailability JoinOutages(std::vector<CommandOutage> outages) {
  std::stable_sort(outages.begin(), outages.end(),
                   [](const CommandOutage& a, const CommandOutage& b) { return a.start_s < b.start_s; });
  std::vector<CommandOutage> joined;
  for (const CommandOutage& o : outages) {
    if (joined.empty() || o.start_s > End(joined.back())) {
      joined.push_back(o);
      continue;
    }
    CommandOutage& last = joined.back();
    if (End(o) > End(last) || (End(o) == End(last) && !o.recovered)) {
      last.length_s = End(o) - last.start_s;
      last.recovered = o.recovered;
    }
    last.failed += o.failed;
    last.unknown += o.unknown;
  }
  return Listed(std::move(joined));
}

// The last second is often a fraction of one: it counts only when operations in it failed.
std::vector<SecondsOutage> SecondsWithoutOk(const std::vector<SeriesPoint>& all) {
  std::vector<SecondsOutage> seconds;
  for (size_t i = 0; i < all.size(); ++i) {
    const SeriesPoint& p = all[i];
    const bool last = i + 1 == all.size();
    const bool down = p.ok == 0 && (!last || p.failed + p.unknown > 0);
    if (!down) continue;
    if (!seconds.empty() && seconds.back().first_second + seconds.back().seconds == p.second) {
      SecondsOutage& o = seconds.back();
      ++o.seconds;
      o.failed += p.failed;
      o.unknown += p.unknown;
    } else {
      seconds.push_back({p.second, 1, p.failed, p.unknown, true});
    }
    if (last) seconds.back().recovered = false;
  }
  return seconds;
}

}  // namespace memstand
