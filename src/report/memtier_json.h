// `memstand run --json FILE --json-format memtier`: the result in the key layout of
// memtier_benchmark's --json-out-file (format version 2), for the subset documented in
// docs/json-format.md ("memtier layout"), so scripts written for memtier keep working.
// Units are memtier's: latencies in milliseconds, throughput in KB (1024 bytes) per
// second, Runtime times in epoch milliseconds.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "report/memtier_line.h"
#include "report/run_report.h"

namespace memstand {

/// The whole document: "configuration", "run information", "ALL STATS" (each command
/// and "Totals" with its per-second "Time-Serie").
/// REQUIRES: report.options and report.result set.
nlohmann::ordered_json MemtierJson(const RunReport& report);

/// One results object of the document and its title.
struct MemtierSection {
  std::string title;         // "ALL STATS", "RUN #1 RESULTS", "BEST RUN RESULTS", ...
  const RunReport* report;   // REQUIRES: options and result set
  bool histogram = false;    // memtier without --hide-histogram: a "SET"/"GET"/... array per
                             // command type of {"<=msec", "percent"} (MemtierDistribution)
};

/// The document with a results object per section, in order, as memtier writes them
/// for -x N (configuration "run_count" = run_count). The configuration and run
/// information come from the first section, and from `line` where memstand's options
/// do not say what memtier would write (null: no memtier line, the configuration
/// describes memstand's own run: "uri" the target's URL, "connection_timeout" memstand's
/// connect bound). REQUIRES: sections not empty.
nlohmann::ordered_json MemtierJson(const std::vector<MemtierSection>& sections, int run_count,
                                   const MemtierLine* line);

/// memtier's latency distribution of `ns`: (milliseconds, cumulative percent) at each
/// step of the HdrHistogram percentile iterator, 10 ticks per half distance (memtier's
/// LATENCY_HDR_GRANULARITY), values the steps' highest equivalent microseconds.
std::vector<std::pair<double, double>> MemtierDistribution(const HdrHistogram& ns);

/// `ns` re-binned in microseconds (memtier's unit), each bucket's count at its midpoint.
HdrHistogram MemtierMicros(const HdrHistogram& ns);

/// The commands of one memtier name ("Sets": every SET template), merged as memtier
/// merges commands of one type.
struct MemtierGroup {
  std::string name;             // "Sets", "Hgets"
  std::string command;          // the first template's command as written ("SET", "hget")
  CommandStats stats;           // the measured totals of the group's commands
  std::vector<size_t> indices;  // into options->commands
};

/// The groups in order of first appearance. REQUIRES: options and result set.
std::vector<MemtierGroup> MemtierGroups(const RunReport& report);

/// memtier's name of a command's statistics: "SET" -> "Sets", "hget" -> "Hgets".
std::string MemtierCommandName(const std::string& command);

/// memtier's key of a percentile: "p50.00", "p99.90", "p99.99" (its historical 6
/// characters), or more digits when those would not name `percentile` exactly
/// ("p99.999").
std::string MemtierPercentileKey(double percentile);

/// Nanoseconds per millisecond: memtier prints latencies in ms.
inline constexpr double kMemtierNsPerMs = 1e6;
/// n / seconds, 0 when no time passed (memtier's per-second columns).
inline double MemtierPerSecond(double n, double seconds) { return seconds > 0 ? n / seconds : 0.0; }

}  // namespace memstand
