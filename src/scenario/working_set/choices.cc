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

std::vector<const json*> RunsWithReads(const std::vector<const json*>& runs) {
  std::vector<const json*> out;
  for (const json* r : runs) {
    if (Field(*r, key::kReads).is_object()) out.push_back(r);
  }
  return out;
}

// "; zipf reads: hit ratio ... (the server's ...), p99 of hits ... µs, of misses ... µs",
// over the runs that read; "" when none did.
std::string ReadsFigures(const std::vector<const json*>& runs) {
  const std::vector<const json*> read = RunsWithReads(runs);
  if (read.empty()) return "";
  const std::string dist = ChoiceValue(ChoiceAt(*read.front(), {key::kReads, key::kDistribution}));
  std::string out = fmt::format("; {} reads after the load: hit ratio {}", dist,
                                RangeTextOf(RunValues(read, {key::kReads, key::kHitRatio}), "{:.3f}"));
  const std::vector<double> server = RunValues(read, {key::kReads, key::kServerCounted, key::kHitRatio});
  if (!server.empty()) out += fmt::format(" (the server's counters: {})", RangeTextOf(server, "{:.3f}"));
  for (const auto& [what, kind] : {std::pair{"hits", key::kHit}, std::pair{"misses", key::kMiss}}) {
    const std::vector<double> p99 = RunValues(read, {key::kReads, key::kLatency, kind, key::kP99Us});
    if (!p99.empty()) out += fmt::format(", p99 of {} {}", what, RangeTextOf(p99, "{:.0f}", "µs"));
  }
  return out;
}

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
        "{} of {} records kept, {} of data on disk; reads of what is not in memory go to disk{}{}",
        CountRange(RunValues(runs, {key::kPresent})), CountRange(RunValues(runs, {key::kAttempted})),
        RangeTextOf(RunValues(runs, {key::kServerCounters, key::kVinylDiskData}), "{:.0f}", "B"),
        RunsWithReads(runs).empty() ? " (their latency: working-set --reads)" : "", n);
    *figure = config + " keeps all" + n;
  } else {
    return false;
  }
  row->pay += ReadsFigures(runs);
  return true;
}

// The vinyl configuration's reads: what memory serves and what a read from disk costs,
// over its runs that read (each read attributed by the index's counters around it).
bool FillVinylReads(const json& doc, ChoiceRow* row, std::string* figure) {
  const json* c = ChoiceFind(Field(doc, key::kConfigurations), key::kName, "tarantool-vinyl");
  if (c == nullptr) return false;
  std::vector<const json*> runs;
  for (const json& r : Array(*c, key::kRuns)) {
    if (Field(Field(r, key::kReads), key::kVinyl).is_object()) runs.push_back(&r);
  }
  if (runs.empty()) return false;
  const std::string dist = ChoiceValue(ChoiceAt(*runs.front(), {key::kReads, key::kDistribution}));
  auto at = [&](const char* tier, const char* p) {
    return RangeTextOf(RunValues(runs, {key::kReads, key::kVinyl, tier, p}), "{:.0f}", "µs");
  };
  const std::string cache = RangeTextOf(RunValues(runs, {key::kReads, key::kVinyl, key::kCacheHitRatio}), "{:.3f}");
  row->faster = fmt::format("the hot part is read from memory: tuple cache hit ratio {}, p50 {} / p99 {}", cache,
                            at(key::kMemory, key::kP50Us), at(key::kMemory, key::kP99Us));
  row->pay = fmt::format("{} of the {} reads searched the runs on disk: p50 {} / p99 {} ({} of {} runs with reads)",
                         RangeTextOf(RunValues(runs, {key::kReads, key::kVinyl, key::kDiskShare}), "{:.3f}"), dist,
                         at(key::kDisk, key::kP50Us), at(key::kDisk, key::kP99Us), runs.size(),
                         Array(*c, key::kRuns).size());
  *figure = fmt::format("tarantool-vinyl {} reads: disk-read p99 {}, tuple cache hit ratio {}", dist,
                        at(key::kDisk, key::kP99Us), cache);
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
  rows.push_back({"working-set", "data far larger than memory with a hot subset",
                  "Tarantool vinyl (an LSM tree), reads by key after the load",
                  "the hot part in memory, the rest read from disk (working-set --reads zipf measures both)",
                  FillVinylReads});
  return rows;
}

}  // namespace memstand
