// replication-cost (docs/scenarios/replication-cost.md): per system, each path's throughput and p99
// against concurrency (the sweep its knee comes from), and the ratios at equal
// concurrency (sync / async, replicas / master, SET + WAIT / SET).
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "report/json_fields.h"
#include "report/report_input.h"
#include "report/report_section.h"
#include "report/scenario_keys.h"
#include "scenario/replication_cost/json.h"
#include "scenario/replication_cost/replication_cost.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = replication_cost_json;

// AgainstConcurrency's name_field for the ratios: "a / b", not a key of the JSON.
constexpr char kPairOfPaths[] = "a / b";

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// One series per name, x the concurrency: the median over the runs of `field` of the
// rows that `take`; a (name, concurrency) without one is a gap.
template <class Take>
Chart AgainstConcurrency(const json& rows, const std::string& system, const std::string& name_field,
                         const char* field, Take take) {
  std::vector<std::string> names;
  std::set<double> levels;
  std::map<std::pair<std::string, double>, std::vector<double>> values;
  for (const json& r : rows) {
    if (Text(r, key::kSystem) != system) continue;
    const std::string name = name_field == kPairOfPaths ? Text(r, key::kA) + " / " + Text(r, key::kB) : Text(r, name_field);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    auto c = Number(r, key::kConcurrency);
    if (!c) continue;
    levels.insert(*c);
    auto v = Number(r, field);
    if (v && take(r)) values[{name, *c}].push_back(*v);
  }
  std::vector<std::vector<std::pair<double, std::optional<double>>>> series(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    for (double c : levels) {
      auto it = values.find({names[i], c});
      series[i].push_back({c, it == values.end() ? std::nullopt : std::optional<double>(MedianOf(it->second))});
    }
  }
  Chart chart;
  chart.x = Axis("concurrency", "connections", true);
  chart.series = names;
  chart.data = JoinOnX(series);
  return chart;
}

bool Held(const json& cell) {
  const json& ok = Field(cell, key::kOk);
  const json& stalled = Field(cell, key::kStalled);
  return ok.is_boolean() && ok.get<bool>() && !(stalled.is_boolean() && stalled.get<bool>());
}

}  // namespace

void ReplicationCostCharts(const ReportInput& in, ReportSection* s) {
  const json& cells = Array(in.doc, key::kCells);
  const json& ratios = Array(in.doc, key::kRatios);
  if (cells.empty()) {
    s->blocks.push_back({"Charts", {"no chart: the JSON has no cells"}});
    return;
  }
  const int runs = static_cast<int>(Number(in.doc, scenario_json::kRunsMade).value_or(1));
  const std::string over = runs > 1 ? fmt::format(" (the median of {} runs)", runs) : "";
  for (const char* system : {"tarantool", "redis"}) {
    if (std::none_of(cells.begin(), cells.end(), [&](const json& c) { return Text(c, key::kSystem) == system; })) {
      continue;
    }
    Chart ops = AgainstConcurrency(cells, system, key::kPath, key::kOpsPerSec, Held);
    ops.title = fmt::format("replication-cost: {} throughput against concurrency", system);
    ops.y = Axis("successful operations per second", "ops/s");
    ops.caption = "Each path's successful operations per second" + over +
                  " at each concurrency (JSON cells[].ops_per_sec; the WAIT paths count WAIT replies, acknowledged "
                  "writes). A cell that stalled or broke the invariant is a gap: it is a result in the tables, not "
                  "a point on the curve.";
    Chart p99 = AgainstConcurrency(cells, system, key::kPath, key::kP99Us, Held);
    p99.title = fmt::format("replication-cost: {} p99 latency against concurrency", system);
    p99.y = Axis("p99 latency", "µs", true);
    p99.caption = "Each path's p99" + over + " (JSON cells[].p99_us; the WAIT paths: SET's p99 + WAIT's), the cells "
                  "that held.";
    s->charts.push_back(std::move(ops));
    s->charts.push_back(std::move(p99));
    if (std::any_of(ratios.begin(), ratios.end(), [&](const json& r) { return Text(r, key::kSystem) == system; })) {
      Chart r = AgainstConcurrency(ratios, system, kPairOfPaths, key::kThroughputRatio, [](const json&) { return true; });
      r.title = fmt::format("replication-cost: {} throughput ratios at equal concurrency", system);
      r.y = Axis("throughput a / b", "x");
      r.y_lines.push_back({1, "1x: no difference"});
      r.caption = "Throughput of path a over path b at the same concurrency, measured in the same run" + over +
                  " (JSON ratios[].throughput_ratio), only where both cells held.";
      s->charts.push_back(std::move(r));
    }
  }
}

}  // namespace memstand
