// `memstand scenario list | run NAME`: the experiments (docs/scenarios.md). Flags map
// to each scenario's option struct; the scenario itself lives in src/scenario.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/interrupt.h"
#include "cli/subcommands.h"
#include "core/clock.h"
#include "scenario/catalog.h"
#include "scenario/compute_locality.h"
#include "scenario/durability_overload.h"
#include "scenario/mvcc_quota.h"
#include "scenario/output.h"
#include "scenario/replication_cost.h"
#include "scenario/stretched_cache.h"
#include "scenario/stretched_figures.h"
#include "scenario/working_set.h"
#include "util/output_file.h"
#include "util/parse.h"
#include "util/redact.h"

namespace memstand::cli {

namespace {

// Flags every scenario takes.
struct CommonFlags {
  int runs = 1;
  uint64_t seed = 1;
  std::string json, evidence;
  bool quiet = false;
};

void AddCommonFlags(CLI::App* app, CommonFlags* f) {
  app->add_option("--runs", f->runs, "Repeat the whole procedure N times; every figure becomes "
                                     "min / median / max with its N")->capture_default_str();
  app->add_option("--seed", f->seed, "Seed of the dataset and the values")
      ->capture_default_str()
      ->check(WholeNumberU64());
  app->add_option("--json", f->json, "Write the result as JSON (docs/scenarios.md)");
  app->add_option("--evidence", f->evidence, "Write the evidence folder: scenario.json, CSV tables, "
                                             "server configurations, log tails, README.txt");
  app->add_flag("-q,--quiet", f->quiet, "No progress lines on stderr");
}

// Runs `body` (the scenario) and writes what it produced. Returns the exit code.
template <class Body>
int RunScenario(const CLI::App* app, const CommonFlags& f, Body body) {
  if (f.runs < 1 || f.runs > 1000) {
    fmt::print(stderr, "memstand: --runs must be 1..1000, got {}\n", f.runs);
    return kExitUsage;
  }
  for (const auto& [flag, path] : {std::pair{"--json", &f.json}, std::pair{"--evidence", &f.evidence}}) {
    if (app->count(flag) > 0 && path->empty()) {
      fmt::print(stderr, "memstand: {}: an empty path\n", flag);
      return kExitUsage;
    }
  }
  if (!f.evidence.empty()) {
    Status s = CheckEvidenceDir(f.evidence);
    if (!s.ok()) {
      fmt::print(stderr, "memstand: {}\n", RedactSecrets(s.message()));
      return kExitUsage;
    }
  }
  std::unique_ptr<OutputFile> json;
  if (!f.json.empty()) {
    auto opened = OutputFile::Open("--json", f.json);
    if (!opened.ok()) {
      fmt::print(stderr, "memstand: {}\n", RedactSecrets(opened.status().message()));
      return kExitUsage;
    }
    json = std::move(*opened);
  }
  InstallInterruptHandlers();
  ScenarioContext ctx;
  ctx.seed = f.seed;
  ctx.runs = f.runs;
  ctx.interrupt = InterruptFlag();
  ctx.progress = f.quiet ? nullptr : stderr;
  ScenarioRunInfo info;
  info.command_line = CommandLine();
  info.started_at = WallClockIso();
  info.platform = Platform::Detect();
  Result<ScenarioReport> report = body(ctx);
  if (!report.ok()) {
    fmt::print(stderr, "memstand: {}\n", RedactSecrets(report.status().message()));
    return report.status().code() == Status::Code::kInvalidArgument ? kExitUsage : kExitFailed;
  }
  PrintScenarioReport(stdout, *report, info);
  std::fflush(stdout);
  int code = report->ExitCode();
  if (json != nullptr) {
    Status s = json->Write(ScenarioJson(*report, info).dump(2) + "\n");
    if (s.ok()) s = json->Commit();
    if (!s.ok()) {
      fmt::print(stderr, "memstand: {}\n", RedactSecrets(s.message()));
      code = kExitFailed;
    }
  }
  if (!f.evidence.empty()) {
    Status s = WriteEvidence(f.evidence, *report, info);
    if (!s.ok()) {
      fmt::print(stderr, "memstand: {}\n", s.message());  // it names --evidence and the path
      code = kExitFailed;
    }
  }
  return code;
}

struct WorkingSetFlags {
  CommonFlags common;
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

void SetupWorkingSet(CLI::App* run, std::vector<std::function<int()>>* bodies) {
  auto f = std::make_shared<WorkingSetFlags>();
  CLI::App* app = run->add_subcommand("working-set", ScenarioQuestion("working-set"));
  AddCommonFlags(app, &f->common);
  app->add_option("--records", f->records, "Records of the products dataset to load (ids 1..N)")->capture_default_str();
  app->add_option("--portion", f->portion, "Writes between two counter reads (the detection's resolution)")
      ->capture_default_str();
  app->add_option("--pipeline", f->pipeline, "Requests in flight on the one load connection")->capture_default_str();
  app->add_option("--config", f->configs, "Add a configuration: \"SYSTEM [KEY=VALUE ...]\", e.g. "
                                          "\"redis maxmemory=16mb maxmemory-policy=allkeys-lfu name=lfu\"");
  app->add_option("--only", f->only, "Run only these configurations (by name)")->delimiter(',');
  app->add_flag("--no-exact", f->no_exact, "Do not search the exact write of the first eviction");
  bodies->push_back([app, f]() -> int {
    if (!app->parsed()) return -1;
    auto o = BuildWorkingSet(*f);
    if (!o.ok()) {
      fmt::print(stderr, "memstand: {}\n", RedactSecrets(o.status().message()));
      return kExitUsage;
    }
    return RunScenario(app, f->common, [&](const ScenarioContext& ctx) { return RunWorkingSet(*o, ctx); });
  });
}

struct MvccQuotaFlags {
  CommonFlags common;
  std::string quota = "64MiB";
  MvccQuotaOptions options;
};

void SetupMvccQuota(CLI::App* run, std::vector<std::function<int()>>* bodies) {
  auto f = std::make_shared<MvccQuotaFlags>();
  CLI::App* app = run->add_subcommand("mvcc-quota", ScenarioQuestion("mvcc-quota"));
  AddCommonFlags(app, &f->common);
  app->add_option("--quota", f->quota, "etcd --quota-backend-bytes (64MiB, 128mb, ...)")->capture_default_str();
  app->add_option("--keys", f->options.keys, "The hot set: write i goes to key i mod KEYS")->capture_default_str();
  app->add_option("--writes", f->options.writes, "Writes in all")->capture_default_str();
  app->add_option("--value-size", f->options.value_size, "Bytes per value (random)")->capture_default_str();
  app->add_option("--portion", f->options.portion, "Writes between two status reads")->capture_default_str();
  app->add_option("--pipeline", f->options.pipeline, "Requests in flight per connection")->capture_default_str();
  bodies->push_back([app, f]() -> int {
    if (!app->parsed()) return -1;
    auto quota = ParseByteSize(f->quota);
    if (!quota.ok()) {
      fmt::print(stderr, "memstand: --quota: {}\n", quota.status().message());
      return kExitUsage;
    }
    MvccQuotaOptions o = f->options;
    o.quota_bytes = static_cast<int64_t>(*quota);
    Status s = ValidateMvccQuota(o);
    if (!s.ok()) {
      fmt::print(stderr, "memstand: {}\n", RedactSecrets(s.message()));
      return kExitUsage;
    }
    return RunScenario(app, f->common, [&](const ScenarioContext& ctx) { return RunMvccQuota(o, ctx); });
  });
}

struct ComputeLocalityFlags {
  CommonFlags common;
  ComputeLocalityOptions options;
};

void SetupComputeLocality(CLI::App* run, std::vector<std::function<int()>>* bodies) {
  auto f = std::make_shared<ComputeLocalityFlags>();
  CLI::App* app = run->add_subcommand("compute-locality", ScenarioQuestion("compute-locality"));
  AddCommonFlags(app, &f->common);
  app->add_option("--reps", f->options.reps, "Timed calls of each path per pass (the median of these)")
      ->capture_default_str();
  app->add_flag("--swap-order,!--no-swap-order", f->options.swap_order,
                "A second pass with the paths in reverse order (default: on)");
  app->add_option("--category", f->options.category, "The category of the top")->capture_default_str();
  app->add_option("--top", f->options.top, "Rows of the top")->capture_default_str();
  app->add_option("--only", f->options.systems, "Run only these systems (tarantool, redis, postgresql)")->delimiter(',');
  bodies->push_back([app, f]() -> int {
    if (!app->parsed()) return -1;
    Status s = ValidateComputeLocality(f->options);
    if (!s.ok()) {
      fmt::print(stderr, "memstand: {}\n", RedactSecrets(s.message()));
      return kExitUsage;
    }
    return RunScenario(app, f->common,
                       [&](const ScenarioContext& ctx) { return RunComputeLocality(f->options, ctx); });
  });
}

struct StretchedCacheFlags {
  CommonFlags common;
  std::string distances = "5ms,20ms,40ms";
  std::string relay_spin = "100us";
  StretchedCacheOptions options;
};

void SetupStretchedCache(CLI::App* run, std::vector<std::function<int()>>* bodies) {
  auto f = std::make_shared<StretchedCacheFlags>();
  CLI::App* app = run->add_subcommand("stretched-cache", ScenarioQuestion("stretched-cache"));
  AddCommonFlags(app, &f->common);
  app->add_option("--ops", f->options.ops, "Operations per series (the median of these; all kept in samples.csv)")
      ->capture_default_str();
  app->add_option("--distances", f->distances, "One-way delays of blocks (d) and (e), comma-separated; (c) runs "
                                               "at the first")
      ->capture_default_str();
  app->add_option("--load-rate", f->options.load_rate, "Block (c) under load: background SETs per second")
      ->capture_default_str();
  app->add_option("--relay-realtime", f->options.relay_realtime_priority,
                  "The relay's loop on SCHED_FIFO at this priority (0: the default scheduler; refused by the "
                  "kernel: the run says so and goes on without)")
      ->capture_default_str();
  app->add_option("--relay-spin", f->relay_spin,
                  "The relay polls this long before each chunk is due instead of sleeping (0: sleeps)")
      ->capture_default_str();
  bodies->push_back([app, f]() -> int {
    if (!app->parsed()) return -1;
    StretchedCacheOptions o = f->options;
    if (auto spin = ParseDurationSeconds(f->relay_spin); spin.ok() && *spin >= 0 && *spin <= 0.01) {
      o.relay_spin_ns = std::llround(*spin * 1e9);
    } else {
      fmt::print(stderr, "memstand: --relay-spin: expected a duration of 0..10ms, got '{}'\n", f->relay_spin);
      return kExitUsage;
    }
    auto distances = ParseDistances(f->distances);
    Status s = distances.ok() ? Status::OK() : distances.status();
    if (s.ok()) {
      o.distances_ns = *distances;
      s = ValidateStretchedCache(o);
    }
    if (!s.ok()) {
      fmt::print(stderr, "memstand: {}\n", RedactSecrets(s.message()));
      return kExitUsage;
    }
    return RunScenario(app, f->common, [&](const ScenarioContext& ctx) { return RunStretchedCache(o, ctx); });
  });
}

struct DurabilityOverloadFlags {
  CommonFlags common;
  DurabilityOverloadOptions options;
  std::string fsync = "everysec", sizes = "100,10k,256k", payloads = "random,compressible";
  std::string cell_duration = "2s", node_timeout = "15s", probe_size = "64MiB";
  bool no_gets = false, no_legacy = false;
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
  o.gets = !f.no_gets;
  o.legacy = !f.no_legacy;
  Status s = ValidateDurabilityOverload(o);
  if (!s.ok()) return s;
  return o;
}

void SetupDurabilityOverload(CLI::App* run, std::vector<std::function<int()>>* bodies) {
  auto f = std::make_shared<DurabilityOverloadFlags>();
  f->common.runs = 3;
  CLI::App* app = run->add_subcommand("durability-overload", ScenarioQuestion("durability-overload"));
  AddCommonFlags(app, &f->common);
  app->add_option("--masters", f->options.masters, "Masters of the Redis Cluster (no replicas)")->capture_default_str();
  app->add_option("--fsync", f->fsync, "AOF modes compared with no persistence: appendfsync always, everysec, no "
                                       "(a comma list)")->capture_default_str();
  app->add_option("--sizes", f->sizes, "Value sizes of the SET and GET cells (a comma list)")->capture_default_str();
  app->add_option("--payload", f->payloads, "Payloads: random, compressible (a comma list)")->capture_default_str();
  app->add_option("--cell-duration", f->cell_duration, "Measured time of each cell (2s, 500ms, ...)")->capture_default_str();
  app->add_option("--node-timeout", f->node_timeout, "cluster-node-timeout (15s, 2000ms, ...)")->capture_default_str();
  app->add_option("--clients", f->options.clients, "Load clients, each connected to every master")->capture_default_str();
  app->add_option("--pipeline", f->options.pipeline, "Requests in flight per master connection")->capture_default_str();
  app->add_option("--probe-size", f->probe_size, "Bytes of each content in the storage probe (0: no probe)")
      ->capture_default_str();
  app->add_flag("--no-gets", f->no_gets, "No GET cells");
  app->add_flag("--no-legacy", f->no_legacy, "No legacy-client block");
  bodies->push_back([app, f]() -> int {
    if (!app->parsed()) return -1;
    auto o = BuildDurabilityOverload(*f);
    if (!o.ok()) {
      fmt::print(stderr, "memstand: {}\n", RedactSecrets(o.status().message()));
      return kExitUsage;
    }
    return RunScenario(app, f->common, [&](const ScenarioContext& ctx) { return RunDurabilityOverload(*o, ctx); });
  });
}

struct ReplicationCostFlags {
  CommonFlags common;
  std::string concurrency = "1,4,16,64";
  std::string step = "2s";
  std::string sync_quorums = "majority,all";
  ReplicationCostOptions options;
};

void SetupReplicationCost(CLI::App* run, std::vector<std::function<int()>>* bodies) {
  auto f = std::make_shared<ReplicationCostFlags>();
  CLI::App* app = run->add_subcommand("replication-cost", ScenarioQuestion("replication-cost"));
  AddCommonFlags(app, &f->common);
  app->add_option("--concurrency", f->concurrency, "Connections of each step, increasing")->capture_default_str();
  app->add_option("--step-duration", f->step, "Measured time of each cell (path x concurrency)")
      ->capture_default_str();
  app->add_option("--only", f->options.systems, "Run only these systems (tarantool, redis)")->delimiter(',');
  app->add_option("--sync-quorum", f->sync_quorums,
                  "Tarantool's synchronous paths: majority (sync-write), all (sync-write-all), or both")
      ->capture_default_str();
  bodies->push_back([app, f]() -> int {
    if (!app->parsed()) return -1;
    ReplicationCostOptions o = f->options;
    auto levels = ParseConcurrency(f->concurrency);
    auto step = ParseDurationSeconds(f->step);
    auto quorums = ParseSyncQuorums(f->sync_quorums);
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
    if (!s.ok()) {
      fmt::print(stderr, "memstand: {}\n", RedactSecrets(s.message()));
      return kExitUsage;
    }
    return RunScenario(app, f->common, [&](const ScenarioContext& ctx) { return RunReplicationCost(o, ctx); });
  });
}

}  // namespace

SubcommandBody SetupScenario(CLI::App* app) {
  app->require_subcommand(1);
  CLI::App* list = app->add_subcommand("list", "Each scenario, its question, and whether its servers are installed");
  CLI::App* run = app->add_subcommand("run", "Run one scenario: memstand scenario run NAME [flags]");
  // Not require_subcommand: its error would not name the word it did not know.
  auto other = std::make_shared<std::string>();
  run->add_option("scenario", *other, "The scenario to run (memstand scenario list)");
  auto bodies = std::make_shared<std::vector<std::function<int()>>>();
  SetupWorkingSet(run, bodies.get());
  SetupMvccQuota(run, bodies.get());
  SetupComputeLocality(run, bodies.get());
  SetupStretchedCache(run, bodies.get());
  SetupDurabilityOverload(run, bodies.get());
  SetupReplicationCost(run, bodies.get());
  return [list, bodies, other]() -> int {
    if (list->parsed()) {
      fmt::print("{}", DescribeCatalog());
      return kExitOk;
    }
    for (const auto& body : *bodies) {
      int code = body();
      if (code >= 0) return code;
    }
    std::string known;
    for (const ScenarioEntry& e : ScenarioCatalog()) known += (known.empty() ? "" : ", ") + e.name;
    const std::string got = other->empty() ? "none given" : "unknown scenario '" + Abbreviate(*other) + "'";
    fmt::print(stderr, "memstand scenario run: {}; known: {}\n", got, known);
    return kExitUsage;
  };
}

}  // namespace memstand::cli
