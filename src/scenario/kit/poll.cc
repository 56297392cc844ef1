#include "scenario/kit/poll.h"

#include <chrono>
#include <thread>

#include "core/clock.h"

namespace memstand {

PollResult PollUntil(int64_t deadline_ns, int64_t interval_ns, const std::function<Result<bool>()>& ready,
                     const std::atomic<bool>* cancel) {
  PollResult r;
  const int64_t start = NowNs();
  for (;;) {
    if (cancel != nullptr && cancel->load()) {
      r.cancelled = true;
      return r;
    }
    Result<bool> held = ready();
    const int64_t now = NowNs();
    r.waited_ns = now - start;
    if (!held.ok()) {
      r.failure = held.status();
      return r;
    }
    if (*held) {
      r.met = true;
      return r;
    }
    if (now >= deadline_ns) return r;
    std::this_thread::sleep_for(std::chrono::nanoseconds(interval_ns));
  }
}

int64_t DeadlineInMs(int64_t ms) { return NowNs() + ms * 1'000'000; }

}  // namespace memstand
