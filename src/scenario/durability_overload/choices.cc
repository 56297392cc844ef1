// durability-overload's rows of the choice map (docs/choice-map.md, report/choice_map.h), filled
// from its JSON.
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "report/choice_map.h"
#include "scenario/durability_overload/durability_overload.h"

namespace memstand {
namespace {

using nlohmann::json;

// durability-overload: SET throughput with the AOF mode against none, per size (the
// durability price), and the runs with errors of that mode's SET cells.
bool FillDurability(const std::string& mode, const json& doc, ChoiceRow* row, std::string* figure) {
  if (!doc.contains("durability_price") || !doc["durability_price"].is_array()) return false;
  std::string prices;
  for (const json& p : doc["durability_price"]) {
    if (!p.is_object() || p.value("mode", "") != mode || !p.contains("ratio") ||
        !p["ratio"].is_number())
      continue;
    prices += fmt::format("{}{} B {}: {:.2f}x (N={})", prices.empty() ? "" : ", ",
                          ChoiceValue(ChoiceAt(p, {"size"})), ChoiceValue(ChoiceAt(p, {"payload"})),
                          p["ratio"].get<double>(), ChoiceValue(ChoiceAt(p, {"n"})));
  }
  if (prices.empty()) return false;
  int64_t with_errors = 0, runs = 0;
  if (doc.contains("matrix") && doc["matrix"].is_array()) {
    for (const json& c : doc["matrix"]) {
      if (!c.is_object() || c.value("mode", "") != mode || c.value("op", "") != "SET") continue;
      with_errors += c.value("runs_with_errors", 0);
      runs += c.value("runs", 0);
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
