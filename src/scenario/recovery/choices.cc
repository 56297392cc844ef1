// recovery's rows of the choice map (docs/choice-map.md): per configuration, the seconds
// per GB to come back at each size and what it lost, each a range over the runs.
#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "report/choice_map.h"
#include "scenario/kit/ranges.h"
#include "scenario/recovery/json.h"
#include "scenario/recovery/recovery.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = recovery_json;

bool FillRecovery(const std::string& configuration, const json& doc, ChoiceRow* row, std::string* figure) {
  if (!doc.contains(key::kCells) || !doc[key::kCells].is_array()) return false;
  std::map<uint64_t, std::vector<double>> per_gb;  // by the memory the cell filled
  std::vector<double> lost;
  for (const json& c : doc[key::kCells]) {
    if (!c.is_object() || c.value(key::kConfiguration, "") != configuration || !c.contains(key::kSecondsPerGb) ||
        !c[key::kSecondsPerGb].is_number()) {
      continue;
    }
    per_gb[c.value(key::kMemory, uint64_t{0})].push_back(c[key::kSecondsPerGb].get<double>());
    lost.push_back(static_cast<double>(c.value(key::kLost, uint64_t{0})));
  }
  if (per_gb.empty()) return false;
  std::string text;
  for (const auto& [memory, values] : per_gb) {
    text += fmt::format("{}{} at {} MiB", text.empty() ? "" : ", ", RangeTextOf(values, "{:.2f}", "s/GB"),
                        memory >> 20);
  }
  row->faster = "comes back after a crash with its data";
  row->pay = fmt::format("{}; {} key(s) with acknowledged writes lost in the kill, per cell", text,
                         RangeTextOf(lost, "{:.0f}"));
  *figure = text;
  return true;
}

}  // namespace

std::vector<MeasuredChoiceRow> RecoveryChoiceRows() {
  const char* task = "comes back after a crash with what it acknowledged";
  std::vector<MeasuredChoiceRow> rows;
  for (const auto& [configuration, text] : std::vector<std::pair<std::string, std::string>>{
           {"rdb", "Redis with RDB snapshots"},
           {"aof-everysec", "Redis AOF appendfsync everysec"},
           {"aof-always", "Redis AOF appendfsync always"},
           {"tarantool-wal-write", "Tarantool memtx, snapshot + WAL, wal_mode write"},
           {"tarantool-wal-fsync", "Tarantool memtx, snapshot + WAL, wal_mode fsync"}}) {
    const std::string conf = configuration;
    rows.push_back({"recovery", task, text, "comes back after a crash with its data",
                    [conf](const json& d, ChoiceRow* r, std::string* f) { return FillRecovery(conf, d, r, f); }});
  }
  return rows;
}

}  // namespace memstand
