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
#include "scenario/kit/ops_seconds.h"

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
    std::vector<ChartBand> bands;
    std::vector<ChartLine> lines;
    const auto fault = Number(c, key::kFaultS);
    const auto outage = Number(c, key::kOutageS);
    if (fault) {
      bands.push_back({*fault, *fault + outage.value_or(0),
                       fmt::format("{}: outage {}", Text(c, key::kFault),
                                   outage ? fmt::format("{:.3f} s", *outage) : std::string("not ended"))});
      lines.push_back({*fault, Text(c, key::kFault) + " " + Text(c, key::kVictim)});
    }
    if (const auto promote = Number(c, key::kPromoteS)) lines.push_back({*promote, "promoted"});
    AddOpsSecondsCharts(fmt::format("failover: {} {} run {}", Text(c, key::kConfiguration), Text(c, key::kFault),
                                    static_cast<int>(Number(c, key::kRun).value_or(0))),
                        seconds, bands, lines,
                        "The band is the outage, from the fault to the first acknowledged write sent after it (JSON "
                        "cells[].seconds, fault_s, outage_s).",
                        s);
  }
  if (!any) s->blocks.push_back({"Charts", {"no chart: no cell has a per-second series"}});
}

}  // namespace memstand
