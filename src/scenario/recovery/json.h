// The keys of recovery's JSON (docs/scenarios/recovery.md), spelt once: its writer
// (report.cc) and its readers (charts.cc, choices.cc) use these.
#pragma once

#include "report/json_check.h"

namespace memstand::recovery_json {

inline constexpr char kCells[] = "cells";
inline constexpr char kRun[] = "run";
inline constexpr char kConfiguration[] = "configuration";
inline constexpr char kSystem[] = "system";
inline constexpr char kMemory[] = "memory";
inline constexpr char kFailure[] = "failure";
inline constexpr char kVersion[] = "version";
inline constexpr char kFillKeys[] = "fill_keys";
inline constexpr char kUsedMemory[] = "used_memory";
inline constexpr char kAofBytes[] = "aof_bytes";
inline constexpr char kRdbBytes[] = "rdb_bytes";
inline constexpr char kSnapBytes[] = "snap_bytes";
inline constexpr char kXlogBytes[] = "xlog_bytes";
inline constexpr char kKillS[] = "kill_s";
inline constexpr char kRestartS[] = "restart_s";
inline constexpr char kAcceptS[] = "accept_s";
inline constexpr char kLoadedS[] = "loaded_s";
inline constexpr char kFirstWriteS[] = "first_write_s";
inline constexpr char kFirstReadS[] = "first_read_s";
inline constexpr char kLoadSeconds[] = "load_seconds";  // loaded_s - restart_s
inline constexpr char kSecondsPerGb[] = "seconds_per_gb";
inline constexpr char kKeysAfter[] = "keys_after";
inline constexpr char kFillPresent[] = "fill_present";
inline constexpr char kWritesOk[] = "writes_ok";
inline constexpr char kReadBytes[] = "read_bytes";
inline constexpr char kLost[] = "lost";
inline constexpr char kRecovered[] = "recovered";
inline constexpr char kUnexpected[] = "unexpected";
inline constexpr char kChecks[] = "checks";
inline constexpr char kSchedule[] = "schedule";

// Fields read by their type: ScenarioDef::read_rules (scenario/registry.h).
inline constexpr JsonRule kReadRules[] = {
    {"cells", JsonType::kArray},
    {"cells[].run", JsonType::kInt},
    {"cells[].configuration", JsonType::kString},
    {"cells[].used_memory", JsonType::kInt},
    {.path = "cells[].load_seconds", .type = JsonType::kNumber, .nullable = true},  // null: not measured
    {.path = "cells[].seconds_per_gb", .type = JsonType::kNumber, .nullable = true},  // null: not measured
    {"cells[].lost", JsonType::kUint},
};

}  // namespace memstand::recovery_json
