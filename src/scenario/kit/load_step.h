// One step of a scenario's load: `requests` writes of the server's write command over
// the keys first..last in order (key pattern S: write i of the step goes to key
// first + i, wrapping), through the load engine as a library. On one connection the
// writes reach the server in that order; on several (`connections`) each key is still
// written once, the connections taking the next key in turn.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "scenario/kit/scenario_server.h"
#include "util/status.h"
#include "workload/value_pool.h"

namespace memstand {

struct LoadStepOptions {
  std::string key_prefix;  // "product:" -> product:<id>
  uint64_t first_key = 0;
  uint64_t last_key = 0;
  uint64_t requests = 0;   // REQUIRES: > 0
  ValueSpec value;         // keyed (dataset records) or drawn
  int pipeline = 16;       // in flight on each connection; order is kept on one
  int connections = 1;     // writers at the same time (one thread)
  double rate = 0;         // open loop: requests per second (the engine's --rate); 0: closed loop
  uint64_t seed = 1;
  const std::atomic<bool>* interrupt = nullptr;  // a signal: the step ends interrupted
  /// A stop asked for by the step's owner (LoadHandle): the step ends, not interrupted.
  const std::atomic<bool>* stop = nullptr;
};

struct LoadStepResult {
  uint64_t attempted = 0;   // requests answered or lost
  uint64_t successful = 0;  // answered without an error
  uint64_t rejected = 0;    // error replies
  uint64_t unanswered = 0;  // never answered (connection lost, interrupted)
  std::string first_error;  // verbatim, of the earliest rejected write
  /// 1-based position in this step of the first rejected write (0: none). Exact on one
  /// connection, which answers in request order; on several, the position among the
  /// replies of the thread.
  uint64_t first_rejected = 0;
  double elapsed_s = 0;     // from the first send to the last reply
  Status failure;           // the engine's failure (connection lost, timeout)
  bool interrupted = false;
  double client_cpu_s = 0;
  uint64_t bytes_out = 0, bytes_in = 0;
};

/// Runs the step. A Status only when nothing could be sent (target unreachable).
Result<LoadStepResult> RunLoadStep(const ServerUnderTest& server, const LoadStepOptions& options);

}  // namespace memstand
