#include "cli/live_metrics.h"

#include "report/prometheus.h"
#include "stand/proc_stats.h"

namespace memstand::cli {

LiveMetrics::LiveMetrics(const LoadOptions& options)
    : options_(options), totals_(options.commands.size()) {}

void LiveMetrics::OnSecond(int second, const std::vector<CommandStats>& commands) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t lag_ns = 0;
  for (size_t i = 0; i < totals_.size() && i < commands.size(); ++i) {
    totals_[i].Add(commands[i]);
    lag_ns = std::max(lag_ns, commands[i].send_lag_ns.max());
  }
  if (second + 1 >= seconds_) last_send_lag_ns_ = lag_ns;
  seconds_ = std::max(seconds_, second + 1);
}

std::string LiveMetrics::Render() {
  std::lock_guard<std::mutex> lock(mu_);
  MetricsSnapshot snap;
  snap.version = MEMSTAND_VERSION;
  for (size_t i = 0; i < totals_.size(); ++i) {
    const CommandStats& s = totals_[i];
    CommandMetrics& m = snap.commands[options_.commands[i].label];
    m.requests_total = s.ops;
    m.error_replies_total = s.errors;
    m.ok_total = s.ops - s.errors;
    m.fail_total = s.failed;
    m.unknown_total = s.unknown;
    for (const auto& [kind, e] : s.errors_by_prefix) m.errors_total[kind] = e.count;
    m.counts_hits = options_.commands[i].counts_hits;
    m.hits_total = s.hits;
    m.misses_total = s.misses;
    m.bytes_sent_total = s.bytes_out;
    m.bytes_received_total = s.bytes_in;
    m.latency_ns = &s.latency_ns;
  }
  CpuTimes cpu = SelfCpu();
  snap.client_cpu_seconds_total = cpu.user_sec + cpu.sys_sec;
  snap.connections_open = options_.connections();
  snap.run_elapsed_seconds = seconds_;
  snap.send_lag_seconds = last_send_lag_ns_ / 1e9;
  return FormatPrometheus(snap);  // while the lock keeps the histograms alive
}

}  // namespace memstand::cli
