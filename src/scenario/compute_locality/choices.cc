// compute-locality's rows of the choice map (docs/choice-map.md, report/choice_map.h), filled from
// its JSON.
#include <fmt/format.h>

#include <string>
#include <tuple>
#include <vector>

#include "report/choice_map.h"
#include "report/json_fields.h"
#include "scenario/kit/ranges.h"
#include "scenario/compute_locality/compute_locality.h"
#include "scenario/compute_locality/json.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = compute_locality_json;

// The ratio `field` of the pair `label` in each of `runs` that timed it: a time ratio of
// 0 is a pair with no timed call (a run interrupted before it), which is no figure.
std::vector<double> PairRatios(const std::vector<const json*>& runs, const std::string& label, const char* field) {
  std::vector<double> out;
  for (const json* s : runs) {
    for (const json& p : (*s)[key::kPairs]) {
      const json v = ChoiceAt(p, {field}), time = ChoiceAt(p, {key::kTime});
      if (p.value(key::kLabel, "") == label && v.is_number() && time.is_number() && time.get<double>() > 0)
        out.push_back(v.get<double>());
    }
  }
  return out;
}

std::string RatioRange(const std::vector<double>& values) { return RangeTextOf(values, "{:.1f}x"); }

// compute-locality: the pair `label` of `system` over every run of it that has the pair
// (systems[] holds one entry per system and run).
bool FillLocality(const std::string& system, const std::string& label, const json& doc,
                  ChoiceRow* row, std::string* figure) {
  std::vector<const json*> runs;
  const json& systems = Field(doc, key::kSystems);
  if (!systems.is_array()) return false;
  for (const json& s : systems) {
    if (s.is_object() && s.value(key::kName, "") == system && !s.contains(key::kNotRun) &&
        !s.contains(key::kFailure) && Field(s, key::kPairs).is_array()) {
      runs.push_back(&s);
    }
  }
  const std::vector<double> time = PairRatios(runs, label, key::kTime);
  if (time.empty()) return false;
  const std::string objects = RatioRange(PairRatios(runs, label, key::kObjects)),
                    bytes = RatioRange(PairRatios(runs, label, key::kBytesIn)), times = RatioRange(time);
  const std::string ratios = fmt::format(
      "{} fewer objects, {} fewer bytes, {} less time than fetching the category to the client", objects, bytes,
      times);
  if (system == "tarantool") {
    row->faster = "a stored Lua function walks an index next to the data: " + ratios;
    const std::vector<double> scan = PairRatios(runs, "control 2, aligned algorithm", key::kTime);
    row->pay = "code kept and run on the server (in its one transaction thread)" +
               (scan.empty() ? std::string()
                             : fmt::format("; the same function scanning and sorting instead of walking the index "
                                           "took {} the time",
                                           RatioRange(scan)));
  } else if (system == "redis") {
    row->faster = "a sorted set per category gives the top by score: " + ratios;
    row->pay =
        "a second structure kept in step with every record write; two round trips (ZREVRANGE, "
        "MGET)";
  } else {
    row->faster = "an ordinary ORDER BY ... LIMIT, no stored code: " + ratios;
    row->pay =
        "an index on (category, views) kept on every write; the same cardinality effect without "
        "colocated compute";
  }
  *figure = fmt::format("{} '{}' objects {}, bytes {}, time {}", system, label, objects, bytes, times);
  return true;
}

}  // namespace

std::vector<MeasuredChoiceRow> ComputeLocalityChoiceRows() {
  std::vector<MeasuredChoiceRow> rows;
  const char* cl = "the top N of a large category by a field";
  for (const auto& [system, label, text] :
       std::vector<std::tuple<const char*, const char*, const char*>>{
           {"tarantool", "as published", "Tarantool, a stored Lua function over a TREE index"},
           {"redis", "as published (records in full on both sides)",
            "Redis, a sorted set per category"},
           {"postgresql", "control 3, no colocated compute (ORDER BY ... LIMIT, full records)",
            "PostgreSQL, ORDER BY ... LIMIT"}}) {
    const std::string sys = system, lab = label;
    rows.push_back({"compute-locality", cl, text,
                    "computing the top on the server instead of the client",
                    [sys, lab](const json& d, ChoiceRow* r, std::string* f) {
                      return FillLocality(sys, lab, d, r, f);
                    }});
  }
  return rows;
}

}  // namespace memstand
