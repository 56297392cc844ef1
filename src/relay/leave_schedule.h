// When each chunk of one direction of a relayed connection leaves: its delay, its jitter
// and the bandwidth cap, never earlier than the chunk before it. No I/O, no clock: the
// caller passes the read times, so it is tested with made-up ones.
#pragma once

#include <cstdint>
#include <random>

namespace memstand {

class LeaveSchedule {
 public:
  /// delay_ns, jitter_ns >= 0; rate_bytes_per_s 0: no cap. `seed` draws the jitter.
  LeaveSchedule(int64_t delay_ns, int64_t jitter_ns, uint64_t rate_bytes_per_s, uint64_t seed);

  /// The time a chunk of `bytes` read at read_ns is due to leave: it first occupies the
  /// direction for bytes / rate after the previous chunk's transmission ended (the cap),
  /// then waits its delay (delay +- jitter, at least 0), and never leaves before the
  /// chunk before it. REQUIRES: read_ns does not decrease from call to call.
  int64_t Next(int64_t read_ns, uint64_t bytes);

 private:
  int64_t DrawDelay();

  int64_t delay_ns_;
  int64_t jitter_ns_;
  uint64_t rate_;
  std::mt19937_64 rng_;
  int64_t wire_free_ns_ = INT64_MIN;  // when the capped direction's transmission ends
  int64_t last_due_ns_ = INT64_MIN;
};

}  // namespace memstand
