// Clocks. NowNs() is CLOCK_MONOTONIC through the vDSO: tens of ns, no system call.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>

namespace memstand {

inline int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000LL + ts.tv_nsec;
}

/// The wall clock as ISO 8601 UTC with seconds, e.g. "2026-11-29T22:15:03Z".
std::string WallClockIso();

/// The wall clock (CLOCK_REALTIME) in seconds since the Unix epoch, with its fraction.
double UnixNowS();
/// The same in whole nanoseconds since the epoch (exact, no double rounding).
int64_t UnixNowNs();

/// The clock's advertised resolution (clock_getres) in ns.
int64_t ClockResolutionNs();

}  // namespace memstand
