// A scenario's load in the background: a load step (load_step.h) run on a thread of its
// own while the scenario measures something else, stopped when the scenario says so.
#pragma once

#include <atomic>
#include <thread>

#include "scenario/kit/load_step.h"
#include "util/status.h"

namespace memstand {

class LoadHandle {
 public:
  LoadHandle() = default;
  /// Stops the load if it still runs.
  ~LoadHandle();
  LoadHandle(const LoadHandle&) = delete;
  LoadHandle& operator=(const LoadHandle&) = delete;

  /// Starts `options` on `server` on a new thread. options.stop is replaced by this
  /// handle's own request (options.interrupt is kept: a signal still interrupts it).
  /// REQUIRES: not started yet; `server` outlives Stop().
  void Start(const ServerUnderTest& server, LoadStepOptions options);
  /// Asks the engine to stop sending, waits until it has drained and returns what it
  /// did (as result()). Idempotent.
  const Result<LoadStepResult>& Stop();
  /// What the load did; "not run" before Start, meaningful after Stop.
  const Result<LoadStepResult>& result() const { return result_; }

 private:
  std::atomic<bool> stop_{false};
  Result<LoadStepResult> result_ = Status::Failed("not run");
  std::thread thread_;
};

}  // namespace memstand
