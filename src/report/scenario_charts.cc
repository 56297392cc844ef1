#include "report/scenario_charts.h"

namespace memstand {
namespace {

struct ScenarioChartsEntry {
  const char* scenario;
  ScenarioChartsFn fn;
};

// One row per scenario with charts of its own (a scenario without one gets its blocks
// and tables only).
const ScenarioChartsEntry kScenarioCharts[] = {
    {"working-set", WorkingSetCharts},
    {"mvcc-quota", MvccQuotaCharts},
    {"compute-locality", ComputeLocalityCharts},
    {"stretched-cache", StretchedCacheCharts},
    {"durability-overload", DurabilityOverloadCharts},
    {"replication-cost", ReplicationCostCharts},
};

}  // namespace

ScenarioChartsFn ScenarioChartsFor(const std::string& scenario) {
  for (const ScenarioChartsEntry& e : kScenarioCharts) {
    if (scenario == e.scenario) return e.fn;
  }
  return nullptr;
}

}  // namespace memstand
