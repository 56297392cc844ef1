// replication-cost's rows of the choice map (docs/choice-map.md, report/choice_map.h), filled from
// its JSON.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "report/choice_map.h"
#include "scenario/kit/ranges.h"
#include "scenario/replication_cost/json.h"
#include "scenario/replication_cost/replication_cost.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = replication_cost_json;

// replication-cost: path a against path b of `system` at equal concurrency (the
// throughput ratio per level) as a range over the runs at each level; a path whose cells
// all stalled or failed says that, over every run, which is the measured outcome.
bool FillReplication(const std::string& system, const std::string& a, const std::string& b,
                     const json& doc, ChoiceRow* row, std::string* figure) {
  std::vector<std::pair<std::string, std::vector<double>>> by_level;  // in first-appearance order
  if (doc.contains(key::kRatios) && doc[key::kRatios].is_array()) {
    for (const json& r : doc[key::kRatios]) {
      if (!r.is_object() || r.value(key::kSystem, "") != system || r.value(key::kA, "") != a ||
          r.value(key::kB, "") != b || !r.contains(key::kThroughputRatio) || !r[key::kThroughputRatio].is_number()) {
        continue;
      }
      const std::string level = ChoiceValue(ChoiceAt(r, {key::kConcurrency}));
      auto at = std::find_if(by_level.begin(), by_level.end(), [&](const auto& l) { return l.first == level; });
      if (at == by_level.end()) at = by_level.insert(by_level.end(), {level, {}});
      at->second.push_back(r[key::kThroughputRatio].get<double>());
    }
  }
  std::string levels;
  for (const auto& [level, ratios] : by_level) {
    levels += fmt::format("{}{}: {}", levels.empty() ? "" : ", ", level, RangeTextOf(ratios, "{:.2f}x"));
  }
  int cells = 0, held = 0;
  std::set<int64_t> runs;
  if (doc.contains(key::kCells) && doc[key::kCells].is_array()) {
    for (const json& c : doc[key::kCells]) {
      if (!c.is_object() || c.value(key::kSystem, "") != system || c.value(key::kPath, "") != a) continue;
      ++cells;
      held += c.value(key::kOk, false) && !c.value(key::kStalled, false) ? 1 : 0;
      runs.insert(c.value(key::kRun, int64_t{0}));
    }
  }
  if (levels.empty() && cells == 0) return false;
  if (levels.empty()) {
    row->pay = fmt::format(
        "{} held in {} of its {} cells over {} run(s) (stalled or failed: see the scenario's report), so no "
        "ratio to {}",
        a, held, cells, runs.size(), b);
    *figure = fmt::format("{} held in {} of {} cells", a, held, cells);
    return true;
  }
  row->pay = fmt::format("throughput {} / {} by connections {}", a, b, levels);
  *figure = fmt::format("{} / {} throughput at equal concurrency {}", a, b, levels);
  return true;
}

}  // namespace

std::vector<MeasuredChoiceRow> ReplicationCostChoiceRows() {
  std::vector<MeasuredChoiceRow> rows;
  const char* rc = "writes the replicas must have before the client hears OK";
  for (const auto& [system, a, b, text, faster] :
       std::vector<std::tuple<const char*, const char*, const char*, const char*, const char*>>{
           {"tarantool", "sync-write", "async-write",
            "Tarantool, an is_sync space, a majority quorum",
            "a write answered once a majority of the replica set has it"},
           {"tarantool", "sync-write-all", "async-write",
            "Tarantool, an is_sync space, a quorum of every member",
            "a write answered once every member has it"},
           {"redis", "set+wait1", "set", "Redis SET + WAIT 1",
            "the client asks for one replica's acknowledgement"},
           {"redis", "set+wait2", "set", "Redis SET + WAIT 2",
            "the client asks for two replicas' acknowledgement"}}) {
    const std::string sys = system, pa = a, pb = b, fast = faster;
    rows.push_back({"replication-cost", rc, text, faster,
                    [sys, pa, pb, fast](const json& d, ChoiceRow* r, std::string* f) {
                      r->faster = fast;
                      return FillReplication(sys, pa, pb, d, r, f);
                    }});
  }
  rows.push_back({"replication-cost", "reads that may be served by replicas",
                  "Tarantool, reads round robin over 3 replicas",
                  "reads spread over the replicas, off the master",
                  [](const json& d, ChoiceRow* r, std::string* f) {
                    r->faster = "reads spread over the replicas, off the master";
                    return FillReplication("tarantool", "read-replicas", "read-master", d, r, f);
                  }});
  return rows;
}

}  // namespace memstand
