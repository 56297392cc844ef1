// working-set's flags (docs/scenarios/working-set.md), turned into WorkingSetOptions.
#include <algorithm>
#include <memory>

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include "scenario/working_set/working_set.h"
#include "util/parse.h"
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
  std::string writers = "1";
  double rate = 0;
  std::string reads;  // "": none
  double read_rate = ReadOptions().rate;
  int64_t read_count = static_cast<int64_t>(ReadOptions().count);  // signed: "-3" is refused as -3
  bool read_rate_given = false, read_count_given = false;
};

Result<ReadOptions> BuildReads(const WorkingSetFlags& f) {
  ReadOptions r;
  if (f.reads.empty()) {
    if (f.read_rate_given || f.read_count_given) {
      return Status::InvalidArgument(std::string(f.read_rate_given ? "--read-rate" : "--read-count") +
                                     ": only with --reads uniform|zipf|gaussian");
    }
    return r;
  }
  auto d = ParseReadDistribution(f.reads);
  if (!d.ok()) return d.status();
  r.distribution = *d;
  r.rate = f.read_rate;
  if (f.read_count < 1) {
    return Status::InvalidArgument(fmt::format("--read-count must be 1..{}, got {}", kMaxReadCount, f.read_count));
  }
  r.count = static_cast<uint64_t>(f.read_count);
  Status s = ValidateReadOptions(r);
  if (!s.ok()) return s;
  return r;
}

Result<WorkingSetOptions> BuildWorkingSet(const WorkingSetFlags& f) {
  WorkingSetOptions o;
  o.records = f.records;
  o.portion = f.portion;
  o.pipeline = f.pipeline;
  o.exact = !f.no_exact;
  auto writers = ParseIncreasingList(f.writers);
  if (!writers.ok()) return Status::InvalidArgument("--writers: " + writers.status().message());
  o.writers.clear();
  for (uint64_t w : *writers) {
    if (w > 1024) return Status::InvalidArgument(fmt::format("--writers: at most 1024 a setting, got {}", w));
    o.writers.push_back(static_cast<int>(w));
  }
  o.rate = f.rate;
  auto reads = BuildReads(f);
  if (!reads.ok()) return reads.status();
  o.reads = *reads;
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
  app->add_option("--writers", f->writers,
                  "Writers (connections) at the same time, one setting each: \"1,16\" loads every "
                  "configuration once with 1 and once with 16")
      ->capture_default_str();
  app->add_option("--rate", f->rate, "Writes per second in all (open loop; default: as fast as the server answers)");
  app->add_option("--reads", f->reads,
                  "After each configuration's load, read keys of the ids written: uniform, zipf or gaussian "
                  "(default: no reads)");
  auto* read_rate =
      app->add_option("--read-rate", f->read_rate, "Reads a second (with --reads)")->capture_default_str();
  auto* read_count =
      app->add_option("--read-count", f->read_count, "Reads per configuration (with --reads)")->capture_default_str();
  return [f, read_rate, read_count]() -> Result<ScenarioRun> {
    f->read_rate_given = read_rate->count() > 0;
    f->read_count_given = read_count->count() > 0;
    auto o = BuildWorkingSet(*f);
    if (!o.ok()) return Status::InvalidArgument(RedactSecrets(o.status().message()));
    return ScenarioRun([o = *o](const ScenarioContext& ctx) { return RunWorkingSet(o, ctx); });
  };
}

}  // namespace memstand
