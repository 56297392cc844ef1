// recovery (docs/scenarios/recovery.md): time to load against the data's size, one series
// per configuration (its slope is the seconds per GB).
#include <algorithm>
#include <map>
#include <set>

#include "report/json_fields.h"
#include "report/report_input.h"
#include "report/report_section.h"
#include "scenario/recovery/json.h"
#include "scenario/recovery/recovery.h"

namespace memstand {

using nlohmann::json;
namespace key = recovery_json;

void RecoveryCharts(const ReportInput& in, ReportSection* s) {
  const json& cells = Array(in.doc, key::kCells);
  std::vector<std::string> names;
  std::vector<std::vector<std::pair<double, std::optional<double>>>> series;
  for (const json& c : cells) {
    const auto mib = Number(c, key::kUsedMemory);
    const auto load = Number(c, key::kLoadSeconds);
    if (!mib || !load) continue;
    const std::string name = Text(c, key::kConfiguration);
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      names.push_back(name);
      series.emplace_back();
      it = names.end() - 1;
    }
    series[it - names.begin()].push_back({*mib / (1 << 20), *load});
  }
  if (names.empty()) {
    s->blocks.push_back({"Charts", {"no chart: no cell measured a restart"}});
    return;
  }
  for (auto& one : series) std::sort(one.begin(), one.end());
  Chart chart;
  chart.title = "recovery: time from the restart until loading is done, against the data's size";
  chart.style = "points";
  chart.x = Axis("data before the kill (Redis used_memory, Tarantool arena_used)", "MiB");
  chart.y = Axis("restart to loaded", "s");
  chart.series = names;
  chart.data = JoinOnX(series);
  chart.caption = "Each cell: seconds from the restart's start until loading was done (Redis answered, not "
                  "LOADING; Tarantool's box.info.status was 'running'; JSON cells[].load_seconds), against its data "
                  "size (cells[].used_memory). The slope of a configuration's points is its seconds per GB.";
  s->charts.push_back(std::move(chart));
}

}  // namespace memstand
