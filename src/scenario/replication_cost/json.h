// replication-cost's JSON contract: the keys its writer (report.cc) writes and its
// readers (charts.cc, choices.cc) read, each spelt once here
// (docs/scenarios/replication-cost.md). contract_test.cc feeds a report made of
// fabricated cells to both.
#pragma once

#include "report/json_check.h"

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

// Fields read by their type: ScenarioDef::read_rules (scenario/registry.h).
inline constexpr JsonRule kReadRules[] = {
    {"ratios", JsonType::kArray},
    {"ratios[].run", JsonType::kInt},
    {"ratios[].system", JsonType::kString},
    {"ratios[].a", JsonType::kString},
    {"ratios[].b", JsonType::kString},
    {"cells", JsonType::kArray},
    {"cells[].run", JsonType::kInt},
    {"cells[].system", JsonType::kString},
    {"cells[].path", JsonType::kString},
    {"cells[].ok", JsonType::kBool},
    {"cells[].stalled", JsonType::kBool},
};

}  // namespace memstand::replication_cost_json
