#include "scenario/sharding/sharding.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "core/clock.h"
#include "load/command_spec.h"
#include "load/engine.h"
#include "scenario/kit/evidence.h"
#include "scenario/kit/runs.h"
#include "scenario/kit/scenario_server.h"
#include "scenario/kit/shard_cluster.h"
#include "scenario/kit/topology_nodes.h"
#include "scenario/sharding/run.h"
#include "stand/proc_identity.h"
#include "stand/proc_stats.h"
#include "stats/knee.h"

namespace memstand {
namespace {

constexpr const char* kRoles[] = {"router", "storage-master", "storage-replica"};

// One cell's load: `command` through every router (round robin), `per_router`
// connections each, one request in flight per connection.
struct CellPlan {
  std::string op = "replace";
  std::string space = "test";
  std::string read_from;
  uint64_t per_router = 1;
};

std::string CommandOf(const CellPlan& p, int value_size) {
  const std::string value = fmt::format("__rand:{}__", value_size);
  const std::string space = "'" + p.space + "'";
  if (p.op == "get") {
    return fmt::format("call shard.get {} [__seq__]{}", space, p.read_from == "replica" ? " {'mode': 'read'}" : "");
  }
  if (p.op == "update") return fmt::format("call shard.update {} [__seq__] [['=', 3, {}]]", space, value);
  if (p.op == "upsert") {
    return fmt::format("call shard.upsert {} [__seq__, nil, {}] [['=', 3, {}]]", space, value, value);
  }
  return fmt::format("call shard.{} {} [__seq__, nil, {}]", p.op, space, value);  // replace, insert
}

Result<LoadOptions> LoadFor(const Topology& t, const CellPlan& p, const ShardingOptions& o, uint64_t seed) {
  LoadOptions load;
  for (const NodeRecord& n : t.nodes()) {
    if (n.role == "router") load.pool.push_back(TargetOfNode(n, Protocol::kIproto));
  }
  load.target = load.pool.front();
  load.protocol = Protocol::kIproto;
  load.threads = 1;
  load.clients = static_cast<int>(p.per_router * load.pool.size());
  load.pipeline = 1;
  load.duration_s = o.step_s;
  load.warmup_s = 0;  // every request counted: the storages' counts must sum to the client's
  load.seed = seed;
  auto spec = MakeCommandSpec(Protocol::kIproto, CommandOf(p, o.value_size), "", KeyPatternSpec{}, 1, CommandLimits{});
  if (!spec.ok()) return spec.status();
  load.commands.push_back(*spec);
  return load;
}

std::vector<ProcSample> Sample(const Topology& t) {
  std::vector<ProcSample> out;
  for (const NodeRecord& n : t.nodes()) {
    auto s = ReadProcSample(n.process.pid);
    out.push_back(s.ok() ? *s : ProcSample{});
  }
  return out;
}

std::vector<ShardRoleFigures> RolesOf(const Topology& t, const std::vector<ProcSample>& before,
                                      const std::vector<ProcSample>& after, double wall_s) {
  std::vector<ShardRoleFigures> out;
  for (const char* role : kRoles) {
    ShardRoleFigures f{role};
    double sum = 0;
    for (size_t i = 0; i < t.nodes().size(); ++i) {
      if (t.nodes()[i].role != role) continue;
      const double cpu = (after[i].user_sec + after[i].sys_sec) - (before[i].user_sec + before[i].sys_sec);
      const double share = wall_s > 0 ? cpu / wall_s : 0;
      ++f.processes;
      sum += share;
      f.max_core_share = std::max(f.max_core_share, share);
      f.rss_bytes += after[i].rss_bytes;
    }
    f.mean_core_share = f.processes > 0 ? sum / f.processes : 0;
    out.push_back(f);
  }
  return out;
}

Result<int64_t> StorageTotal(const Topology& t) {
  auto counts = ReadStorageCounts(t);
  if (!counts.ok()) return counts.status();
  int64_t total = 0;
  for (const StorageCount& c : *counts) total += c.total;
  return total;
}

ShardCell RunCell(const Topology& t, const CellPlan& p, const ShardingOptions& o, const ScenarioContext& ctx,
                  uint64_t seed) {
  ShardCell cell;
  cell.op = p.op;
  cell.space = p.space;
  cell.read_from = p.read_from;
  auto load = LoadFor(t, p, o, seed);
  if (!load.ok()) {
    cell.failure = load.status().message();
    return cell;
  }
  cell.connections = static_cast<uint64_t>(load->clients);
  auto counted_before = StorageTotal(t);
  const std::vector<ProcSample> before = Sample(t);
  const int64_t started = NowNs();
  auto result = RunLoad(*load, ctx.interrupt);
  const double wall_s = static_cast<double>(NowNs() - started) / 1e9;
  cell.roles = RolesOf(t, before, Sample(t), wall_s);
  auto counted_after = StorageTotal(t);
  if (!result.ok() || !counted_before.ok() || !counted_after.ok()) {
    cell.failure = !result.ok() ? result.status().message()
                   : !counted_before.ok() ? counted_before.status().message()
                                          : counted_after.status().message();
    return cell;
  }
  const CommandStats& s = result->totals.commands.at(0);
  cell.measured_s = result->measured_s;
  cell.unanswered = result->unanswered;
  cell.requests = s.ops + result->unanswered;
  cell.errors = s.errors;
  for (const auto& [prefix, kind] : s.errors_by_prefix) {
    if (cell.first_error.empty()) cell.first_error = prefix + ": " + kind.example;
  }
  cell.ops_per_sec = result->measured_s > 0 ? double(s.ops - s.errors) / result->measured_s : 0;
  cell.p50_us = double(s.latency_ns.ValueAtPercentile(50)) / 1000;
  cell.p99_us = double(s.latency_ns.ValueAtPercentile(99)) / 1000;
  cell.client_core_share = result->measured_s > 0 ? result->client_cpu_s() / result->measured_s : 0;
  cell.storage_requests = *counted_after - *counted_before;
  if (!result->failure.ok()) cell.failure = result->failure.message();
  if (result->interrupted) cell.failure = "interrupted";
  return cell;
}

bool EveryNodeRuns(Topology& t) {
  for (size_t i = 0; i < t.nodes().size(); ++i) {
    if (!t.NodeEnded(i).empty()) return false;
  }
  return true;
}

// The point's storages' counts at its end, per storage and per set, against the client's.
void CountPoint(const Topology& t, ShardPoint* point) {
  auto counts = ReadStorageCounts(t);
  if (!counts.ok()) {
    point->failure = "reading the storages' counts: " + counts.status().message();
    return;
  }
  point->per_set.assign(static_cast<size_t>(point->storages), 0);
  for (const StorageCount& c : *counts) {
    point->per_storage.emplace_back(c.node, c.total);
    point->storage_requests += c.total;
    if (c.set >= 1 && c.set <= point->storages) point->per_set[static_cast<size_t>(c.set - 1)] += c.total;
  }
  for (const ShardCell& c : point->cells) point->client_requests += static_cast<int64_t>(c.requests);
  point->counted = true;
}

// Keeps every node's init.lua and log tail in the evidence folder (the first run's
// configurations, every run's logs).
void KeepEvidence(const Topology& t, const std::string& label, int run, std::map<std::string, std::string>* files) {
  for (const NodeRecord& n : t.nodes()) {
    const std::string name = label + "-" + n.name;
    if (run == 1) {
      std::ifstream lua(n.dir + "/init.lua");
      (*files)["servers/" + name + ".conf"] = "# " + name + " (" + n.role + "), command line:\n" +
                                              JoinCmdline(n.process.cmdline) + "\n# init.lua:\n" +
                                              std::string(std::istreambuf_iterator<char>(lua), {});
    }
    KeepLogTail(name, run, n.log, files);
  }
}

// Stands a point's topology up, checks its health, runs `plans` in order, counts.
ShardPoint RunPoint(const std::string& sweep, int storages, int routers, const std::vector<CellPlan>& plans,
                    const ShardingOptions& o, const ScenarioContext& ctx, int run, uint64_t* seed,
                    std::map<std::string, std::string>* files) {
  ShardPoint point{run, sweep, storages, routers};
  const std::string what = fmt::format("{} storage(s), {} router(s)", storages, routers);
  ctx.Progress("sharding", fmt::format("run {}: {} sweep: starting {}", run, sweep, what));
  TopologySpec spec;
  spec.kind = TopologyKind::kTarantoolSharded;
  spec.storages = storages;
  spec.routers = routers;
  spec.replicas = o.replicas;
  // test_sync waits for every member of its set (1 + replicas): on 2.6.0 a quorum of all
  // members did not stall in replication-cost's runs, a majority did.
  spec.settings = {{"replication_synchro_quorum", std::to_string(1 + o.replicas)},
                   {"replication_synchro_timeout", "5"}};
  auto t = StartScenarioTopology(spec, ctx.interrupt);
  if (!t.ok()) {
    point.failure = StartFailure(ctx, "sharding", what, what + " did not start: ", t.status());
    return point;
  }
  point.version = (*t)->nodes().front().version;
  for (const NodeRecord& n : (*t)->nodes()) {
    point.description += fmt::format("{}{} {}:{} (pid {})", point.description.empty() ? "" : ", ", n.name, n.host,
                                     n.port, n.process.pid);
  }
  if (Status s = CheckShardHealth(**t); !s.ok()) {
    point.failure = s.message();
    KeepEvidence(**t, fmt::format("{}-s{}-r{}", sweep, storages, routers), run, files);
    return point;
  }
  for (const CellPlan& p : plans) {
    if (ctx.interrupted()) break;
    ctx.Progress("sharding", fmt::format("run {}: {}: {} {}{} at {} connection(s) per router", run, what, p.op,
                                         p.space, p.read_from.empty() ? "" : " from the " + p.read_from,
                                         p.per_router));
    point.cells.push_back(RunCell(**t, p, o, ctx, ++*seed));
    if (!point.cells.back().failure.empty() && (ctx.interrupted() || !EveryNodeRuns(**t))) {
      point.failure = point.cells.back().failure;
      break;
    }
  }
  if (point.failure.empty() && !ctx.interrupted()) CountPoint(**t, &point);
  KeepEvidence(**t, fmt::format("{}-s{}-r{}", sweep, storages, routers), run, files);
  return point;
}

void FindPointKnee(ShardPoint* point) {
  std::vector<double> x, ops, p99;
  for (const ShardCell& c : point->cells) {
    x.push_back(double(c.connections));
    ops.push_back(c.ops_per_sec);
    p99.push_back(c.p99_us);
  }
  point->knee = ShardingKnee(x, ops, p99);
  point->best = point->knee ? *point->knee : (ops.empty() ? 0 : BestPoint(ops));
}

ShardPoint RunSweepPoint(const std::string& sweep, int storages, int routers, const ShardingOptions& o,
                      const ScenarioContext& ctx, int run, uint64_t* seed, std::map<std::string, std::string>* files) {
  std::vector<CellPlan> plans;
  for (uint64_t c : o.concurrency) plans.push_back({"replace", "test", "", c});
  ShardPoint p = RunPoint(sweep, storages, routers, plans, o, ctx, run, seed, files);
  FindPointKnee(&p);
  return p;
}

// The best point among `points` that ran, or nullptr.
const ShardPoint* Best(const std::vector<ShardPoint>& points) {
  std::vector<double> knee;
  std::vector<const ShardPoint*> ran;
  for (const ShardPoint& p : points) {
    if (!p.ok() || p.cells.empty()) continue;
    knee.push_back(p.knee_ops_per_sec());
    ran.push_back(&p);
  }
  return ran.empty() ? nullptr : ran[BestPoint(knee)];
}

// The operation matrix: every operation on both spaces, reads from the master and from
// a replica; inserts first (on empty spaces), then replace, upsert, update and the reads.
std::vector<CellPlan> MatrixPlans(uint64_t per_router) {
  std::vector<CellPlan> plans;
  for (const char* space : {"test", "test_sync"}) {
    for (const char* op : {"insert", "replace", "upsert", "update"}) plans.push_back({op, space, "", per_router});
    plans.push_back({"get", space, "master", per_router});
    plans.push_back({"get", space, "replica", per_router});
  }
  return plans;
}

void RunOnce(const ShardingOptions& o, const ScenarioContext& ctx, int run, std::vector<ShardPoint>* out,
             std::map<std::string, std::string>* files) {
  uint64_t seed = ctx.seed * 1000 + static_cast<uint64_t>(run) * 100;
  std::vector<ShardPoint> ratio;
  for (uint64_t r : o.ratios) {
    if (ctx.interrupted()) return;
    ratio.push_back(RunSweepPoint("ratio", o.ratio_storages, static_cast<int>(r) * o.ratio_storages, o, ctx, run, &seed,
                               files));
    out->push_back(ratio.back());
  }
  const ShardPoint* best_ratio = Best(ratio);
  if (best_ratio == nullptr) return;
  const int per_storage = best_ratio->routers / best_ratio->storages;
  std::vector<ShardPoint> storages;
  for (uint64_t s : o.storages) {
    if (ctx.interrupted()) return;
    storages.push_back(RunSweepPoint("storages", static_cast<int>(s), static_cast<int>(s) * per_storage, o, ctx, run,
                                  &seed, files));
    out->push_back(storages.back());
  }
  const ShardPoint* best = Best(storages);
  if (best == nullptr || ctx.interrupted()) return;
  const uint64_t per_router = best->cells[best->best].connections / static_cast<uint64_t>(best->routers);
  out->push_back(RunPoint("matrix", best->storages, best->routers, MatrixPlans(per_router), o, ctx, run, &seed,
                          files));
}

}  // namespace

ShardingOptions SmallestSharding() {
  ShardingOptions o;
  o.ratios = {1, 2};
  o.storages = {1, 2};
  o.concurrency = {1, 4};
  o.step_s = 0.5;
  return o;
}

Status ValidateSharding(const ShardingOptions& o) {
  auto increasing = [](const std::vector<uint64_t>& v, uint64_t max) {
    if (v.empty()) return false;
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i] < 1 || v[i] > max || (i > 0 && v[i] <= v[i - 1])) return false;
    }
    return true;
  };
  if (!increasing(o.ratios, 64)) return Status::InvalidArgument("--routers-per-storage: increasing values 1..64");
  if (!increasing(o.storages, 64)) return Status::InvalidArgument("--storages: increasing values 1..64");
  if (!increasing(o.concurrency, 256)) return Status::InvalidArgument("--concurrency: increasing values 1..256");
  if (o.ratio_storages < 1 || o.ratio_storages > 64) return Status::InvalidArgument("--ratio-storages: 1..64");
  if (o.replicas < 1 || o.replicas > 8) return Status::InvalidArgument("--replicas: 1..8");
  const uint64_t largest = std::max(o.ratios.back() * uint64_t(o.ratio_storages),
                                    o.storages.back() * (1 + uint64_t(o.replicas) + o.ratios.back()));
  if (largest > 256) {
    return Status::InvalidArgument(fmt::format("a point of {} processes: at most 256 on one machine", largest));
  }
  if (!(o.step_s >= 0.1 && o.step_s <= 3600)) {
    return Status::InvalidArgument(fmt::format("--step-duration must be 0.1 s .. 1 h, got {:g}", o.step_s));
  }
  return Status::OK();
}

