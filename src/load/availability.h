// What a run's faults cost: its outages, from the workers' outage spans (by command, on
// the monotonic clock) and the per-second series, in seconds from the measured start.
// Pure computation over RunResult's parts; docs/faults.md says how to read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "load/intervals.h"
#include "load/run_stats.h"

namespace memstand {

/// One command's outage: from the first operation that ended fail or unknown after an
/// ok (or the start) to the next ok, over all threads (spans that overlap are one).
struct CommandOutage {
  double start_s = 0;      // from the measured start
  double length_s = 0;     // to the first ok after it; to the end when not recovered
  bool recovered = true;   // an ok came before the end
  uint64_t failed = 0;     // operations of the command that ended fail in it
  uint64_t unknown = 0;    // and unknown
};

struct CommandAvailability {
  uint64_t outages = 0;         // every span, the short ones too
  double unavailable_s = 0;     // their lengths summed
  std::vector<CommandOutage> longest;  // up to kLongestOutages, longest first
  /// false: joined from runs of which one listed only its longest outages (memstand
  /// merge): outages and unavailable_s are upper bounds (its unlisted outages counted as
  /// if no other run's overlapped them), and an outage listed may be part of a longer one.
  bool exact = true;
};

/// Consecutive seconds of the all-commands series with no ok operation.
struct SecondsOutage {
  int first_second = 0;
  int seconds = 0;
  uint64_t failed = 0;
  uint64_t unknown = 0;
  bool recovered = true;  // a second with an ok operation follows
};

struct Availability {
  uint64_t connections_lost = 0;
  uint64_t reconnects = 0;
  uint64_t reconnect_failures = 0;
  std::string first_loss;
  std::vector<CommandAvailability> commands;  // by command index
  std::vector<SecondsOutage> seconds;

  /// Whether there is anything to report: a lost connection or an outage.
  bool any() const;
};

inline constexpr size_t kLongestOutages = 10;

/// `start_ns`/`end_ns`: the measured phase on the workers' monotonic clock; `all`: the
/// all-commands per-second series.
Availability ComputeAvailability(const FaultStats& faults, size_t command_count, int64_t start_ns,
                                 int64_t end_ns, const std::vector<SeriesPoint>& all);

/// The outages of one command seen apart (by the shards of a fleet), on one time axis,
/// joined as ComputeAvailability joins the threads' spans: those that overlap are one
/// (failed and unknown added; it ends where the one reaching furthest ends, and is not
/// recovered when that one was not); then counted, their lengths summed and the
/// kLongestOutages longest kept.
CommandAvailability JoinOutages(std::vector<CommandOutage> outages);

/// Runs of whole seconds of `all` (an all-commands per-second series) with no ok
/// operation (the last second counts only when operations in it failed).
std::vector<SecondsOutage> SecondsWithoutOk(const std::vector<SeriesPoint>& all);

}  // namespace memstand
