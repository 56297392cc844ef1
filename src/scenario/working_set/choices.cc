// working-set's rows of the choice map (docs/choice-map.md, report/choice_map.h), filled from
// its JSON.
#include <fmt/format.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report/choice_map.h"
#include "report/json_fields.h"
#include "scenario/kit/ranges.h"
#include "scenario/working_set/json.h"
#include "scenario/working_set/working_set.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = working_set_json;

// The numbers at `path` in each of `runs` that has one.
std::vector<double> RunValues(const std::vector<const json*>& runs, std::initializer_list<const char*> path) {
  std::vector<double> out;
  for (const json* r : runs) {
    const json v = ChoiceAt(*r, path);
    if (v.is_number()) out.push_back(v.get<double>());
  }
  return out;
}

std::string CountRange(const std::vector<double>& values) { return RangeTextOf(values, "{:.0f}"); }

// working-set: one row per configuration, from every run, worded by the outcome most of
// its runs measured (evicts, rejects, keeps all), never by the one expected; the figures
// are ranges over the runs of that outcome, and a run of another outcome is named.
bool FillWorkingSet(const std::string& config, const json& doc, ChoiceRow* row,
                    std::string* figure) {
  const json* c = ChoiceFind(Field(doc, key::kConfigurations), key::kName, config);
  if (c == nullptr || !c->contains(key::kRuns) || !(*c)[key::kRuns].is_array() || (*c)[key::kRuns].empty())
    return false;
  const json& all = (*c)[key::kRuns];
  std::map<std::string, std::vector<const json*>> by_outcome;
  std::string outcome;  // the most frequent; on a tie, the earlier run's
  for (const json& r : all) {
    const std::string o = ChoiceValue(ChoiceAt(r, {key::kOutcome}));
    by_outcome[o].push_back(&r);
    if (outcome.empty() || by_outcome[o].size() > by_outcome[outcome].size()) outcome = o;
  }
  const std::vector<const json*>& runs = by_outcome[outcome];
  std::string n = fmt::format(" ({} in {} of {} runs", outcome, runs.size(), all.size());
  for (const auto& [o, rs] : by_outcome) {
    if (o != outcome) n += fmt::format("; {} in {}", o, rs.size());
  }
  n += ")";
  if (outcome == "evicts") {
    row->faster = "keeps taking every write at its memory limit: it evicts to make room";
    row->pay = fmt::format("{} of {} records evicted, {} kept{}", CountRange(RunValues(runs, {key::kEvicted})),
                           CountRange(RunValues(runs, {key::kAttempted})), CountRange(RunValues(runs, {key::kPresent})), n);
    *figure = fmt::format("{} evicts, first eviction with write {}", config,
                          CountRange(RunValues(runs, {key::kExactEviction})));
  } else if (outcome == "rejects") {
    row->faster = "loses nothing it acknowledged: at the limit it refuses writes";
    row->pay = fmt::format("writes refused from write {} on ('{}'); {} records kept{}",
                           CountRange(RunValues(runs, {key::kFirstRejectedWrite})),
                           ChoiceValue(ChoiceAt(*runs.front(), {key::kFirstError})),
                           CountRange(RunValues(runs, {key::kPresent})), n);
    *figure = fmt::format("{} rejects, first rejected write {}", config,
                          CountRange(RunValues(runs, {key::kFirstRejectedWrite})));
  } else if (outcome == "keeps all") {
    row->faster = "keeps every record: the data lives on disk, memory holds a part";
    row->pay = fmt::format(
        "{} of {} records kept, {} of data on disk; reads of what is not in memory go to disk "
        "(their latency is not measured by this scenario){}",
        CountRange(RunValues(runs, {key::kPresent})), CountRange(RunValues(runs, {key::kAttempted})),
        RangeTextOf(RunValues(runs, {key::kServerCounters, key::kVinylDiskData}), "{:.0f}", "B"), n);
    *figure = config + " keeps all" + n;
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
