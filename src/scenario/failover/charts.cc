// failover (docs/scenarios/failover.md): per cell, its operations per second by outcome
// (ok, fail, unknown) and the latency of the acknowledged ones per second, with the fault
// drawn as a band (from the fault to the first acknowledged write sent after it, the
// outage) and the fault and the promotion as lines.
#include <fmt/format.h>

#include "report/json_fields.h"
#include "report/report_input.h"
#include "report/report_section.h"
#include "scenario/failover/failover.h"
#include "scenario/failover/json.h"

namespace memstand {

using nlohmann::json;
namespace key = failover_json;

void FailoverCharts(const ReportInput& in, ReportSection* s) {
  const json& cells = Array(in.doc, key::kCells);
  bool any = false;
  for (const json& c : cells) {
    const json& seconds = Array(c, key::kSeconds);
    if (seconds.empty()) continue;
    any = true;
    Chart chart;
    chart.title = fmt::format("failover: {} {} run {}, operations per second by outcome", Text(c, key::kConfiguration),
                              Text(c, key::kFault), static_cast<int>(Number(c, key::kRun).value_or(0)));
    chart.x = Axis("time since the load's start", "s");
    chart.y = Axis("operations that ended in that second", "ops/s");
    chart.series = {"ok", "fail", "unknown"};
    chart.data.assign(4, {});
    for (const json& p : seconds) {
      chart.data[0].push_back(Number(p, key::kSecond));
      chart.data[1].push_back(Number(p, key::kOk));
      chart.data[2].push_back(Number(p, key::kFail));
      chart.data[3].push_back(Number(p, key::kUnknown));
    }
    const auto fault = Number(c, key::kFaultS);
    const auto outage = Number(c, key::kOutageS);
    if (fault) {
      chart.bands.push_back({*fault, *fault + outage.value_or(0),
                             fmt::format("{}: outage {}", Text(c, key::kFault),
                                         outage ? fmt::format("{:.3f} s", *outage) : std::string("not ended"))});
      chart.x_lines.push_back({*fault, Text(c, key::kFault) + " " + Text(c, key::kVictim)});
    }
    if (const auto promote = Number(c, key::kPromoteS)) chart.x_lines.push_back({*promote, "promoted"});
    chart.caption =
        "Operations (writes and reads) by the second they ended in, by outcome: ok (acknowledged), fail (certainly "
        "not done: refused, or never sent while the connection was down), unknown (sent, no answer: may have "
        "happened). The band is the outage, from the fault to the first acknowledged write sent after it (JSON "
        "cells[].seconds, fault_s, outage_s).";
    Chart latency;
    latency.title = fmt::format("failover: {} {} run {}, latency per second", Text(c, key::kConfiguration),
                                Text(c, key::kFault), static_cast<int>(Number(c, key::kRun).value_or(0)));
    latency.x = Axis("time since the load's start", "s");
    latency.y = Axis("latency of the acknowledged operations", "ms", /*log=*/true);
    latency.series = {"median", "99th percentile", "max"};
    latency.data.assign(4, {});
    for (const json& p : seconds) {
      latency.data[0].push_back(Number(p, key::kSecond));
      latency.data[1].push_back(Number(p, key::kP50Ms));
      latency.data[2].push_back(Number(p, key::kP99Ms));
      latency.data[3].push_back(Number(p, key::kMaxMs));
    }
    latency.bands = chart.bands;
    latency.x_lines = chart.x_lines;
    latency.caption =
        "The latency of the operations acknowledged in each second, from when each was due (open loop: a stalled "
        "client's wait counts), by nearest rank; a second with none acknowledged is a gap. Band and lines as "
        "above (JSON cells[].seconds[].p50_ms, p99_ms, max_ms).";
    s->charts.push_back(std::move(chart));
    s->charts.push_back(std::move(latency));
  }
  if (!any) s->blocks.push_back({"Charts", {"no chart: no cell has a per-second series"}});
}

}  // namespace memstand
