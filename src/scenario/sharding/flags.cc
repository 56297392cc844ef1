// sharding's flags (docs/scenarios/sharding.md), turned into ShardingOptions; its report
// page charts and choice-map rows (none yet: its tables are in the JSON and the
// evidence folder).
#include <memory>
#include <tuple>

#include <CLI/CLI.hpp>

#include "report/choice_map.h"
#include "scenario/sharding/sharding.h"
#include "util/parse.h"
#include "util/redact.h"

namespace memstand {
namespace {

struct ShardingFlags {
  bool smallest = false;
  std::string ratios, storages, concurrency, step;
  int ratio_storages = 0, replicas = 0;
};

Result<ShardingOptions> BuildSharding(const ShardingFlags& f) {
  ShardingOptions o = f.smallest ? SmallestSharding() : ShardingOptions{};
  for (const auto& [text, flag, out] : {std::tuple{&f.ratios, "--routers-per-storage", &o.ratios},
                                        std::tuple{&f.storages, "--storages", &o.storages},
                                        std::tuple{&f.concurrency, "--concurrency", &o.concurrency}}) {
    if (text->empty()) continue;
    auto values = ParseIncreasingList(*text);
    if (!values.ok()) return Status::InvalidArgument(std::string(flag) + ": " + values.status().message());
    *out = *values;
  }
  if (!f.step.empty()) {
    auto step = ParseDurationSeconds(f.step);
    if (!step.ok()) return step.status().WithContext("--step-duration");
    o.step_s = *step;
  }
  if (f.ratio_storages > 0) o.ratio_storages = f.ratio_storages;
  if (f.replicas > 0) o.replicas = f.replicas;
  if (Status s = ValidateSharding(o); !s.ok()) return s;
  return o;
}

}  // namespace

ScenarioPrepare SetupSharding(CLI::App* app) {
  auto f = std::make_shared<ShardingFlags>();
  app->add_flag("--smallest", f->smallest,
                "The smallest size: routers per storage 1,2; storages 1,2; 1,4 connections per router; 0.5 s steps");
  app->add_option("--routers-per-storage", f->ratios, "The first sweep's ratios, increasing (default 1,2,4,7)");
  app->add_option("--ratio-storages", f->ratio_storages, "The first sweep's storage count (default 1)");
  app->add_option("--storages", f->storages, "The second sweep's storage counts, increasing (default 1,2,4)");
  app->add_option("--replicas", f->replicas, "Replicas of each storage's master (default 1)");
  app->add_option("--concurrency", f->concurrency, "Connections per router at each step, increasing (default 1,4,16)");
  app->add_option("--step-duration", f->step, "Measured time of each step and matrix cell (default 2s)");
  return [f]() -> Result<ScenarioRun> {
    auto o = BuildSharding(*f);
    if (!o.ok()) return Status::InvalidArgument(RedactSecrets(o.status().message()));
    return ScenarioRun([o = *o](const ScenarioContext& ctx) { return RunSharding(o, ctx); });
  };
}

void ShardingCharts(const ReportInput&, ReportSection*) {}

std::vector<MeasuredChoiceRow> ShardingChoiceRows() { return {}; }

}  // namespace memstand