std::optional<size_t> ShardingKnee(const std::vector<double>& x, const std::vector<double>& ops_per_sec,
                                   const std::vector<double>& p99_us) {
  std::vector<SweepPoint> p;
  for (size_t i = 0; i < x.size(); ++i) p.push_back({x[i], ops_per_sec[i], p99_us[i]});
  return FindKnee(p, kShardingKneeMinGain);
}

size_t BestPoint(const std::vector<double>& knee_ops_per_sec) {
  return static_cast<size_t>(std::max_element(knee_ops_per_sec.begin(), knee_ops_per_sec.end()) -
                             knee_ops_per_sec.begin());
}

double ShardingExpectedSeconds(const ShardingOptions& o, int runs) {
  const double points = double(o.ratios.size() + o.storages.size());
  const double start = 3;  // a topology's start and its health check, here
  return runs * (points * (start + double(o.concurrency.size()) * (o.step_s + 0.2)) + start + 12 * (o.step_s + 0.2));
}

Result<ScenarioReport> RunSharding(const ShardingOptions& o, const ScenarioContext& ctx) {
  if (Status s = ValidateSharding(o); !s.ok()) return s;
  ScenarioReport report;
  report.scenario = "sharding";
  report.runs_requested = ctx.runs;
  std::vector<ShardPoint> points;
  const std::string not_installed = NotInstalledLine(SystemKind::kTarantool);
  if (!not_installed.empty()) {
    report.Mark(ScenarioVerdict::kPartial, "tarantool: " + not_installed);
  } else {
    ForEachRun(ctx, &report, [&](int run) { RunOnce(o, ctx, run, &points, &report.files); });
  }
  FillShardingReport(o, points, ctx.interrupted(), &report);
  return report;
}

}  // namespace memstand
