// stretched-cache's rows of the choice map (docs/choice-map.md, report/choice_map.h), filled from
// its JSON.
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "report/choice_map.h"
#include "scenario/stretched_cache/stretched_cache.h"

namespace memstand {
namespace {

using nlohmann::json;

// stretched-cache: the cell of `client` through the pipelined relay (the model of a
// wire) at the largest distance of the first run.
bool FillStretched(const std::string& client, const json& doc, ChoiceRow* row,
                   std::string* figure) {
  const json* best = nullptr;
  if (!doc.contains("cells") || !doc["cells"].is_array()) return false;
  for (const json& c : doc["cells"]) {
    if (!c.is_object() || c.value("client", "") != client ||
        c.value("relay_mode", "") != "pipelined" || c.value("run", 0) != 1 ||
        !c.contains("median_ns") || !c.contains("one_way_ns")) {
      continue;
    }
    if (best == nullptr || c["one_way_ns"].get<double>() > (*best)["one_way_ns"].get<double>())
      best = &c;
  }
  if (best == nullptr) return false;
  const double ms = 1e6;
  const double one_way = (*best)["one_way_ns"].get<double>() / ms,
               cost = (*best)["median_ns"].get<double>() / ms;
  const double rtt = (*best).value("round_trip_ns", 2 * one_way * ms) / ms;
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
