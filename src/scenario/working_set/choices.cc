// working-set's rows of the choice map (docs/choice-map.md, report/choice_map.h), filled from
// its JSON.
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "report/choice_map.h"
#include "report/json_fields.h"
#include "scenario/working_set/json.h"
#include "scenario/working_set/working_set.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = working_set_json;

// working-set: one row per configuration, from its first run, worded by the outcome it
// measured (evicts, rejects, keeps all), never by the one expected.
bool FillWorkingSet(const std::string& config, const json& doc, ChoiceRow* row,
                    std::string* figure) {
  const json* c = ChoiceFind(Field(doc, key::kConfigurations), key::kName, config);
  if (c == nullptr || !c->contains(key::kRuns) || !(*c)[key::kRuns].is_array() || (*c)[key::kRuns].empty())
    return false;
  const json& r = (*c)[key::kRuns][0];
  const std::string outcome = ChoiceValue(ChoiceAt(r, {key::kOutcome}));
  const std::string n = fmt::format(" (run 1 of {})", (*c)[key::kRuns].size());
  if (outcome == "evicts") {
    row->faster = "keeps taking every write at its memory limit: it evicts to make room";
    row->pay = fmt::format(
        "{} of {} records evicted, {} kept{}", ChoiceValue(ChoiceAt(r, {key::kEvicted})),
        ChoiceValue(ChoiceAt(r, {key::kAttempted})), ChoiceValue(ChoiceAt(r, {key::kPresent})), n);
    *figure = fmt::format("{} evicts, first eviction with write {}", config,
                          ChoiceValue(ChoiceAt(r, {key::kExactEviction})));
  } else if (outcome == "rejects") {
    row->faster = "loses nothing it acknowledged: at the limit it refuses writes";
    row->pay = fmt::format("writes refused from write {} on ('{}'); {} records kept{}",
                           ChoiceValue(ChoiceAt(r, {key::kFirstRejectedWrite})),
                           ChoiceValue(ChoiceAt(r, {key::kFirstError})),
                           ChoiceValue(ChoiceAt(r, {key::kPresent})), n);
    *figure = fmt::format("{} rejects, first rejected write {}", config,
                          ChoiceValue(ChoiceAt(r, {key::kFirstRejectedWrite})));
  } else if (outcome == "keeps all") {
    row->faster = "keeps every record: the data lives on disk, memory holds a part";
    const json disk = ChoiceAt(r, {key::kServerCounters, key::kVinylDiskData});
    row->pay = fmt::format(
        "{} of {} records kept, {} B of data on disk; reads of what is not in memory go to disk "
        "(their latency is not measured by this scenario){}",
        ChoiceValue(ChoiceAt(r, {key::kPresent})), ChoiceValue(ChoiceAt(r, {key::kAttempted})),
        ChoiceValue(disk), n);
    *figure = config + " keeps all";
  } else {
    return false;
  }
  return true;
}

}  // namespace

std::vector<MeasuredChoiceRow> WorkingSetChoiceRows() {
  std::vector<MeasuredChoiceRow> rows;
  const char* ws = "a cache whose working set outgrows its memory";
  for (const auto& [config, system] : std::vector<std::pair<const char*, const char*>>{
           {"redis-allkeys-lru", "Redis, maxmemory-policy allkeys-lru"},
           {"redis-noeviction", "Redis, maxmemory-policy noeviction"},
           {"memcached-8m", "memcached -m 8"},
           {"tarantool-memtx", "Tarantool memtx at its memtx_memory"},
           {"tarantool-vinyl", "Tarantool vinyl"}}) {
    const std::string c = config;
    rows.push_back(
        {"working-set", ws, system, "what it does at the memory limit: evict, reject or keep all",
         [c](const json& d, ChoiceRow* r, std::string* f) { return FillWorkingSet(c, d, r, f); }});
  }
  return rows;
}

}  // namespace memstand
