// One wait for a condition, on one clock (NowNs, core/clock.h: CLOCK_MONOTONIC): what the
// scenarios do to let counters settle, a replica catch up, a server come up.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "util/status.h"

namespace memstand {

/// How a PollUntil ended: exactly one of met, cancelled, a failure, or timed out.
struct PollResult {
  bool met = false;        // the predicate held
  bool cancelled = false;  // *cancel was set before it held
  Status failure;          // the predicate's error: the poll stopped at it
  int64_t waited_ns = 0;   // from the poll's start to its last check
  bool timed_out() const { return !met && !cancelled && failure.ok(); }
  int64_t waited_ms() const { return waited_ns / 1'000'000; }
};

/// Checks `ready` now and then every `interval_ns` until it returns true (met), returns an
/// error (failure), `cancel` (may be null) is set (checked before each check), or a check
/// ends at or past `deadline_ns` (NowNs() time) without it holding (timed out; so the last
/// check is at most one interval past the deadline, and there is always one check).
PollResult PollUntil(int64_t deadline_ns, int64_t interval_ns, const std::function<Result<bool>()>& ready,
                     const std::atomic<bool>* cancel = nullptr);

/// The deadline `ms` milliseconds from now, for PollUntil.
int64_t DeadlineInMs(int64_t ms);

}  // namespace memstand
