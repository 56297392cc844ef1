// durability-overload's flags (docs/scenarios/durability-overload.md), turned into DurabilityOverloadOptions.
#include <algorithm>
#include <memory>

#include <CLI/CLI.hpp>

#include "scenario/durability_overload/durability_overload.h"
#include "util/parse.h"
#include "util/redact.h"

namespace memstand {
namespace {

struct DurabilityOverloadFlags {
  DurabilityOverloadOptions options;
  std::string fsync = "everysec", sizes = "100,10k,256k", payloads = "random,compressible";
  std::string cell_duration = "2s", node_timeout = "15s", probe_size = "64MiB";
  bool no_gets = false, no_legacy = false;
  std::string data_bytes = "64MiB";
};

Result<DurabilityOverloadOptions> BuildDurabilityOverload(const DurabilityOverloadFlags& f) {
  DurabilityOverloadOptions o = f.options;
  auto fsync = ParseFsyncList(f.fsync);
  if (!fsync.ok()) return fsync.status();
  auto sizes = ParseSizeList(f.sizes);
  if (!sizes.ok()) return sizes.status();
  auto payloads = ParsePayloadList(f.payloads);
  if (!payloads.ok()) return payloads.status();
  auto duration = ParseDurationSeconds(f.cell_duration);
  if (!duration.ok()) return duration.status().WithContext("--cell-duration");
  auto timeout = ParseDurationSeconds(f.node_timeout);
  if (!timeout.ok()) return timeout.status().WithContext("--node-timeout");
  uint64_t probe = 0;
  if (f.probe_size != "0") {
    auto p = ParseByteSize(f.probe_size);
    if (!p.ok()) return p.status().WithContext("--probe-size");
    probe = *p;
  }
  o.fsync = *fsync;
  o.sizes = *sizes;
  o.payloads = *payloads;
  o.cell_duration_s = *duration;
  o.node_timeout_ms = static_cast<int>(std::min(*timeout * 1000, 1e9));
  o.probe_bytes = probe;
  auto data = ParseByteSize(f.data_bytes);
  if (!data.ok()) return Status::InvalidArgument("--data-bytes: " + data.status().message());
  o.data_bytes = *data;
  o.gets = !f.no_gets;
  o.legacy = !f.no_legacy;
  Status s = ValidateDurabilityOverload(o);
  if (!s.ok()) return s;
  return o;
}

}  // namespace

ScenarioPrepare SetupDurabilityOverload(CLI::App* app) {
  auto f = std::make_shared<DurabilityOverloadFlags>();
  app->add_option("--masters", f->options.masters, "Masters of the Redis Cluster")->capture_default_str();
  app->add_option("--replicas", f->options.replicas,
                  "Replicas per master (0..3), with the mode's persistence too")->capture_default_str();
  app->add_option("--fsync", f->fsync, "AOF modes compared with no persistence: appendfsync always, everysec, no "
                                       "(a comma list)")->capture_default_str();
  app->add_option("--sizes", f->sizes, "Value sizes of the SET and GET cells (a comma list)")->capture_default_str();
  app->add_option("--payload", f->payloads, "Payloads: random, compressible (a comma list)")->capture_default_str();
  app->add_option("--cell-duration", f->cell_duration, "Measured time of each cell (2s, 500ms, ...)")->capture_default_str();
  app->add_option("--node-timeout", f->node_timeout, "cluster-node-timeout (15s, 2000ms, ...)")->capture_default_str();
  app->add_option("--clients", f->options.clients, "Load clients, each connected to every master")->capture_default_str();
  app->add_option("--pipeline", f->options.pipeline, "Requests in flight per master connection")->capture_default_str();
  app->add_option("--threads", f->options.threads, "Load threads, the clients spread over them")->capture_default_str();
  app->add_option("--keys", f->options.keys, "Keys per size (0: --data-bytes / size, at most 20000)")
      ->capture_default_str();
  app->add_option("--data-bytes", f->data_bytes, "Bytes of values kept per size, when --keys is 0")
      ->capture_default_str();
  app->add_option("--compress-ratio", f->options.compress_ratio,
                  "How many times zstd compresses the compressible payload (1..1000)")
      ->capture_default_str();
  app->add_option("--probe-size", f->probe_size, "Bytes of each content in the storage probe (0: no probe)")
      ->capture_default_str();
  app->add_flag("--no-gets", f->no_gets, "No GET cells");
  app->add_flag("--no-legacy", f->no_legacy, "No legacy-client block");
  return [f]() -> Result<ScenarioRun> {
    auto o = BuildDurabilityOverload(*f);
    if (!o.ok()) return Status::InvalidArgument(RedactSecrets(o.status().message()));
    return ScenarioRun([o = *o](const ScenarioContext& ctx) { return RunDurabilityOverload(o, ctx); });
  };
}

}  // namespace memstand
