// The keys of partition's JSON (docs/scenarios/partition.md), spelt once: its writer
// (report.cc) and its readers (charts.cc, choices.cc) use these.
#pragma once

#include "report/json_check.h"

namespace memstand::partition_json {

inline constexpr char kCells[] = "cells";
inline constexpr char kRun[] = "run";
inline constexpr char kSide[] = "side";
inline constexpr char kMinReplicas[] = "min_replicas_to_write";
inline constexpr char kNotRun[] = "not_run";
inline constexpr char kFailure[] = "failure";
inline constexpr char kVersion[] = "version";
inline constexpr char kOldPrimary[] = "old_primary";
inline constexpr char kOldPrimaryAddress[] = "old_primary_address";
inline constexpr char kNewPrimary[] = "new_primary";
inline constexpr char kCutS[] = "cut_s";
inline constexpr char kHealS[] = "heal_s";
inline constexpr char kDetectS[] = "detect_s";
inline constexpr char kPromoteS[] = "promote_s";
inline constexpr char kDemoteS[] = "demote_s";
inline constexpr char kOutageS[] = "outage_s";
inline constexpr char kOldPrimaryWritesOk[] = "old_primary_writes_ok";  // from the cut on
inline constexpr char kWritesAfterCut[] = "writes_after_cut";           // {ok, fail}
inline constexpr char kWrites[] = "writes";                             // {ok, fail, unknown}: the whole run
inline constexpr char kOk[] = "ok";
inline constexpr char kFail[] = "fail";
inline constexpr char kUnknown[] = "unknown";
inline constexpr char kRecords[] = "records";
inline constexpr char kConnectionsLost[] = "connections_lost";
inline constexpr char kSettled[] = "settled";  // null, or why the old primary did not follow
inline constexpr char kLost[] = "lost";
inline constexpr char kRecovered[] = "recovered";
inline constexpr char kUnexpected[] = "unexpected";
inline constexpr char kNotLinearizable[] = "not_linearizable";
inline constexpr char kChecks[] = "checks";  // [{check, verdict, summary}]: kit/check_findings.h
inline constexpr char kSchedule[] = "schedule";
inline constexpr char kSeconds[] = "seconds";  // kit/ops_seconds.h
inline constexpr char kHistoryFile[] = "history_file";

// Fields read by their type: ScenarioDef::read_rules (scenario/registry.h).
inline constexpr JsonRule kReadRules[] = {
    {"cells", JsonType::kArray},
    {"cells[].run", JsonType::kInt},
    {"cells[].side", JsonType::kString},
    {"cells[].min_replicas_to_write", JsonType::kInt},
    {.path = "cells[].cut_s", .type = JsonType::kNumber, .nullable = true},
    {.path = "cells[].heal_s", .type = JsonType::kNumber, .nullable = true},
    {.path = "cells[].promote_s", .type = JsonType::kNumber, .nullable = true},
    {.path = "cells[].demote_s", .type = JsonType::kNumber, .nullable = true},
    {"cells[].lost", JsonType::kUint},
    {"cells[].old_primary_writes_ok", JsonType::kUint},
    {"cells[].seconds", JsonType::kArray},
    {"cells[].seconds[].second", JsonType::kUint},
    {"cells[].seconds[].ok", JsonType::kUint},
    {"cells[].seconds[].fail", JsonType::kUint},
    {"cells[].seconds[].unknown", JsonType::kUint},
    {.path = "cells[].seconds[].p50_ms", .type = JsonType::kNumber, .nullable = true},
    {.path = "cells[].seconds[].p99_ms", .type = JsonType::kNumber, .nullable = true},
    {.path = "cells[].seconds[].max_ms", .type = JsonType::kNumber, .nullable = true},
};

}  // namespace memstand::partition_json
