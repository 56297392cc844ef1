// replication-cost's JSON contract: the keys its writer (report.cc) writes and its
// readers (charts.cc, choices.cc) read, each spelt once here
// (docs/scenarios/replication-cost.md). contract_test.cc feeds a report made of
// fabricated cells to both.
#pragma once

namespace memstand::replication_cost_json {

// Top level.
inline constexpr char kCells[] = "cells";    // one per (run, system, path, concurrency)
inline constexpr char kRatios[] = "ratios";  // path a over path b at equal concurrency

// cells[] and ratios[].
inline constexpr char kRun[] = "run";
inline constexpr char kSystem[] = "system";  // "tarantool", "redis"
inline constexpr char kConcurrency[] = "concurrency";

// cells[].
inline constexpr char kPath[] = "path";  // "async-write", "set+wait1", ...
inline constexpr char kOk[] = "ok";
inline constexpr char kStalled[] = "stalled";
inline constexpr char kOpsPerSec[] = "ops_per_sec";
inline constexpr char kP99Us[] = "p99_us";

// ratios[].
inline constexpr char kA[] = "a";
inline constexpr char kB[] = "b";
inline constexpr char kThroughputRatio[] = "throughput_ratio";

}  // namespace memstand::replication_cost_json
