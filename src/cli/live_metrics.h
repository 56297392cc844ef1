// Live Prometheus metrics of a run: totals of the completed seconds (fed by the engine's
// interval sink) rendered on each scrape. Thread-safe: fed from a load thread, rendered
// on the metrics server's thread.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "load/load_options.h"
#include "load/run_stats.h"

namespace memstand::cli {

class LiveMetrics {
 public:
  explicit LiveMetrics(const LoadOptions& options);
  /// Adds one completed second (all load threads merged).
  void OnSecond(int second, const std::vector<CommandStats>& commands);
  /// Prometheus text exposition of everything so far.
  std::string Render();

 private:
  const LoadOptions& options_;
  std::mutex mu_;
  std::vector<CommandStats> totals_;  // by command index
  int seconds_ = 0;
  /// Open loop: the largest send lag of the latest completed second (0 closed loop).
  int64_t last_send_lag_ns_ = 0;
};

}  // namespace memstand::cli
