// partition's rows of the choice map (docs/choice-map.md, report/choice_map.h), filled
// from its JSON: with the clients on the old primary's side, the acknowledged writes a
// partition lost without and with min-replicas-to-write, as ranges over the runs.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report/choice_map.h"
#include "scenario/kit/ranges.h"
#include "scenario/partition/json.h"
#include "scenario/partition/partition.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = partition_json;

bool FillPartition(int min_replicas, const std::string& faster, const json& doc, ChoiceRow* row, std::string* figure) {
  if (!doc.contains(key::kCells) || !doc[key::kCells].is_array()) return false;
  std::vector<double> lost, old_ok;
  for (const json& c : doc[key::kCells]) {
    if (!c.is_object() || c.value(key::kSide, "") != "with-primary" ||
        c.value(key::kMinReplicas, -1) != min_replicas || !c.value(key::kFailure, json()).is_null() ||
        !c.contains(key::kLost) || !c[key::kLost].is_number_unsigned()) {
      continue;
    }
    lost.push_back(static_cast<double>(c[key::kLost].get<uint64_t>()));
    old_ok.push_back(static_cast<double>(c.value(key::kOldPrimaryWritesOk, uint64_t{0})));
  }
  if (lost.empty()) return false;
  row->faster = faster;
  row->pay = fmt::format("{} acknowledged write(s) lost in a partition that left the clients with the old "
                         "primary ({} acknowledged by it from the cut on), per run",
                         RangeTextOf(lost, "{:.0f}"), RangeTextOf(old_ok, "{:.0f}"));
  *figure = fmt::format("lost {} of {}", RangeTextOf(lost, "{:.0f}"), RangeTextOf(old_ok, "{:.0f}"));
  return true;
}

}  // namespace

std::vector<MeasuredChoiceRow> PartitionChoiceRows() {
  const char* task = "keeps acknowledged writes through a network partition";
  std::vector<MeasuredChoiceRow> rows;
  for (int m : {0, 1}) {
    const std::string faster = m == 0 ? "goes on taking writes on both sides of a partition"
                                      : "the old primary stops taking writes once its replicas fall silent";
    rows.push_back({"partition", task,
                    m == 0 ? "Redis primary + 2 replicas + 3 Sentinels (asynchronous)"
                           : "the same with min-replicas-to-write 1",
                    faster, [m, faster](const json& d, ChoiceRow* r, std::string* f) {
                      return FillPartition(m, faster, d, r, f);
                    }});
  }
  return rows;
}

}  // namespace memstand
