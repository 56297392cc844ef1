// failover's rows of the choice map (docs/choice-map.md, report/choice_map.h), filled
// from its JSON: per configuration, how long the primary's death (kill) kept writes out
// and what the checks found, each a range over the runs' kill cells.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report/choice_map.h"
#include "scenario/kit/ranges.h"
#include "scenario/failover/failover.h"
#include "scenario/failover/json.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = failover_json;

bool FillFailover(const std::string& configuration, const json& doc, ChoiceRow* row, std::string* figure) {
  if (!doc.contains(key::kCells) || !doc[key::kCells].is_array()) return false;
  std::vector<double> outage, lost, nonlin;
  for (const json& c : doc[key::kCells]) {
    if (!c.is_object() || c.value(key::kConfiguration, "") != configuration || c.value(key::kFault, "") != "kill" ||
        !c.contains(key::kOutageS) || !c[key::kOutageS].is_number()) {
      continue;
    }
    outage.push_back(c[key::kOutageS].get<double>());
    lost.push_back(static_cast<double>(c.value(key::kLost, uint64_t{0})));
    nonlin.push_back(static_cast<double>(c.value(key::kNotLinearizable, uint64_t{0})));
  }
  if (outage.empty()) return false;
  row->faster = "survives its primary's death under load";
  row->pay = fmt::format("writes out for {} after the kill; {} acknowledged write(s) lost, {} read(s) not "
                         "linearizable, per run",
                         RangeTextOf(outage, "{:.2f}", "s"), RangeTextOf(lost, "{:.0f}"),
                         RangeTextOf(nonlin, "{:.0f}"));
  *figure = fmt::format("outage {}, lost {}", RangeTextOf(outage, "{:.2f}", "s"), RangeTextOf(lost, "{:.0f}"));
  return true;
}

// The WAIT configurations' rows, read like the others from their cells.
void AddWaitRows(const char* task, std::vector<MeasuredChoiceRow>* rows) {
  for (const auto& [configuration, text] : std::vector<std::pair<std::string, std::string>>{
           {"redis-cluster-wait", "Redis Cluster, a replica per master, WAIT 1 after every write"},
           {"redis-sentinel-wait", "Redis primary + 2 replicas + 3 Sentinels, WAIT 1 after every write"}}) {
    const std::string conf = configuration;
    rows->push_back({"failover", task, text, "survives its primary's death under load",
                     [conf](const json& d, ChoiceRow* r, std::string* f) { return FillFailover(conf, d, r, f); }});
  }
}

}  // namespace

std::vector<MeasuredChoiceRow> FailoverChoiceRows() {
  const char* task = "keeps taking writes when its primary dies";
  std::vector<MeasuredChoiceRow> rows;
  for (const auto& [configuration, text] : std::vector<std::pair<std::string, std::string>>{
           {"redis-cluster", "Redis Cluster, a replica per master (asynchronous)"},
           {"redis-sentinel", "Redis primary + 2 replicas + 3 Sentinels (asynchronous)"},
           {"etcd", "etcd, 3 members (Raft)"},
           {"tarantool", "Tarantool 2.6 master + 2 replicas (asynchronous; failed over by memstand, no election)"}}) {
    const std::string conf = configuration;
    rows.push_back({"failover", task, text, "survives its primary's death under load",
                    [conf](const json& d, ChoiceRow* r, std::string* f) { return FillFailover(conf, d, r, f); }});
  }
  AddWaitRows(task, &rows);
  return rows;
}

}  // namespace memstand
