// partition (docs/scenarios/partition.md): per cell, its operations per second by outcome
// (ok, fail, unknown) and the latency of the acknowledged ones per second, the partition
// drawn as a band from the cut to the heal, the promotion and the old primary's demotion
// as lines.
#include <fmt/format.h>

#include "report/json_fields.h"
#include "report/report_input.h"
#include "report/report_section.h"
#include "scenario/kit/ops_seconds.h"
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
    const auto cut = Number(c, key::kCutS);
    const auto heal = Number(c, key::kHealS);
    std::vector<ChartBand> bands;
    std::vector<ChartLine> lines;
    if (cut) bands.push_back({*cut, heal.value_or(*cut), "partition"});
    if (const auto promote = Number(c, key::kPromoteS)) lines.push_back({*promote, "replica promoted"});
    if (const auto demote = Number(c, key::kDemoteS)) lines.push_back({*demote, "old primary demoted"});
    AddOpsSecondsCharts(
        fmt::format("partition: clients {}, min-replicas-to-write {}, run {}", Text(c, key::kSide),
                    static_cast<int>(Number(c, key::kMinReplicas).value_or(0)),
                    static_cast<int>(Number(c, key::kRun).value_or(0))),
        seconds, bands, lines,
        "The band is the partition, from the cut to the heal; the lines are the Sentinels' promotion of a replica and "
        "the old primary's demotion (JSON cells[].seconds, cut_s, heal_s, promote_s, demote_s). The old primary's "
        "acknowledged writes between the cut and its demotion are the ones at risk.",
        s);
  }
  if (!any) s->blocks.push_back({"Charts", {"no chart: no cell has a per-second series"}});
}

}  // namespace memstand
