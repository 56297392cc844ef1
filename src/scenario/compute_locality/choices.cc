// compute-locality's rows of the choice map (docs/choice-map.md, report/choice_map.h), filled from
// its JSON.
#include <fmt/format.h>

#include <string>
#include <tuple>
#include <vector>

#include "report/choice_map.h"
#include "report/json_fields.h"
#include "scenario/compute_locality/compute_locality.h"
#include "scenario/compute_locality/json.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = compute_locality_json;

// compute-locality: the pair `label` of `system` from the first run.
bool FillLocality(const std::string& system, const std::string& label, const json& doc,
                  ChoiceRow* row, std::string* figure) {
  const json* s = ChoiceFind(Field(doc, key::kSystems), key::kName, system);
  if (s == nullptr || s->contains(key::kNotRun) || s->contains(key::kFailure) || !Field(*s, key::kPairs).is_array())
    return false;
  const json* pair = nullptr;
  for (const json& p : (*s)[key::kPairs]) {
    if (p.value(key::kLabel, "") == label) pair = &p;
  }
  if (pair == nullptr) return false;
  const std::string ratios = fmt::format(
      "{} fewer objects, {} fewer bytes, {} less time than fetching the "
      "category to the client",
      ChoiceRatio(ChoiceAt(*pair, {key::kObjects})), ChoiceRatio(ChoiceAt(*pair, {key::kBytesIn})),
      ChoiceRatio(ChoiceAt(*pair, {key::kTime})));
  if (system == "tarantool") {
    row->faster = "a stored Lua function walks an index next to the data: " + ratios;
    std::string scan;
    for (const json& p : (*s)[key::kPairs]) {
      if (p.value(key::kLabel, "") == "control 2, aligned algorithm") {
        scan = fmt::format(
            "; the same function scanning and sorting instead of walking the index took {} the "
            "time",
            ChoiceRatio(ChoiceAt(p, {key::kTime})));
      }
    }
    row->pay = "code kept and run on the server (in its one transaction thread)" + scan;
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
  *figure = fmt::format("{} '{}' objects {}, bytes {}, time {}", system, label,
                        ChoiceRatio(ChoiceAt(*pair, {key::kObjects})),
                        ChoiceRatio(ChoiceAt(*pair, {key::kBytesIn})),
                        ChoiceRatio(ChoiceAt(*pair, {key::kTime})));
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
