// partition (docs/scenarios/partition.md): per cell, its operations per second by outcome
// (ok, fail, unknown) and the latency of the acknowledged ones per second, the partition
// drawn as a band from the cut to the heal, the promotion and the old primary's demotion
// as lines.
#include <fmt/format.h>

#include "report/json_fields.h"
#include "report/report_input.h"
#include "report/report_section.h"
#include "scenario/partition/json.h"
#include "scenario/partition/partition.h"

namespace memstand {

using nlohmann::json;
namespace key = partition_json;

void PartitionCharts(const ReportInput& in, ReportSection* s) {
  const json& cells = Array(in.doc, key::kCells);
  bool any = false;
  for (const json& c : cells) {
    const json& seconds = Array(c, key::kSeconds);
    if (seconds.empty()) continue;
    any = true;
    Chart chart;
    chart.title = fmt::format("partition: clients {}, min-replicas-to-write {}, run {}: operations per second by "
                              "outcome",
                              Text(c, key::kSide), static_cast<int>(Number(c, key::kMinReplicas).value_or(0)),
                              static_cast<int>(Number(c, key::kRun).value_or(0)));
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
    const auto cut = Number(c, key::kCutS);
    const auto heal = Number(c, key::kHealS);
    std::vector<ChartBand> bands;
    std::vector<ChartLine> lines;
    if (cut) bands.push_back({*cut, heal.value_or(*cut), "partition"});
    if (const auto promote = Number(c, key::kPromoteS)) lines.push_back({*promote, "replica promoted"});
    if (const auto demote = Number(c, key::kDemoteS)) lines.push_back({*demote, "old primary demoted"});
    chart.bands = bands;
    chart.x_lines = lines;
    chart.caption =
        "Operations (writes and reads) by the second they ended in, by outcome: ok (acknowledged), fail (refused, "
        "or never sent while the connection was down), unknown (sent, no answer). The band is the partition, from "
        "the cut to the heal; the lines are the Sentinels' promotion of a replica and the old primary's demotion "
        "(JSON cells[].seconds, cut_s, heal_s, promote_s, demote_s). The old primary's acknowledged writes between "
        "the cut and its demotion are the ones at risk.";
    Chart latency;
    latency.title = fmt::format("partition: clients {}, min-replicas-to-write {}, run {}: latency per second",
                                Text(c, key::kSide), static_cast<int>(Number(c, key::kMinReplicas).value_or(0)),
                                static_cast<int>(Number(c, key::kRun).value_or(0)));
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
    latency.bands = std::move(bands);
    latency.x_lines = std::move(lines);
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
