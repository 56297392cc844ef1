// stretched-cache's rows of the choice map (docs/choice-map.md, report/choice_map.h), filled from
// its JSON.
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "report/choice_map.h"
#include "scenario/kit/ranges.h"
#include "scenario/stretched_cache/json.h"
#include "scenario/stretched_cache/stretched_cache.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = stretched_cache_json;

// stretched-cache: the cells of `client` through the pipelined relay (the model of a
// wire) at the largest distance, one per run: the median cost and its excess over the
// round trip as ranges over the runs.
bool FillStretched(const std::string& client, const json& doc, ChoiceRow* row,
                   std::string* figure) {
  if (!doc.contains(key::kCells) || !doc[key::kCells].is_array()) return false;
  std::vector<const json*> cells;
  double one_way_ns = -1;
  for (const json& c : doc[key::kCells]) {
    if (!c.is_object() || c.value(key::kClient, "") != client ||
        c.value(key::kRelayMode, "") != "pipelined" || !c.contains(key::kMedianNs) ||
        !c.contains(key::kOneWayNs)) {
      continue;
    }
    const double d = c[key::kOneWayNs].get<double>();
    if (d > one_way_ns) cells.clear();
    if (d >= one_way_ns) {
      one_way_ns = d;
      cells.push_back(&c);
    }
  }
  if (cells.empty()) return false;
  const double ms = 1e6;
  const double rtt = cells.front()->value(key::kRoundTripNs, 2 * one_way_ns) / ms;
  std::vector<double> cost, excess;
  for (const json* c : cells) {
    cost.push_back((*c)[key::kMedianNs].get<double>() / ms);
    excess.push_back(cost.back() - c->value(key::kRoundTripNs, 2 * one_way_ns) / ms);
  }
  row->faster = client == "pipelined"
                    ? "SET and WAIT 1 leave in one write: the acknowledgement costs one round trip"
                    : "the client waits for SET's reply before it asks for the acknowledgement";
  row->pay = fmt::format(
      "at one-way {:.0f} ms a write acknowledged by the replica took {} (each run's median): the round "
      "trip {:.1f} ms + {}",
      one_way_ns / ms, RangeTextOf(cost, "{:.1f}", "ms"), rtt, RangeTextOf(excess, "{:.1f}", "ms"));
  *figure = fmt::format("{} client, pipelined relay, one-way {:.0f} ms: median {}", client, one_way_ns / ms,
                        RangeTextOf(cost, "{:.1f}", "ms"));
  return true;
}

}  // namespace

std::vector<MeasuredChoiceRow> StretchedCacheChoiceRows() {
  std::vector<MeasuredChoiceRow> rows;
  const char* sc = "a write a replica must acknowledge, across distance";
  for (const auto& [client, text] : std::vector<std::pair<const char*, const char*>>{
           {"pipelined", "Redis SET + WAIT 1 in one write"},
           {"sequential", "Redis SET, then WAIT 1 after its reply"}}) {
    const std::string c = client;
    rows.push_back(
        {"stretched-cache", sc, text, "what the acknowledgement costs as the replica moves away",
         [c](const json& d, ChoiceRow* r, std::string* f) { return FillStretched(c, d, r, f); }});
  }
  return rows;
}

}  // namespace memstand
