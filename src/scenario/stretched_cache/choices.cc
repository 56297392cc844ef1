// stretched-cache's rows of the choice map (docs/choice-map.md, report/choice_map.h), filled from
// its JSON.
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "report/choice_map.h"
#include "scenario/stretched_cache/json.h"
#include "scenario/stretched_cache/stretched_cache.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = stretched_cache_json;

// stretched-cache: the cell of `client` through the pipelined relay (the model of a
// wire) at the largest distance of the first run.
bool FillStretched(const std::string& client, const json& doc, ChoiceRow* row,
                   std::string* figure) {
  const json* best = nullptr;
  if (!doc.contains(key::kCells) || !doc[key::kCells].is_array()) return false;
  for (const json& c : doc[key::kCells]) {
    if (!c.is_object() || c.value(key::kClient, "") != client ||
        c.value(key::kRelayMode, "") != "pipelined" || c.value(key::kRun, 0) != 1 ||
        !c.contains(key::kMedianNs) || !c.contains(key::kOneWayNs)) {
      continue;
    }
    if (best == nullptr || c[key::kOneWayNs].get<double>() > (*best)[key::kOneWayNs].get<double>())
      best = &c;
  }
  if (best == nullptr) return false;
  const double ms = 1e6;
  const double one_way = (*best)[key::kOneWayNs].get<double>() / ms,
               cost = (*best)[key::kMedianNs].get<double>() / ms;
  const double rtt = (*best).value(key::kRoundTripNs, 2 * one_way * ms) / ms;
  row->faster = client == "pipelined"
                    ? "SET and WAIT 1 leave in one write: the acknowledgement costs one round trip"
                    : "the client waits for SET's reply before it asks for the acknowledgement";
  row->pay = fmt::format(
      "at one-way {:.0f} ms a write acknowledged by the replica took {:.1f} ms (median): the round "
      "trip {:.1f} ms + {:.1f} ms",
      one_way, cost, rtt, cost - rtt);
  *figure = fmt::format("{} client, pipelined relay, one-way {:.0f} ms: median {:.1f} ms", client,
                        one_way, cost);
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
