// failover's flags (docs/scenarios/failover.md), turned into FailoverOptions.
#include <memory>

#include <CLI/CLI.hpp>

#include "scenario/failover/failover.h"
#include "util/parse.h"
#include "util/redact.h"

namespace memstand {
namespace {

struct FailoverFlags {
  std::string duration = "10s";
  std::string fault_at = "3s";
  std::string pause = "4s";
  FailoverOptions options;
};

Result<FailoverOptions> BuildFailover(const FailoverFlags& f) {
  FailoverOptions o = f.options;
  auto duration = ParseDurationSeconds(f.duration);
  if (!duration.ok()) return duration.status().WithContext("--duration");
  auto at = ParseDurationSeconds(f.fault_at);
  if (!at.ok()) return at.status().WithContext("--fault-at");
  auto pause = ParseDurationSeconds(f.pause);
  if (!pause.ok()) return pause.status().WithContext("--pause");
  o.duration_s = *duration;
  o.fault_at_s = *at;
  o.pause_s = *pause;
  if (Status s = ValidateFailover(o); !s.ok()) return s;
  return o;
}

}  // namespace

ScenarioPrepare SetupFailover(CLI::App* app) {
  auto f = std::make_shared<FailoverFlags>();
  app->add_option("--only", f->options.configurations, "Run only these configurations (redis-cluster, redis-cluster-wait, redis-sentinel, "
                  "redis-sentinel-wait, etcd, tarantool)")
      ->delimiter(',');
  app->add_option("--faults", f->options.faults, "The faults, each a cell of its own: kill, pause")->delimiter(',');
  app->add_option("--duration", f->duration, "The load's length in each cell")->capture_default_str();
  app->add_option("--fault-at", f->fault_at, "When the fault comes, from the load's start")->capture_default_str();
  app->add_option("--pause", f->pause, "pause: how long the primary stays stopped")->capture_default_str();
  app->add_option("--rate", f->options.rate, "Operations per second (open loop), half writes")
      ->capture_default_str();
  app->add_option("--clients", f->options.clients, "Connections of the load")->capture_default_str();
  app->add_option("--keys", f->options.keys, "Keys written and read")->capture_default_str();
  app->add_flag("--plant-loss", f->options.plant_loss,
                "A control of the checks (redis-cluster): cut the replica off a second before the fault, so that "
                "acknowledged writes are lost and must be reported (exit 4)");
  return [f]() -> Result<ScenarioRun> {
    auto o = BuildFailover(*f);
    if (!o.ok()) return Status::InvalidArgument(RedactSecrets(o.status().message()));
    return ScenarioRun([o = *o](const ScenarioContext& ctx) { return RunFailover(o, ctx); });
  };
}

}  // namespace memstand
