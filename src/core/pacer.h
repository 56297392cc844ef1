// Open-loop pacing: the intended send time of every request, fixed in advance by the
// rate and not by when earlier replies arrived. Latency measured from these intended
// times includes the queueing a stalled server causes (no coordinated omission).
// Pure arithmetic: no clock, no I/O. One Pacer per connection; not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "util/rng.h"
#include "util/status.h"

namespace memstand {

/// The highest total rate ValidateRate accepts, in requests per second: 10 ns per
/// request over the whole run, beyond what one client host can issue.
inline constexpr double kMaxRatePerSecond = 1e8;

struct PacerOptions {
  enum class Arrival {
    kConstant,  // request k at start + k / rate: reproducible, the usual open-loop model
    kPoisson,   // exponential gaps with mean 1 / rate: many independent clients
  };

  /// Requests per second of this pacer (one connection's share of the total).
  /// REQUIRES: finite and > 0 (see ValidateRate).
  double rate_per_s = 1000.0;  // a low rate nobody's server notices
  Arrival arrival = Arrival::kConstant;
  /// Seed of the Poisson gaps; give each connection its own (DeriveSeed).
  uint64_t seed = 1;
};

class Pacer {
 public:
  /// The first request is due at `start_ns` (both arrival models).
  Pacer(const PacerOptions& options, int64_t start_ns);

  /// Returns the intended send time (ns, same clock as start_ns) of the next request
  /// and moves on to the one after it. Times never decrease.
  /// Constant: request k (k = 0, 1, ...) is due at start + round(k * 1e9 / rate),
  /// computed from k each time, so rounding never accumulates into drift.
  /// Poisson: start + round(E_1 + ... + E_k), the E_i independent exponentials with
  /// mean 1e9 / rate drawn from Rng(seed); the sum is kept unrounded.
  /// Times past INT64_MAX saturate at INT64_MAX.
  int64_t Next();
  /// The time Next() will return, without consuming it.
  int64_t Peek() const { return next_ns_; }
  /// How many times Next() has been called.
  uint64_t issued() const { return issued_; }

 private:
  /// Computes next_ns_ for request number issued_.
  void Schedule();
  int64_t AtOffset(long double offset_ns) const;

  PacerOptions options_;
  int64_t start_ns_;
  long double mean_gap_ns_;
  long double poisson_offset_ns_ = 0;  // sum of the exponential gaps drawn so far
  Rng rng_;
  uint64_t issued_ = 0;
  int64_t next_ns_ = 0;
};

/// The longest spin --spin accepts: 10 ms, as the relay's (a spin is for the last stretch
/// of a wait; beyond that, what it buys is not a wake-up's latency).
inline constexpr int64_t kMaxSpinNs = 10'000'000;

/// How long a load thread may block (in its wait for events) when its next send is due
/// `until_due_ns` from now and it spins the last `spin_ns` before a due time: until
/// spin_ns before it, then 0, a poll that does not sleep, until it is due. With spin_ns
/// 0 it blocks until the due time itself. Never negative.
inline int64_t BlockBeforeDue(int64_t until_due_ns, int64_t spin_ns) {
  return until_due_ns > spin_ns ? until_due_ns - spin_ns : 0;
}

/// Splits a total rate over `n` connections: n shares equal up to the last one, which
/// absorbs the floating-point remainder, so that adding them in order gives exactly
/// `total`. Empty when n <= 0.
std::vector<double> SplitRate(double total, int n);

/// Checks a user's --rate (total requests per second) for `connections` connections:
/// finite, > 0, at most kMaxRatePerSecond, and at least one connection.
/// Errors are InvalidArgument and name --rate.
Status ValidateRate(double rate, int connections);

}  // namespace memstand
