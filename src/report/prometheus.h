// Prometheus text exposition format 0.0.4 for a running `memstand run`: what a scrape
// of --metrics-addr returns. The snapshot is plain data; the caller fills it (under its
// own lock) and formats it at once.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "stats/hdr_histogram.h"

namespace memstand {

/// Totals of one command label ("SET", "GET", ...) since the run started.
struct CommandMetrics {
  uint64_t requests_total = 0;
  uint64_t error_replies_total = 0;              // all kinds together
  std::map<std::string, uint64_t> errors_total;  // by error kind, e.g. "OOM", "timeout"
  /// A read whose reply tells a hit from a miss (GET-like): only then are hits_total and
  /// misses_total exported for it.
  bool counts_hits = false;
  uint64_t hits_total = 0;
  uint64_t misses_total = 0;
  uint64_t bytes_sent_total = 0;      // application bytes written to sockets
  uint64_t bytes_received_total = 0;  // application bytes read from sockets
  /// Latencies in nanoseconds. Not owned; must outlive the FormatPrometheus call.
  /// nullptr: this command has no memstand_request_duration_seconds samples.
  const HdrHistogram* latency_ns = nullptr;
  /// Operations by outcome (docs/faults.md): ok, fail, unknown.
  uint64_t ok_total = 0;
  uint64_t fail_total = 0;
  uint64_t unknown_total = 0;
};

/// Everything one scrape exposes.
struct MetricsSnapshot {
  std::string version;                             // memstand_build_info{version=...}
  std::map<std::string, CommandMetrics> commands;  // by command label
  double send_lag_seconds = 0;                     // how far sending is behind the pacer's schedule
  double client_cpu_seconds_total = 0;             // user + system CPU of the memstand process
  int64_t connections_open = 0;
  double run_elapsed_seconds = 0;
};

/// Renders `s` in text format 0.0.4 (Content-Type text/plain; version=0.0.4). Families:
///   memstand_requests_total{command}            counter
///   memstand_error_replies_total{command}       counter (all kinds; 0 from the start)
///   memstand_errors_total{command,kind}         counter (a kind from its first error on)
///   memstand_operations_total{command,outcome}  counter (outcome ok, fail, unknown; all
///       three at 0 from the start)
///   memstand_hits_total{command}                counter (counts_hits commands only)
///   memstand_misses_total{command}              counter (counts_hits commands only)
///   memstand_bytes_sent_total{command}          counter
///   memstand_bytes_received_total{command}      counter
///   memstand_request_duration_seconds{command}  histogram (_bucket{le}, _sum, _count);
///       le = RequestLatencyBoundsNs() (1e-06 .. 56.2 s, 32 per decade), then +Inf
///   memstand_send_lag_seconds                   gauge
///   memstand_client_cpu_seconds_total           counter
///   memstand_connections                        gauge
///   memstand_run_elapsed_seconds                gauge
///   memstand_build_info{version}                gauge, always 1
/// Each family has one HELP and one TYPE line and its samples in one group; a family
/// with no samples (no errors yet, no histograms, no counts_hits command) is left out.
/// Every other counter is there at 0 from the first scrape, so rate() and increase()
/// see a run's first requests and errors (a series that appears at its first error
/// loses that increase): alert on memstand_error_replies_total, break it down with
/// memstand_errors_total. Label values are
/// escaped (\\, \", \n).
///
/// Bucket rounding: the HDR histogram keeps a range of equivalent values per counts
/// index, not the values themselves. Each index counts as its highest equivalent value
/// clamped to the exact max() (the value ValueAtPercentile reports for it), so a
/// bucket le=b holds the indices whose highest equivalent value is <= b. Values in an
/// index straddling b fall in the next bucket up (e.g. 10000 ns, in index
/// [10000, 10007], is not in le="1e-05" unless it is the maximum). Counts are exact
/// otherwise. _sum is mean() * total_count() (bucket midpoints, within the histogram's
/// precision); _count and le="+Inf" are total_count().
std::string FormatPrometheus(const MetricsSnapshot& s);

}  // namespace memstand
