// recovery's rows of the choice map (docs/choice-map.md): per configuration, run 1's
// seconds per GB to come back, and what it lost.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report/choice_map.h"
#include "scenario/recovery/json.h"
#include "scenario/recovery/recovery.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = recovery_json;

bool FillRecovery(const std::string& configuration, const json& doc, ChoiceRow* row, std::string* figure) {
  if (!doc.contains(key::kCells) || !doc[key::kCells].is_array()) return false;
  std::string per_gb;
  uint64_t lost = 0;
  for (const json& c : doc[key::kCells]) {
    if (!c.is_object() || c.value(key::kRun, 0) != 1 || c.value(key::kConfiguration, "") != configuration ||
        !c.contains(key::kSecondsPerGb) || !c[key::kSecondsPerGb].is_number()) {
      continue;
    }
    per_gb += fmt::format("{}{:.2f} s/GB at {} MiB", per_gb.empty() ? "" : ", ", c[key::kSecondsPerGb].get<double>(),
                          c.value(key::kMemory, uint64_t{0}) >> 20);
    lost += c.value(key::kLost, uint64_t{0});
  }
  if (per_gb.empty()) return false;
  row->faster = "comes back after a crash with its data";
  row->pay = fmt::format("{}; {} key(s) with acknowledged writes lost in the kill", per_gb, lost);
  *figure = per_gb;
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
