// `memstand memtier`'s text output in memtier_benchmark's shape (2.x): the run
// information lines, the results table ("ALL STATS": Type, Ops/sec, Hits/sec,
// Misses/sec, [MOVED/sec, ASK/sec], Avg. Latency, one column per --print-percentiles
// value, KB/sec; rows Sets, Gets, Waits, Totals, or one row per command type with
// --command) and the "Request Latency Distribution". Latencies in milliseconds,
// throughput in KB (1024 bytes) per second, as memtier prints them. Specification:
// docs/memtier.md.
#pragma once

#include <cstdio>
#include <string>

#include "load/load_options.h"
#include "report/run_report.h"

namespace memstand {

struct MemtierTextOptions {
  bool cluster_mode = false;        // memtier --cluster-mode: MOVED/sec and ASK/sec columns
  bool arbitrary_commands = false;  // memtier --command: a row per command type, no Hits/Misses
  bool hide_histogram = false;      // memtier --hide-histogram
};

/// "4         Threads", "50        Connections per thread", then "Requests per client"
/// or "Seconds", as memtier prints them once before its tables.
void PrintMemtierRunInformation(std::FILE* out, const LoadOptions& options);

/// The table titled `title` ("ALL STATS", "BEST RUN RESULTS", ...) and, unless
/// hide_histogram, the latency distribution of each row's commands.
/// REQUIRES: report.options and report.result set.
void PrintMemtierStats(std::FILE* out, const RunReport& report, const std::string& title,
                       const MemtierTextOptions& options);

/// memtier's column title of a percentile: "p50 Latency", "p99.9 Latency" (at most 3
/// decimals, trailing zeros left out).
std::string MemtierPercentileTitle(double percentile);

}  // namespace memstand
