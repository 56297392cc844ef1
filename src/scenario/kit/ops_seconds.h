// A run's operations second by second (kit/outage.h PerSecond) in a scenario's JSON and
// on its report page, the same for every scenario that injects faults (failover,
// partition): `seconds[]` of {second, ok, fail, unknown, writes_ok, p50_ms, p99_ms,
// max_ms}, and two charts drawn from it, each with the fault's bands and lines.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report_section.h"
#include "scenario/kit/outage.h"

namespace memstand {

/// The seconds[] array (latencies in ms; null when no operation was acknowledged).
nlohmann::json OpsSecondsJson(const std::vector<OpsSecond>& seconds);

/// Adds to `s` the charts of one cell's seconds[] (as OpsSecondsJson wrote it): its
/// operations per second by outcome and its latency per second, both titled
/// "<title>: ..." and drawn with `bands` and `lines`; `what` ends the operations chart's
/// caption (what the band and lines are, and the JSON fields they come from).
void AddOpsSecondsCharts(const std::string& title, const nlohmann::json& seconds, const std::vector<ChartBand>& bands,
                         const std::vector<ChartLine>& lines, const std::string& what, ReportSection* s);

}  // namespace memstand
