// durability-overload's rows of the choice map (docs/choice-map.md, report/choice_map.h), filled
// from its JSON.
#include <fmt/format.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report/choice_map.h"
#include "scenario/kit/ranges.h"
#include "scenario/durability_overload/durability_overload.h"
#include "scenario/durability_overload/json.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = durability_overload_json;

// The SET throughput of each cell that ran, by run, of one mode, size and payload.
std::map<int64_t, double> SetThroughputByRun(const json& doc, const std::string& mode, const json& size,
                                             const json& payload) {
  std::map<int64_t, double> out;
  if (!doc.contains(key::kCells) || !doc[key::kCells].is_array()) return out;
  for (const json& c : doc[key::kCells]) {
    if (!c.is_object() || c.value(key::kMode, "") != mode || c.value(key::kOp, "") != "SET" ||
        ChoiceAt(c, {key::kSize}) != size || ChoiceAt(c, {key::kPayload}) != payload || !c.value(key::kRan, false) ||
        !ChoiceAt(c, {key::kRun}).is_number_integer() || !ChoiceAt(c, {key::kOpsPerSec}).is_number()) {
      continue;
    }
    out[c[key::kRun].get<int64_t>()] = c[key::kOpsPerSec].get<double>();
  }
  return out;
}

// durability-overload: SET throughput with the AOF mode against none, per size (the
// durability price): each run's ratio (its cell with the mode over its cell without) as a
// range over the runs; without cells, the ratio of the medians with its N. Then the runs
// with errors of that mode's SET cells.
bool FillDurability(const std::string& mode, const json& doc, ChoiceRow* row, std::string* figure) {
  if (!doc.contains(key::kDurabilityPrice) || !doc[key::kDurabilityPrice].is_array()) return false;
  std::string prices;
  for (const json& p : doc[key::kDurabilityPrice]) {
    if (!p.is_object() || p.value(key::kMode, "") != mode || !p.contains(key::kRatio) ||
        !p[key::kRatio].is_number())
      continue;
    const json size = ChoiceAt(p, {key::kSize}), payload = ChoiceAt(p, {key::kPayload});
    const std::map<int64_t, double> with = SetThroughputByRun(doc, mode, size, payload),
                                    none = SetThroughputByRun(doc, "none", size, payload);
    std::vector<double> ratios;
    for (const auto& [run, ops] : with) {
      auto base = none.find(run);
      if (base != none.end() && base->second > 0) ratios.push_back(ops / base->second);
    }
    const std::string price = ratios.empty() ? fmt::format("{:.2f}x (median over N={})", p[key::kRatio].get<double>(),
                                                           ChoiceValue(ChoiceAt(p, {key::kN})))
                                             : RangeTextOf(ratios, "{:.2f}x");
    prices += fmt::format("{}{} B {}: {}", prices.empty() ? "" : ", ", ChoiceValue(size), ChoiceValue(payload), price);
  }
  if (prices.empty()) return false;
  int64_t with_errors = 0, runs = 0;
  if (doc.contains(key::kMatrix) && doc[key::kMatrix].is_array()) {
    for (const json& c : doc[key::kMatrix]) {
      if (!c.is_object() || c.value(key::kMode, "") != mode || c.value(key::kOp, "") != "SET") continue;
      with_errors += c.value(key::kRunsWithErrors, 0);
      runs += c.value(key::kRuns, 0);
    }
  }
  row->faster = "every write appended to a log on disk; a restart replays it";
  row->pay = fmt::format(
      "SET throughput against no persistence: {}; SET cells with errors in {} of {} runs", prices,
      with_errors, runs);
  *figure = mode + " durability price " + prices;
  return true;
}

}  // namespace

std::vector<MeasuredChoiceRow> DurabilityOverloadChoiceRows() {
  std::vector<MeasuredChoiceRow> rows;
  const char* dur = "writes that must survive a restart, on a cluster";
  for (const auto& [mode, text] : std::vector<std::pair<const char*, const char*>>{
           {"aof-everysec", "Redis Cluster, AOF appendfsync everysec"},
           {"aof-always", "Redis Cluster, AOF appendfsync always"}}) {
    const std::string m = mode;
    rows.push_back(
        {"durability-overload", dur, text, "the price of the append-only file",
         [m](const json& d, ChoiceRow* r, std::string* f) { return FillDurability(m, d, r, f); }});
  }
  return rows;
}

}  // namespace memstand
