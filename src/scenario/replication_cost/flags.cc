// replication-cost's flags (docs/scenarios/replication-cost.md), turned into ReplicationCostOptions.
#include <memory>

#include <CLI/CLI.hpp>

#include "scenario/replication_cost/replication_cost.h"
#include "util/parse.h"
#include "util/redact.h"

namespace memstand {
namespace {

struct ReplicationCostFlags {
  std::string concurrency = "1,4,16,64";
  std::string step = "2s";
  std::string sync_quorums = "majority,all";
  ReplicationCostOptions options;
};

Result<ReplicationCostOptions> BuildReplicationCost(const ReplicationCostFlags& f) {
  ReplicationCostOptions o = f.options;
  auto levels = ParseConcurrency(f.concurrency);
  auto step = ParseDurationSeconds(f.step);
  auto quorums = ParseSyncQuorums(f.sync_quorums);
  Status s = !levels.ok()    ? levels.status()
             : !step.ok()    ? step.status().WithContext("--step-duration")
             : !quorums.ok() ? quorums.status()
                             : Status::OK();
  if (s.ok()) {
    o.concurrency = *levels;
    o.step_s = *step;
    o.sync_quorums = *quorums;
    s = ValidateReplicationCost(o);
  }
  if (!s.ok()) return s;
  return o;
}

}  // namespace

ScenarioPrepare SetupReplicationCost(CLI::App* app) {
  auto f = std::make_shared<ReplicationCostFlags>();
  app->add_option("--concurrency", f->concurrency, "Connections of each step, increasing")->capture_default_str();
  app->add_option("--step-duration", f->step, "Measured time of each cell (path x concurrency)")
      ->capture_default_str();
  app->add_option("--only", f->options.systems, "Run only these systems (tarantool, redis)")->delimiter(',');
  app->add_option("--sync-quorum", f->sync_quorums,
                  "Tarantool's synchronous paths: majority (sync-write), all (sync-write-all), or both")
      ->capture_default_str();
  return [f]() -> Result<ScenarioRun> {
    auto o = BuildReplicationCost(*f);
    if (!o.ok()) return Status::InvalidArgument(RedactSecrets(o.status().message()));
    return ScenarioRun([o = *o](const ScenarioContext& ctx) { return RunReplicationCost(o, ctx); });
  };
}

}  // namespace memstand
