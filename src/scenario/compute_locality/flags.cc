// compute-locality's flags (docs/scenarios/compute-locality.md), turned into ComputeLocalityOptions.
#include <memory>

#include <CLI/CLI.hpp>

#include "scenario/compute_locality/compute_locality.h"
#include "util/redact.h"

namespace memstand {

ScenarioPrepare SetupComputeLocality(CLI::App* app) {
  auto o = std::make_shared<ComputeLocalityOptions>();
  app->add_option("--reps", o->reps, "Timed calls of each path per pass (the median of these)")->capture_default_str();
  app->add_flag("--swap-order,!--no-swap-order", o->swap_order,
                "A second pass with the paths in reverse order (default: on)");
  app->add_option("--category", o->category, "The category of the top")->capture_default_str();
  app->add_option("--top", o->top, "Rows of the top")->capture_default_str();
  app->add_option("--only", o->systems, "Run only these systems (tarantool, redis, postgresql)")->delimiter(',');
  return [o]() -> Result<ScenarioRun> {
    Status s = ValidateComputeLocality(*o);
    if (!s.ok()) return Status::InvalidArgument(RedactSecrets(s.message()));
    return ScenarioRun([o = *o](const ScenarioContext& ctx) { return RunComputeLocality(o, ctx); });
  };
}

}  // namespace memstand
