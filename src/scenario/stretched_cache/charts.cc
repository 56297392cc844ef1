// stretched-cache (docs/scenarios/stretched-cache.md): what a write acknowledged by the replica cost
// against the one-way distance, per relay mode and client, with the round trip drawn;
// and the calibration GET through the relay beside it.
#include <map>
#include <utility>

#include <fmt/format.h>

#include "report/json_fields.h"
#include "report/report_input.h"
#include "report/report_section.h"
#include "scenario/stretched_cache/figures.h"
#include "scenario/stretched_cache/json.h"
#include "scenario/stretched_cache/stretched_cache.h"

namespace memstand {

using nlohmann::json;

namespace {
namespace key = stretched_cache_json;
}  // namespace

void StretchedCacheCharts(const ReportInput& in, ReportSection* s) {
  const json& doc = in.doc;
  // (relay mode, client) -> (one-way ms, median ms) of run 1; a cell that is not valid
  // (the relay could not keep the sequential client's two chunks apart) is left out.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, std::optional<double>>>> cells;
  for (const json& c : Array(doc, key::kCells)) {
    const auto one_way = Number(c, key::kOneWayNs), median = Number(c, key::kMedianNs), run = Number(c, key::kRun);
    if (!one_way || !median || run != 1.0 || Field(c, key::kValid) == false) continue;
    cells[{Text(c, key::kRelayMode), Text(c, key::kClient)}].push_back({*one_way / 1e6, *median / 1e6});
  }
  if (cells.empty()) {
    s->blocks.push_back({"Charts", {"no chart: the JSON has no cells of run 1"}});
    return;
  }
  Chart c;
  c.title = "stretched-cache: write + WAIT 1 against distance";
  c.style = "line";
  c.x = Axis("one-way delay", "ms");
  c.y = Axis("median time per write acknowledged by the replica", "ms");
  std::vector<std::vector<std::pair<double, std::optional<double>>>> series;
  std::vector<std::pair<double, std::optional<double>>> rtt;
  for (const auto& [mode_client, points] : cells) {
    c.series.push_back(fmt::format("{} relay, {} client", mode_client.first, mode_client.second));
    series.push_back(points);
    for (const auto& p : points) rtt.push_back({p.first, 2 * p.first});
  }
  c.series.push_back("round trip (2 x one-way)");
  series.push_back(rtt);
  // Relay mode -> (one-way ms, GET median ms) of run 1 ("": a JSON from before (e) ran in both).
  std::map<std::string, std::vector<std::pair<double, std::optional<double>>>> get;
  for (const json& g : Array(doc, key::kCalibration)) {
    const auto one_way = Number(g, key::kOneWayNs), median = Number(g, key::kGetRelayMedianNs);
    if (one_way && median && Number(g, key::kRun) == 1.0) {
      get[Text(g, key::kRelayMode)].push_back({*one_way / 1e6, *median / 1e6});
    }
  }
  for (const auto& [mode, points] : get) {
    c.series.push_back(mode.empty() ? "GET through the relay (calibration)"
                                    : fmt::format("GET through the {} relay (calibration)", mode));
    series.push_back(points);
  }
  c.data = JoinOnX(series);
  c.caption = fmt::format(
      "The median time of SET + WAIT 1 (JSON cells, run 1) per relay mode (pipelined: chunks overlap in flight; "
      "serializing: the stream holds while a chunk is in flight) and client (sequential: WAIT after SET's reply; "
      "pipelined: both in one write), against the one-way delay the relay applied; the round trip is the configured "
      "2 x one-way, and the calibration GET (JSON calibration, through either relay) should lie on it. A serializing "
      "sequential cell whose relay read the two chunks as one in more than {}% of its operations is not valid and "
      "not drawn.",
      kMaxOneChunkPercent);
  s->charts.push_back(std::move(c));
}

}  // namespace memstand
