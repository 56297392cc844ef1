// working-set's flags (docs/scenarios/working-set.md), turned into WorkingSetOptions.
#include <algorithm>
#include <memory>

#include <CLI/CLI.hpp>

#include "scenario/working_set/working_set.h"
#include "util/redact.h"

namespace memstand {
namespace {

struct WorkingSetFlags {
  uint32_t records = 200000;
  uint32_t portion = 10000;
  int pipeline = 16;
  std::vector<std::string> configs;
  std::vector<std::string> only;
  bool no_exact = false;
};

Result<WorkingSetOptions> BuildWorkingSet(const WorkingSetFlags& f) {
  WorkingSetOptions o;
  o.records = f.records;
  o.portion = f.portion;
  o.pipeline = f.pipeline;
  o.exact = !f.no_exact;
  o.configs = DefaultWorkingSetConfigs();
  for (size_t i = 0; i < f.configs.size(); ++i) {
    auto c = ParseServerConfig(f.configs[i], static_cast<int>(i + 1));
    if (!c.ok()) return c.status();
    o.configs.push_back(*c);
  }
  if (!f.only.empty()) {
    std::vector<ServerConfig> kept;
    for (const std::string& name : f.only) {
      auto it = std::find_if(o.configs.begin(), o.configs.end(), [&](const ServerConfig& c) { return c.name == name; });
      if (it == o.configs.end()) {
        std::string known;
        for (const ServerConfig& c : o.configs) known += (known.empty() ? "" : ", ") + c.name;
        return Status::InvalidArgument("--only: no configuration '" + name.substr(0, 80) + "'; known: " + known);
      }
      kept.push_back(*it);
    }
    o.configs = kept;
  }
  Status s = ValidateWorkingSet(o);
  if (!s.ok()) return s;
  return o;
}

}  // namespace

ScenarioPrepare SetupWorkingSet(CLI::App* app) {
  auto f = std::make_shared<WorkingSetFlags>();
  app->add_option("--records", f->records, "Records of the products dataset to load (ids 1..N)")->capture_default_str();
  app->add_option("--portion", f->portion, "Writes between two counter reads (the detection's resolution)")
      ->capture_default_str();
  app->add_option("--pipeline", f->pipeline, "Requests in flight on the one load connection")->capture_default_str();
  app->add_option("--config", f->configs, "Add a configuration: \"SYSTEM [KEY=VALUE ...]\", e.g. "
                                          "\"redis maxmemory=16mb maxmemory-policy=allkeys-lfu name=lfu\"");
  app->add_option("--only", f->only, "Run only these configurations (by name)")->delimiter(',');
  app->add_flag("--no-exact", f->no_exact, "Do not search the exact write of the first eviction");
  return [f]() -> Result<ScenarioRun> {
    auto o = BuildWorkingSet(*f);
    if (!o.ok()) return Status::InvalidArgument(RedactSecrets(o.status().message()));
    return ScenarioRun([o = *o](const ScenarioContext& ctx) { return RunWorkingSet(o, ctx); });
  };
}

}  // namespace memstand
