// `memstand sweep`: the run's flags plus one knob swept over a list of values; a run
// per value against one server, a row per step, and the knee (docs/method.md rule 14).
// With --sweep-set or --sweep-topology, an outer axis: a fresh topology for each point
// (a server setting's value, or a cluster's size) and each of --runs, the load sweep
// against it, and the knee per point (report/point_sweep.h).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include <unistd.h>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/run_flags.h"
#include "cli/run_session.h"
#include "cli/subcommands.h"
#include "core/pacer.h"
#include "client/redis_client.h"
#include "cli/interrupt.h"
#include "report/point_sweep.h"
#include "report/slo_search.h"
#include "report/sweep_report.h"
#include "report/validity.h"
#include "stand/topology.h"
#include "util/parse.h"

namespace memstand::cli {

namespace {

struct SweepFlags {
  std::string clients, pipeline, rate;
  // --slo: search the open-loop rate instead of stepping a knob.
  std::string slo;
  double confidence = 95;
  double slo_max_rate = 1e7;
  double slo_precision = 5;  // percent
  int slo_repeat = 3;
  int slo_max_runs = 30;
  std::string runs;  // --runs N: only with an outer axis (runs per point)
  // The outer axis: a fresh topology per point.
  std::string sweep_set;       // "KEY=V1,V2,..." (a server setting)
  std::string sweep_topology;  // "masters=3,6,9" or "replicas=0,1" (redis-cluster)
};

struct Axis {
  std::string knob;  // "clients", "pipeline" or "rate"
  std::vector<uint64_t> values;
};

Result<Axis> ParseAxis(const SweepFlags& f) {
  const std::pair<const char*, const std::string*> knobs[] = {
      {"clients", &f.clients}, {"pipeline", &f.pipeline}, {"rate", &f.rate}};
  Axis axis;
  int given = 0;
  for (const auto& [knob, text] : knobs) {
    if (text->empty()) continue;
    ++given;
    auto values = ParseIncreasingList(*text);
    std::string flag = std::string("--sweep-") + knob;
    if (!values.ok()) return Status::InvalidArgument(flag + ": " + values.status().message());
    axis = {knob, *values};
  }
  if (given != 1) {
    return Status::InvalidArgument(
        "give exactly one of --sweep-clients, --sweep-pipeline, --sweep-rate");
  }
  return axis;
}

// The limits of the run's own flags (run_flags.cc) hold for swept values too.
Status CheckAxis(const Axis& axis) {
  const uint64_t limit = axis.knob == "clients" ? 100000 : axis.knob == "pipeline" ? 65536 : 0;
  if (limit != 0 && axis.values.back() > limit) {
    return Status::InvalidArgument(fmt::format("--sweep-{}: {} is above the limit {}", axis.knob,
                                               axis.values.back(), limit));
  }
  return Status::OK();
}

// Outputs that describe one run: a sweep has no place for them (it used to accept
// --samples and --json-format memtier and write nothing, or an empty file).
Status CheckOneRunOutputs(const RunConfig& cfg) {
  if (!cfg.hgrm_path.empty()) {
    return Status::InvalidArgument("--hgrm: not available with sweep (the steps' "
                                   "distributions differ; --json has each step's)");
  }
  if (!cfg.samples_path.empty()) {
    return Status::InvalidArgument("--samples: not available with sweep (samples describe one "
                                   "run; use memstand run at the step's value)");
  }
  if (cfg.json_memtier) {
    return Status::InvalidArgument("--json-format memtier: not available with sweep (its "
                                   "--json is memstand.sweep, docs/json-format.md)");
  }
  return Status::OK();
}

LoadOptions AtStep(const LoadOptions& base, const Axis& axis, uint64_t x) {
  LoadOptions o = base;
  if (axis.knob == "clients") o.clients = static_cast<int>(x);
  if (axis.knob == "pipeline") o.pipeline = static_cast<int>(x);
  if (axis.knob == "rate") o.rate = static_cast<double>(x);
  return o;
}

void PrintIntro(const RunSession& session, const RunConfig& cfg, const Axis& axis) {
  const LoadOptions& o = cfg.load;
  std::string values;
  for (uint64_t v : axis.values) values += (values.empty() ? "" : ",") + std::to_string(v);
  fmt::print("memstand {} sweep over {}: {}\n", MEMSTAND_VERSION, axis.knob, values);
  if (cfg.quiet) return;
  fmt::print("    target {} — {}\n", o.target.Display(), session.server_note());
  fmt::print("    {}\n", session.platform().Describe());
  std::string length = o.requests > 0 ? fmt::format("{} requests", o.requests)
                                      : fmt::format("{:g} s", o.duration_s);
  fmt::print("    each step: {} thread(s) x {} clients x pipeline {}{}, {} after {:g} s warm-up\n",
             o.threads, o.clients, o.pipeline,
             o.rate > 0 ? fmt::format(", rate {:g}/s", o.rate) : "", length, o.warmup_s);
  fmt::print("    (the swept knob replaces its flag; client core: load threads' CPU s / "
             "measured s)\n");
}

SweepOutcome Sweep(RunSession& session, const LoadOptions& base, const Axis& axis,
                   const std::string& prefix = "") {
  SweepOutcome out;
  out.knob = axis.knob;
  out.values = axis.values;
  PrintSweepHeader(stdout, axis.knob);
  for (size_t i = 0; i < axis.values.size() && !session.interrupted(); ++i) {
    uint64_t x = axis.values[i];
    std::string label = fmt::format("{}{}={} ({}/{})", prefix, axis.knob, x, i + 1, axis.values.size());
    auto run = session.Measure(AtStep(base, axis, x), label);
    out.steps.push_back(run.ok() ? StepOf(x, (*run)->report) : UnmeasuredStep(x, run.status().message()));
    PrintSweepRow(stdout, out.steps.back());
  }
  out.interrupted = session.interrupted();
  Conclude(&out);
  return out;
}


// --sweep-set KEY=V1,V2 or --sweep-topology masters=3,6,9: the outer axis.
struct OuterAxis {
  std::string axis;  // "set" or "topology"
  std::string key;
  std::vector<std::string> values;
};

Result<std::optional<OuterAxis>> ParseOuter(const SweepFlags& f) {
  if (f.sweep_set.empty() && f.sweep_topology.empty()) return std::optional<OuterAxis>();
  if (!f.sweep_set.empty() && !f.sweep_topology.empty()) {
    return Status::InvalidArgument("give one of --sweep-set and --sweep-topology: a sweep has one outer axis");
  }
  const bool set = !f.sweep_set.empty();
  const std::string flag = set ? "--sweep-set" : "--sweep-topology";
  const std::string& text = set ? f.sweep_set : f.sweep_topology;
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    return Status::InvalidArgument(flag + ": " + text + " is not KEY=V1,V2,... (e.g. " +
                                   (set ? "maxmemory-policy=allkeys-lru,allkeys-lfu" : "masters=3,6,9") + ")");
  }
  OuterAxis o{set ? "set" : "topology", text.substr(0, eq), {}};
  auto values = ParseWordList(text.substr(eq + 1), flag);
  if (!values.ok()) return values.status();
  o.values = *values;
  if (set) return std::optional<OuterAxis>(o);
  if (o.key != "masters" && o.key != "replicas") {
    return Status::InvalidArgument(flag + ": " + o.key +
                                   " is not a size this sweep stands up: masters (of a redis-cluster) or "
                                   "replicas (per master)");
  }
  for (const std::string& v : o.values) {
    auto n = ParseIncreasingList(v);
    if (!n.ok() && !(o.key == "replicas" && v == "0")) {
      return Status::InvalidArgument(fmt::format("{}: {}={} is not a whole number{}", flag, o.key, v,
                                                 o.key == "masters" ? " from 1" : ""));
    }
  }
  return std::optional<OuterAxis>(o);
}

// The topology of one point: a server of the protocol's kind with the setting, or a
// redis-cluster of the point's size. Named after this process, so that a topology of
// `memstand up` of the same kind is never in the way.
TopologySpec SpecAt(const OuterAxis& outer, const RunConfig& cfg, const std::string& value) {
  TopologySpec spec;
  spec.name = fmt::format("sweep-{}", getpid());
  if (outer.axis == "topology") {
    spec.kind = TopologyKind::kRedisCluster;
    spec.binary = cfg.redis_server;
    if (outer.key == "masters") spec.masters = std::stoi(value);
    if (outer.key == "replicas") spec.replicas = std::stoi(value);
    return spec;
  }
  switch (cfg.load.protocol) {
    case Protocol::kMemcache: spec.kind = TopologyKind::kMemcached; break;
    case Protocol::kIproto: spec.kind = TopologyKind::kTarantool; break;
    case Protocol::kEtcd: spec.kind = TopologyKind::kEtcd; break;
    default: spec.kind = TopologyKind::kRedis; spec.binary = cfg.redis_server; break;
  }
  spec.settings = {{outer.key, value}};
  return spec;
}

// What the server says it runs with: the setting (CONFIG GET) for a redis, the cluster's
// size (CLUSTER INFO) for a redis-cluster; "" where memstand has no reader for it.
std::string ReadBack(const OuterAxis& outer, const TopologySpec& spec, const NodeRecord& node) {
  if (spec.kind != TopologyKind::kRedis && spec.kind != TopologyKind::kRedisCluster) return "";
  auto c = RedisClient::Connect(node.host, node.port, 5000);
  if (!c.ok()) return "not read: " + c.status().message();
  if (outer.axis == "set") {
    auto r = (*c)->Command({"CONFIG", "GET", outer.key});
    if (!r.ok() || r->is_error() || r->elements.size() < 2) {
      return "not read: " + (r.ok() ? (r->is_error() ? r->str : "no such setting") : r.status().message());
    }
    return "CONFIG GET " + outer.key + ": " + r->elements[1].str;
  }
  auto r = (*c)->Command({"CLUSTER", "INFO"});
  if (!r.ok() || r->is_error()) return "not read: " + (r.ok() ? r->str : r.status().message());
  const size_t at = r->str.find("cluster_size:");
  if (at == std::string::npos) return "not read: no cluster_size in CLUSTER INFO";
  const size_t end = r->str.find_first_of("\r\n", at);
  return "CLUSTER INFO " + r->str.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

int PointsBody(const CLI::App& app, RunConfig& cfg, const OuterAxis& outer, const Axis& axis,
               const SweepFlags& f) {
  int runs = 1;
  if (app.count("--runs") > 0) {
    auto n = ParseIncreasingList(f.runs);
    if (!n.ok() || n->size() != 1 || (*n)[0] > 100) {
      return Fail("sweep", Status::InvalidArgument("--runs: a whole number from 1 to 100 (runs per point)"));
    }
    runs = static_cast<int>((*n)[0]);
  }
  const std::string flag = outer.axis == "set" ? "--sweep-set" : "--sweep-topology";
  if (cfg.target_given) {
    return Fail("sweep", Status::InvalidArgument(flag + ": stands a fresh topology up for each point; "
                                                 "no --target, -s, -p or -S with it"));
  }
  if (outer.axis == "topology" && cfg.load.protocol != Protocol::kResp) {
    return Fail("sweep", Status::InvalidArgument(flag + ": the sizes are a redis-cluster's: --protocol resp"));
  }
  if (outer.axis == "set" && cfg.load.cluster) {
    return Fail("sweep", Status::InvalidArgument(
                             "--cluster: --sweep-set stands one server up a point; clusters are "
                             "--sweep-topology masters=..."));
  }
  // Every point's spec is checked before any run: a setting memstand manages, a size
  // out of range.
  for (const std::string& v : outer.values) {
    TopologySpec spec = SpecAt(outer, cfg, v);
    Status s = NormalizeSpec(&spec);
    if (!s.ok()) return Fail("sweep", Status::InvalidArgument(flag + ": " + outer.key + "=" + v + ": " + s.message()));
  }
  cfg.servers_by_caller = true;
  auto session = RunSession::Open(&cfg);
  if (!session.ok()) return Fail("sweep", session.status());
  PointSweepOutcome out;
  out.axis = outer.axis;
  out.key = outer.key;
  out.values = outer.values;
  out.knob = axis.knob;
  out.knob_values = axis.values;
  out.runs = runs;
  std::string values;
  for (const auto& v : outer.values) values += (values.empty() ? "" : ",") + v;
  std::string knob_values;
  for (uint64_t v : axis.values) knob_values += (knob_values.empty() ? "" : ",") + std::to_string(v);
  fmt::print("memstand {} sweep over {}: {} ({} run(s) a point, each on a fresh {}), and in each over {}: {}\n",
             MEMSTAND_VERSION, outer.key, values, runs,
             outer.axis == "topology" ? "redis-cluster" : TopologyKindName(SpecAt(outer, cfg, "").kind),
             axis.knob, knob_values);
  if (!cfg.quiet) {
    const LoadOptions& o = cfg.load;
    fmt::print("    {}\n", (*session)->platform().Describe());
    std::string length = o.requests > 0 ? fmt::format("{} requests", o.requests) : fmt::format("{:g} s", o.duration_s);
    fmt::print("    each step: {} thread(s) x {} clients x pipeline {}{}, {} after {:g} s warm-up\n", o.threads,
               o.clients, o.pipeline, o.rate > 0 ? fmt::format(", rate {:g}/s", o.rate) : "", length, o.warmup_s);
    fmt::print("    (server CPU: summed over the topology's processes)\n");
  }
  for (const std::string& value : outer.values) {
    if ((*session)->interrupted()) break;
    PointOutcome point;
    point.value = value;
    for (int r = 1; r <= runs && !(*session)->interrupted(); ++r) {
      TopologySpec spec = SpecAt(outer, cfg, value);
      fmt::print("\n{}={}, run {}/{}: standing a {} up\n", outer.key, value, r, runs, TopologyKindName(spec.kind));
      std::fflush(stdout);
      TopologyOptions to;
      to.cancel = InterruptFlag();
      auto topo = Topology::Start(spec, to);
      PointRun run;
      if (!topo.ok()) {
        if ((*session)->interrupted()) break;
        if (topo.status().code() == Status::Code::kInvalidArgument) {
          return Fail("sweep", Status::InvalidArgument(flag + ": " + outer.key + "=" + value + ": " +
                                                       topo.status().message()));
        }
        run.failure = "the topology did not start: " + topo.status().message();
        fmt::print("    {}\n", run.failure);
        point.runs.push_back(std::move(run));
        continue;
      }
      std::vector<WatchedProcess> watched;
      std::string pids;
      const NodeRecord* entry = nullptr;
      for (const NodeRecord& n : (*topo)->nodes()) {
        if (n.role == "relay") continue;
        watched.push_back({n.name, n.process.pid});
        pids += (pids.empty() ? "" : " ") + std::to_string(n.process.pid);
        if (entry == nullptr && n.role != "replica") entry = &n;
      }
      run.servers = fmt::format("{} {} node(s) on 127.0.0.1 from port {}, pids {}", TopologyKindName(spec.kind),
                                watched.size(), entry->port, pids);
      run.applied = ReadBack(outer, spec, *entry);
      fmt::print("    {}{}\n", run.servers, run.applied.empty() ? "" : "; " + run.applied);
      (*session)->UseServers(watched, run.servers + "; started by the sweep for this point, stopped after it");
      LoadOptions base = cfg.load;
      base.target.host = entry->host;
      base.target.port = entry->port;
      base.exclusive_server = true;
      base.cluster = spec.kind == TopologyKind::kRedisCluster;
      run.sweep = Sweep(**session, base, axis, fmt::format("{}={} ", outer.key, value));
      PrintSweepEnd(stdout, run.sweep);
      Status stopped = (*topo)->Stop();
      if (!stopped.ok()) {
        run.failure = "a node died during the run: " + stopped.message();
        fmt::print("    {}\n", run.failure);
      }
      point.runs.push_back(std::move(run));
    }
    out.points.push_back(std::move(point));
  }
  (*session)->UseServers({}, "");
  out.interrupted = (*session)->interrupted();
  ConcludePoints(&out);
  PrintPointSummary(stdout, out);
  Status s = (*session)->FinishHdrLog();
  if (s.ok() && !cfg.json_path.empty()) s = (*session)->WriteJson(PointSweepJson(out));
  if (!s.ok()) return Fail("sweep", s);
  (*session)->LingerMetrics(cfg);
  return out.exit_code;
}

// --slo: the flags that shape the search, checked before any run.
Result<SloSearchOptions> SloOptions(const RunConfig& cfg, const SweepFlags& f) {
  SloSearchOptions o;
  if (!(f.confidence > 50 && f.confidence < 100)) {
    return Status::InvalidArgument("--confidence: a percentage above 50 and below 100, e.g. 95");
  }
  if (!(f.slo_max_rate >= 1 && f.slo_max_rate <= kMaxRatePerSecond)) {
    return Status::InvalidArgument(fmt::format("--slo-max-rate: from 1 to {:g} requests/s", kMaxRatePerSecond));
  }
  if (!(f.slo_precision >= 0.1 && f.slo_precision <= 50)) {
    return Status::InvalidArgument("--slo-precision: a percentage from 0.1 to 50");
  }
  if (f.slo_repeat < 1 || f.slo_repeat > 100) return Status::InvalidArgument("--slo-repeat: from 1 to 100");
  if (f.slo_max_runs < 1 || f.slo_max_runs > 1000) return Status::InvalidArgument("--slo-max-runs: from 1 to 1000");
  o.start_rate = cfg.load.rate;  // --rate, else OpenLoopFlags' first rate
  o.max_rate = f.slo_max_rate;
  if (o.start_rate > o.max_rate) {
    return Status::InvalidArgument("--rate: the search's first rate is above --slo-max-rate");
  }
  o.precision = f.slo_precision / 100;
  o.repeat = f.slo_repeat;
  o.max_runs = f.slo_max_runs;
  return o;
}

int SloBody(RunConfig& cfg, const SweepFlags& f) {
  auto slo = ParseSlo(f.slo);
  if (!slo.ok()) return Fail("sweep", slo.status());
  auto opts = SloOptions(cfg, f);
  if (!opts.ok()) return Fail("sweep", opts.status());
  if (cfg.load.requests > 0) {
    return Fail("sweep", Status::InvalidArgument("--requests: the SLO search runs each rate for --duration"));
  }
  auto& pct = cfg.load.percentiles;
  if (std::find(pct.begin(), pct.end(), slo->percentile) == pct.end()) {
    pct.push_back(slo->percentile);
    std::sort(pct.begin(), pct.end());
  }
  auto session = RunSession::Open(&cfg);
  if (!session.ok()) return Fail("sweep", session.status());
  const double confidence = f.confidence / 100;
  fmt::print("memstand {} SLO search: {} (the open-loop rate from {:.10g}/s, at most {:.10g}/s; {} decided "
             "run(s) a rate, precision {:g}%, at most {} runs)\n",
             MEMSTAND_VERSION, slo->text, opts->start_rate, opts->max_rate, opts->repeat, f.slo_precision,
             opts->max_runs);
  if (!cfg.quiet) {
    fmt::print("    target {} — {}\n", cfg.load.target.Display(), (*session)->server_note());
    fmt::print("    {}\n", (*session)->platform().Describe());
    fmt::print("    each run: {} thread(s) x {} clients, in-flight cap {} a connection, {:g} s after {:g} s warm-up, "
               "arrivals {}, a schedule per {}\n",
               cfg.load.threads, cfg.load.clients, cfg.load.pipeline, cfg.load.duration_s, cfg.load.warmup_s,
               cfg.load.poisson ? "poisson" : "constant", cfg.load.schedule_per_thread ? "thread" : "connection");
    fmt::print("    a run decides when its instrument checks pass; suspect ones are run again "
               "(docs/method.md, SLO search)\n");
  }
  SloSearch search(*slo, *opts);
  int runs = 0;
  while (auto rate = search.Next()) {
    if ((*session)->interrupted()) break;
    LoadOptions o = cfg.load;
    o.rate = *rate;
    auto run = (*session)->Measure(o, fmt::format("rate={:.10g} (run {})", *rate, ++runs));
    SloRun decided;
    if (!run.ok() || !(*run)->result.failure.ok()) {
      decided.rate = *rate;
      decided.measured = false;
      decided.why = run.ok() ? (*run)->result.failure.message() : run.status().message();
      fmt::print("{}\n", SloRunLine(*slo, decided));
      return Fail("sweep", Status::Failed("the run at " + fmt::format("{:.10g}/s", *rate) +
                                            " failed: " + decided.why));
    }
    const Validity v = AssessRun((*run)->options, (*run)->result, confidence);
    decided = DecideSloRun(*slo, *rate, v, AchievedRate((*run)->options, (*run)->result),
                           (*run)->result.AllCommands().send_lag_ns.ValueAtPercentile(99));
    fmt::print("{}\n", SloRunLine(*slo, decided));
    std::fflush(stdout);
    search.Add(std::move(decided));
  }
  const SloSearch::Answer answer = search.Conclude();
  fmt::print("\n    {}\n", SloAnswerLine(*slo, answer, confidence));
  Status s = (*session)->FinishHdrLog();
  if (s.ok() && !cfg.json_path.empty()) s = (*session)->WriteJson(SloSearchJson(search, confidence));
  if (!s.ok()) return Fail("sweep", s);
  (*session)->LingerMetrics(cfg);
  if ((*session)->interrupted()) return kExitInterrupted;
  return answer.found ? kExitOk : kExitFailed;
}

// The run's configuration from its flags, with what a sweep refuses: --start-at (it
// starts one run) and the outputs of one run.
// A search of the rate, or a rate axis, runs the open loop at rates of its own: its first
// stands for --rate (given, else 1000/s), so that the open loop's flags (--arrival,
// --schedule, --spin) apply without --rate.
RunFlags OpenLoopFlags(const RunFlags& flags) {
  RunFlags f = flags;
  if (f.rate.empty()) f.rate = "1000";
  return f;
}

Result<RunConfig> SweepConfig(const CLI::App& app, const RunFlags& flags) {
  auto cfg = BuildRunConfig(app, flags);
  if (!cfg.ok()) return cfg.status();
  if (cfg->load.start_at_unix_s > 0) {
    return Status::InvalidArgument("--start-at: starts one run; not for sweep");
  }
  Status s = CheckOneRunOutputs(*cfg);
  if (!s.ok()) return s;
  return cfg;
}

int SweepBody(const CLI::App& app, const RunFlags& flags, const SweepFlags& sweep) {
  auto outer = ParseOuter(sweep);
  if (!outer.ok()) return Fail("sweep", outer.status());
  if (outer->has_value()) {
    if (!sweep.slo.empty()) {
      return Fail("sweep", Status::InvalidArgument("--slo: not with --sweep-set or --sweep-topology"));
    }
    auto axis = ParseAxis(sweep);
    if (!axis.ok()) {
      return Fail("sweep", Status::InvalidArgument(
                               "--sweep-set and --sweep-topology need a load axis whose knee each point "
                               "reports: give one of --sweep-clients, --sweep-pipeline, --sweep-rate"));
    }
    Status s = CheckAxis(*axis);
    if (!s.ok()) return Fail("sweep", s);
    auto cfg = SweepConfig(app, axis->knob == "rate" ? OpenLoopFlags(flags) : flags);
    if (!cfg.ok()) return Fail("sweep", cfg.status());
    return PointsBody(app, *cfg, **outer, *axis, sweep);
  }
  if (app.count("--runs") > 0) {
    return Fail("sweep", Status::InvalidArgument(
                             "--runs: sweep takes --runs only with --sweep-set or --sweep-topology "
                             "(runs per point); a plain sweep makes one run per step: repeat a "
                             "configuration with memstand run --runs N"));
  }
  if (!sweep.slo.empty()) {
    if (!sweep.clients.empty() || !sweep.pipeline.empty() || !sweep.rate.empty()) {
      return Fail("sweep", Status::InvalidArgument("--slo searches the rate: no --sweep-clients, "
                                                   "--sweep-pipeline or --sweep-rate with it"));
    }
    auto cfg = SweepConfig(app, OpenLoopFlags(flags));
    if (!cfg.ok()) return Fail("sweep", cfg.status());
    return SloBody(*cfg, sweep);
  }
  if (app.count("--confidence") + app.count("--slo-max-rate") + app.count("--slo-precision") +
          app.count("--slo-repeat") + app.count("--slo-max-runs") > 0) {
    return Fail("sweep", Status::InvalidArgument("--confidence and --slo-*: only with --slo"));
  }
  auto axis = ParseAxis(sweep);
  Status s = axis.ok() ? CheckAxis(*axis) : axis.status();
  if (!s.ok()) return Fail("sweep", s);
  auto cfg = SweepConfig(app, axis->knob == "rate" ? OpenLoopFlags(flags) : flags);
  if (!cfg.ok()) return Fail("sweep", cfg.status());
  auto session = RunSession::Open(&*cfg);
  if (!session.ok()) return Fail("sweep", session.status());
  PrintIntro(**session, *cfg, *axis);
  SweepOutcome out = Sweep(**session, cfg->load, *axis);
  PrintSweepEnd(stdout, out);
  s = (*session)->FinishHdrLog();
  if (s.ok() && !cfg->json_path.empty()) s = (*session)->WriteJson(SweepJson(out));
  if (!s.ok()) return Fail("sweep", s);
  (*session)->LingerMetrics(*cfg);
  return out.exit_code;
}

}  // namespace

SubcommandBody SetupSweep(CLI::App* app) {
  auto flags = std::make_shared<RunFlags>();
  auto sweep = std::make_shared<SweepFlags>();
  AddRunFlags(app, flags.get());
  app->add_option("--sweep-clients", sweep->clients,
                  "Connections per thread at each step, increasing, e.g. 1,2,4,8");
  app->add_option("--sweep-pipeline", sweep->pipeline,
                  "Requests in flight per connection at each step, e.g. 1,4,16,64");
  app->add_option("--sweep-rate", sweep->rate,
                  "Open-loop requests/s in total at each step, e.g. 1000,5000");
  app->add_option("--slo", sweep->slo,
                  "Search the open-loop rate for the highest one whose percentile stays under a "
                  "limit, e.g. \"p99<=2ms\" (starts at --rate, else 1000/s; doubles, then bisects)");
  app->add_option("--confidence", sweep->confidence,
                  "--slo: the confidence of the percentiles' intervals, in percent (default 95)");
  app->add_option("--slo-max-rate", sweep->slo_max_rate, "--slo: the highest rate tried (default 1e7/s)");
  app->add_option("--slo-precision", sweep->slo_precision,
                  "--slo: stop when the failing and passing rates are within this percentage (default 5)");
  app->add_option("--slo-repeat", sweep->slo_repeat,
                  "--slo: decided runs at each rate; the majority decides (default 3)");
  app->add_option("--slo-max-runs", sweep->slo_max_runs, "--slo: runs in all, at most (default 30)");
  app->add_option("--sweep-set", sweep->sweep_set,
                  "An outer axis: a server setting's values, a fresh server per point (and per run), "
                  "the load axis and its knee at each, e.g. \"maxmemory-policy=allkeys-lru,allkeys-lfu\"");
  app->add_option("--sweep-topology", sweep->sweep_topology,
                  "An outer axis: a redis-cluster's size, a fresh cluster per point (and per run), the "
                  "load axis and its knee at each: masters=3,6,9 or replicas=0,1");
  app->add_option("--runs", sweep->runs,
                  "With --sweep-set or --sweep-topology: runs per point, each on a fresh topology "
                  "(default 1); the knee per point is then a range");
  return [app, flags, sweep] { return SweepBody(*app, *flags, *sweep); };
}

}  // namespace memstand::cli
