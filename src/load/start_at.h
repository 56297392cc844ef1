// --start-at: every shard of a fleet starts its measured phase at one wall-clock
// instant, its warm-up before it, so their per-second series merge second by second.
#pragma once

#include <string_view>

#include "util/status.h"

namespace memstand {

/// A whole wall-clock second: RFC 3339 ("2026-12-01T18:30:00Z", 'T' or ' ', Z or
/// +hh:mm / -hh:mm, a fraction of zeros allowed) or Unix seconds ("1796149800").
/// InvalidArgument naming the forms otherwise, and for a fraction of a second (the
/// series of the shards would not align to wall-clock seconds).
Result<double> ParseStartAt(std::string_view text);

/// When a run with --start-at lets its load threads go, decided at `now` (Unix s).
struct StartPlan {
  double release_unix_s = 0;   // the threads start (their warm-up) then
  double measured_unix_s = 0;  // the measured phase starts then: a whole second
  double warmup_s = 0;         // the warm-up run: the one asked, shortened when late
  bool late = false;           // measured_unix_s > start_at: the shard missed it
};

/// On time (now <= start_at - warmup): release at start_at - warmup. Inside the
/// warm-up: release now, warm-up cut to start_at - now. Past start_at: the measured
/// phase starts at the next whole second (so the series still align), the warm-up cut
/// to fit before it. REQUIRES: start_at is a whole second, warmup_s >= 0.
StartPlan PlanStart(double start_at, double now, double warmup_s);

}  // namespace memstand
