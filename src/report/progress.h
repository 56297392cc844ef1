// The progress line of a run on a terminal (redrawn in place once a second by
// cli/progress_line.h). Formatting only: no I/O.
#pragma once

#include <cstdint>
#include <string>

namespace memstand {

/// What the line shows after a completed second of the measured phase.
struct ProgressSnapshot {
  std::string label;            // e.g. "run 2/3" or "clients=16"; empty: none
  int elapsed_s = 0;            // completed seconds of the measured phase
  double duration_s = 0;        // measured time asked for; 0 when bounded by requests
  uint64_t requests_done = 0;   // replies to measured requests so far
  uint64_t requests_total = 0;  // asked for; 0 when bounded by duration
  uint64_t last_ops = 0;        // replies in the last completed second
  int64_t last_p99_ns = 0;      // their 99th percentile
  uint64_t errors = 0;          // error replies so far
  /// Operations of the last completed second that ended fail or unknown (docs/faults.md):
  /// shown only when either is not 0.
  uint64_t last_fail = 0;
  uint64_t last_unknown = 0;
};

/// One line without control characters or newline, e.g.
/// "run 2/3 | 4s elapsed, 6s left | 95012 ops/s | p99 412.0 µs | 0 errors", or with
/// requests: "... | 40000/100000 requests | ...". A second in which operations ended
/// fail or unknown adds "| last second: fail F, unknown U".
std::string FormatProgress(const ProgressSnapshot& s);

}  // namespace memstand
