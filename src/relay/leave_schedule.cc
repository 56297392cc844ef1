#include "relay/leave_schedule.h"

#include <algorithm>

namespace memstand {

LeaveSchedule::LeaveSchedule(int64_t delay_ns, int64_t jitter_ns, uint64_t rate_bytes_per_s,
                             uint64_t seed)
    : delay_ns_(delay_ns), jitter_ns_(jitter_ns), rate_(rate_bytes_per_s), rng_(seed) {}

int64_t LeaveSchedule::DrawDelay() {
  if (jitter_ns_ == 0) return delay_ns_;
  std::uniform_int_distribution<int64_t> jitter(-jitter_ns_, jitter_ns_);
  return std::max<int64_t>(0, delay_ns_ + jitter(rng_));
}

int64_t LeaveSchedule::Next(int64_t read_ns, uint64_t bytes) {
  int64_t sent_ns = read_ns;
  if (rate_ > 0) {
    const auto wire_ns = static_cast<int64_t>(static_cast<double>(bytes) * 1e9 /
                                              static_cast<double>(rate_));
    sent_ns = std::max(read_ns, wire_free_ns_) + wire_ns;
    wire_free_ns_ = sent_ns;
  }
  last_due_ns_ = std::max(last_due_ns_, sent_ns + DrawDelay());
  return last_due_ns_;
}

}  // namespace memstand
