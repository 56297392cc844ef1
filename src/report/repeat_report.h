// The report of repeated runs (`memstand run --runs N`): each run's figures taken from
// its RunReport, and the summary as text and JSON (docs/json-format.md, "Repeated runs").
#pragma once

#include <cstdio>

#include <nlohmann/json.hpp>

#include "report/repeat.h"
#include "report/run_report.h"

namespace memstand {

/// The summary's figures of one judged run: per command and in total ops/s, mean, each
/// --percentiles value and max (µs); client CPU µs/request; server CPU µs/request from
/// INFO and from /proc when known. The outcome follows the exit code (0 OK, 130
/// interrupted, anything else failed; the verdict is the reason).
RunFigures FiguresOf(const RunReport& report);

/// A run that measured nothing (target unreachable, handshake refused).
RunFigures FailedRunFigures(const std::string& reason);

/// "[S] Summary of N runs" block: a line per figure "min median max (N=n)", the
/// failed runs with their reasons, and the interrupted ones.
void PrintRepeatSummary(std::FILE* out, const RepeatSummary& summary);

/// {"requested", "runs", "n", "failed", "interrupted", "failures": [...],
///  "figures": {row: {key: {"min", "median", "max", "n"}}}}.
nlohmann::ordered_json RepeatSummaryJson(const RepeatSummary& summary);

}  // namespace memstand
