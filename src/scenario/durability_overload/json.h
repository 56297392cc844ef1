// durability-overload's JSON contract: the keys its writer (report.cc) writes and its
// readers (charts.cc, choices.cc) read, each spelt once here
// (docs/scenarios/durability-overload.md). contract_test.cc feeds a report made of
// fabricated cells to both.
#pragma once

#include "report/json_check.h"

namespace memstand::durability_overload_json {

// Top level.
inline constexpr char kCells[] = "cells";    // every cell, in the order they ran
inline constexpr char kMatrix[] = "matrix";  // a matrix position over the runs
inline constexpr char kDurabilityPrice[] = "durability_price";  // SET with the AOF over none

// cells[], matrix[] and durability_price[].
inline constexpr char kMode[] = "mode";  // "none", "aof-everysec", ...
inline constexpr char kSize[] = "size";  // value bytes
inline constexpr char kPayload[] = "payload";
inline constexpr char kOpsPerSec[] = "ops_per_sec";  // matrix[]: a range over the runs (kit/ranges.h)

// cells[] and matrix[].
inline constexpr char kOp[] = "op";  // "SET", "GET"

// cells[].
inline constexpr char kRun[] = "run";
inline constexpr char kRan[] = "ran";
// cells[]: what the charts by size read (report.cc writes them per cell).
inline constexpr char kWriteBytesPerSec[] = "write_bytes_per_sec";  // null: not readable
inline constexpr char kP99Ns[] = "p99_ns";
inline constexpr char kClientCpuS[] = "client_cpu_s";
inline constexpr char kServerCpuS[] = "server_cpu_s";
inline constexpr char kRssMax[] = "rss_max";  // cells[]: the cell ran (not skipped)
inline constexpr char kSeconds[] = "seconds";
inline constexpr char kClusterSamples[] = "cluster_samples";
inline constexpr char kClusterIntervals[] = "cluster_intervals";
// cells[].cluster_intervals[].
inline constexpr char kWhat[] = "what";
inline constexpr char kFromS[] = "from_s";
inline constexpr char kToS[] = "to_s";

// matrix[].
inline constexpr char kRuns[] = "runs";
inline constexpr char kRunsWithErrors[] = "runs_with_errors";

// durability_price[].
inline constexpr char kRatio[] = "ratio";
inline constexpr char kN[] = "n";

// Fields read by their type: ScenarioDef::read_rules (scenario/registry.h).
inline constexpr JsonRule kReadRules[] = {
    {"durability_price", JsonType::kArray},
    {"durability_price[].mode", JsonType::kString},
    {"matrix", JsonType::kArray},
    {"matrix[].mode", JsonType::kString},
    {"matrix[].op", JsonType::kString},
    {"matrix[].runs", JsonType::kInt},
    {"matrix[].runs_with_errors", JsonType::kInt},
};

}  // namespace memstand::durability_overload_json
