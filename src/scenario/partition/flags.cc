// partition's flags (docs/scenarios/partition.md), turned into PartitionOptions.
#include <memory>

#include <CLI/CLI.hpp>

#include "scenario/partition/partition.h"
#include "util/parse.h"
#include "util/redact.h"

namespace memstand {
namespace {

struct PartitionFlags {
  std::string duration = "25s";
  std::string cut_at = "3s";
  std::string partition = "8s";
  std::string settle = "20s";
  PartitionOptions options;
};

Result<PartitionOptions> BuildPartition(const PartitionFlags& f) {
  PartitionOptions o = f.options;
  for (const auto& [flag, text, out] : {std::tuple{"--duration", &f.duration, &o.duration_s},
                                        std::tuple{"--cut-at", &f.cut_at, &o.cut_at_s},
                                        std::tuple{"--partition", &f.partition, &o.partition_s},
                                        std::tuple{"--settle", &f.settle, &o.settle_s}}) {
    auto s = ParseDurationSeconds(*text);
    if (!s.ok()) return s.status().WithContext(flag);
    *out = *s;
  }
  if (Status s = ValidatePartition(o); !s.ok()) return s;
  return o;
}

}  // namespace

ScenarioPrepare SetupPartition(CLI::App* app) {
  auto f = std::make_shared<PartitionFlags>();
  app->add_option("--sides", f->options.sides,
                  "Where the clients are during the partition, each a cell of its own: with-primary (they still "
                  "reach the old primary), with-majority (cut off from it too)")
      ->delimiter(',');
  app->add_option("--min-replicas-to-write", f->options.min_replicas,
                  "min-replicas-to-write on every Redis, each value a cell of its own (0: off; 1: the mitigation)")
      ->delimiter(',');
  app->add_option("--max-lag", f->options.max_lag_s, "min-replicas-max-lag, seconds")->capture_default_str();
  app->add_option("--link-fault", f->options.link_fault,
                  "How a link is broken: blackhole (nothing passes, nothing is refused) or cut (reset and refused)")
      ->capture_default_str();
  app->add_option("--duration", f->duration, "The load's length in each cell")->capture_default_str();
  app->add_option("--cut-at", f->cut_at, "When the partition starts, from the load's start")->capture_default_str();
  app->add_option("--partition", f->partition, "How long it lasts before it heals")->capture_default_str();
  app->add_option("--fault", f->options.fault,
                  "A schedule of one's own instead of the sides (docs/faults.md): steps on the nodes (primary, "
                  "replica-1, replica-2, sentinel-1..3) and the links (peers, clients), e.g. "
                  "'blackhole peers at 3s; kill replica-2 at 5s; heal peers at 9s; restart replica-2 at 10s'");
  app->add_option("--settle", f->settle, "After the load, how long the old primary may take to follow the new one")
      ->capture_default_str();
  app->add_option("--rate", f->options.rate, "Operations per second (open loop), half writes")->capture_default_str();
  app->add_option("--clients", f->options.clients, "Connections of the load")->capture_default_str();
  app->add_option("--keys", f->options.keys, "Keys written and read")->capture_default_str();
  app->add_option("--node-timeout", f->options.node_timeout_ms, "The Sentinels' down-after-milliseconds")
      ->capture_default_str();
  return [f]() -> Result<ScenarioRun> {
    auto o = BuildPartition(*f);
    if (!o.ok()) return Status::InvalidArgument(RedactSecrets(o.status().message()));
    return ScenarioRun([o = *o](const ScenarioContext& ctx) { return RunPartition(o, ctx); });
  };
}

}  // namespace memstand
