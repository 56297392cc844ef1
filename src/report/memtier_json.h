// `memstand run --json FILE --json-format memtier`: the result in the key layout of
// memtier_benchmark's --json-out-file (format version 2), for the subset documented in
// docs/json-format.md ("memtier layout"), so scripts written for memtier keep working.
// Units are memtier's: latencies in milliseconds, throughput in KB (1024 bytes) per
// second, Runtime times in epoch milliseconds.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/run_report.h"

namespace memstand {

/// The whole document: "configuration", "run information", "ALL STATS".
/// REQUIRES: report.options and report.result set.
nlohmann::ordered_json MemtierJson(const RunReport& report);

/// memtier's name of a command's statistics: "SET" -> "Sets", "hget" -> "Hgets".
std::string MemtierCommandName(const std::string& command);

/// memtier's key of a percentile: "p50.00", "p99.90", "p99.99" (its historical 6
/// characters), or more digits when those would not name `percentile` exactly
/// ("p99.999").
std::string MemtierPercentileKey(double percentile);

}  // namespace memstand
