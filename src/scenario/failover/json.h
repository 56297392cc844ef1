// The keys of failover's JSON (docs/scenarios/failover.md), spelt once: its writer
// (report.cc) and its readers (charts.cc, choices.cc) use these.
#pragma once

#include "report/json_check.h"

namespace memstand::failover_json {

inline constexpr char kCells[] = "cells";
inline constexpr char kRun[] = "run";
inline constexpr char kConfiguration[] = "configuration";
inline constexpr char kFault[] = "fault";
inline constexpr char kNotRun[] = "not_run";
inline constexpr char kFailure[] = "failure";
inline constexpr char kVersion[] = "version";
inline constexpr char kVictim[] = "victim";
inline constexpr char kVictimAddress[] = "victim_address";
inline constexpr char kSuccessor[] = "successor";
inline constexpr char kNewPrimary[] = "new_primary";
inline constexpr char kFaultS[] = "fault_s";
inline constexpr char kDetectS[] = "detect_s";
inline constexpr char kPromoteS[] = "promote_s";
inline constexpr char kOutageS[] = "outage_s";
inline constexpr char kFirstOkS[] = "first_ok_s";
inline constexpr char kFirstOkNode[] = "first_ok_node";
inline constexpr char kFirstOkElsewhereS[] = "first_ok_elsewhere_s";
inline constexpr char kFirstOkElsewhereNode[] = "first_ok_elsewhere_node";
inline constexpr char kOutageWrites[] = "outage_writes";  // {ok, fail, unknown}
inline constexpr char kOutageReads[] = "outage_reads";    // {ok, fail}
inline constexpr char kWrites[] = "writes";               // {ok, fail, unknown}: the whole run
inline constexpr char kOk[] = "ok";
inline constexpr char kFail[] = "fail";
inline constexpr char kUnknown[] = "unknown";
inline constexpr char kRecords[] = "records";
inline constexpr char kConnectionsLost[] = "connections_lost";
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
    {"cells[].configuration", JsonType::kString},
    {"cells[].fault", JsonType::kString},
    {.path = "cells[].outage_s", .type = JsonType::kNumber, .nullable = true},  // null: the outage did not end
    {"cells[].lost", JsonType::kUint},
    {"cells[].seconds", JsonType::kArray},
    {"cells[].seconds[].second", JsonType::kUint},
    {"cells[].seconds[].ok", JsonType::kUint},
    {"cells[].seconds[].fail", JsonType::kUint},
    {"cells[].seconds[].unknown", JsonType::kUint},
    {.path = "cells[].seconds[].p50_ms", .type = JsonType::kNumber, .nullable = true},
    {.path = "cells[].seconds[].p99_ms", .type = JsonType::kNumber, .nullable = true},
    {.path = "cells[].seconds[].max_ms", .type = JsonType::kNumber, .nullable = true},
    {.path = "cells[].fault_s", .type = JsonType::kNumber, .nullable = true},  // null: a failed cell
};

}  // namespace memstand::failover_json
