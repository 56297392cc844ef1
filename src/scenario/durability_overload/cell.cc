#include "scenario/durability_overload/cell.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "client/redis_info.h"
#include "load/command_spec.h"
#include "load/engine.h"
#include "scenario/kit/poll.h"
#include "scenario/kit/scenario_server.h"
#include "stand/proc_stats.h"
#include "stand/redis_wiring.h"

namespace memstand {
namespace {

// /proc every half second: RSS mean and max from a few samples even in a 1 s cell.
constexpr int kResourcePeriodMs = 500;
// The longest wait for the masters' AOF buffers after a cell (Redis postpones a write
// behind a running fsync for up to 2 s).
constexpr int kAofSettleMs = 5000;
constexpr int64_t kAofPollNs = 10'000'000;

// INFO persistence fields whose deltas over a cell are reported.
constexpr const char* kAofFields[] = {"aof_delayed_fsync", "aof_rewrites", "aof_last_write_status_err",
                                      "rdb_saves"};

int64_t IntOf(const std::string& s) { return std::strtoll(s.c_str(), nullptr, 10); }

}  // namespace

Result<std::unique_ptr<DurabilityCluster>> DurabilityCluster::Start(
    int masters, int replicas, std::vector<std::pair<std::string, std::string>> settings,
    const std::atomic<bool>* cancel) {
  if (!SystemInstalled(SystemKind::kRedis)) return MissingBinary("redis-server", "redis-server");
  TopologySpec spec;
  spec.kind = TopologyKind::kRedisCluster;
  spec.masters = masters;
  spec.replicas = replicas;
  // Every node must learn every other by gossip before the cluster is ready: 16 nodes on
  // a loaded 2-core machine took more than the stand's 20 s once (8 masters, 1 replica
  // each). 4 s a node bounds the wait without hiding a cluster that never agrees.
  spec.ready_timeout_ms = std::max(spec.ready_timeout_ms, 4000 * masters * (1 + replicas));
  spec.settings = std::move(settings);
  auto topology = StartScenarioTopology(std::move(spec), cancel);
  if (!topology.ok()) return topology.status();
  std::unique_ptr<DurabilityCluster> c(new DurabilityCluster());
  c->topology_ = std::move(*topology);
  c->controls_.resize(c->topology_->nodes().size());
  return c;
}

DurabilityCluster::~DurabilityCluster() { Stop(); }

Status DurabilityCluster::Stop() {
  controls_.clear();
  if (topology_ == nullptr) return Status::OK();
  Status s = topology_->Stop();
  topology_.reset();
  return s;
}

RedisTarget DurabilityCluster::seed() const {
  RedisTarget t;
  t.host = topology_->nodes().at(0).host;
  t.port = topology_->nodes().at(0).port;
  return t;
}

std::vector<WatchedNode> DurabilityCluster::nodes() const {
  std::vector<WatchedNode> out;
  for (const NodeRecord& n : topology_->nodes()) out.push_back({n.name, n.host, n.port});
  return out;
}

std::vector<WatchedProcess> DurabilityCluster::processes() const {
  std::vector<WatchedProcess> out;
  for (const NodeRecord& n : topology_->nodes()) out.push_back({n.name, n.process.pid});
  return out;
}

std::string DurabilityCluster::Gone() const {
  for (const NodeRecord& n : topology_->nodes()) {
    if (NodeOwnership(topology_->record(), n).verdict != Ownership::kOurs) {
      return fmt::format("{} (pid {})", n.name, n.process.pid);
    }
  }
  return "";
}

RedisClient* DurabilityCluster::Control(size_t i) {
  if (controls_[i] == nullptr) {
    const NodeRecord& n = topology_->nodes()[i];
    auto c = RedisClient::Connect(n.host, n.port, kControlTimeoutMs);
    if (!c.ok()) return nullptr;
    controls_[i] = std::move(*c);
  }
  return controls_[i].get();
}

std::map<std::string, int64_t> DurabilityCluster::AofCounters(int* unanswered) {
  std::map<std::string, int64_t> sum;
  *unanswered = 0;
  for (size_t i = 0; i < controls_.size(); ++i) {
    RedisClient* c = Control(i);
    auto r = c != nullptr ? c->Command({"INFO", "persistence"}) : Result<resp::Reply>(Status::IoError(""));
    if (!r.ok() || r->is_error()) {
      if (!r.ok()) controls_[i].reset();
      ++*unanswered;
      continue;
    }
    auto info = ParseInfo(r->str);
    for (const char* f : kAofFields) {
      if (info.count(f) > 0) sum[f] += IntOf(info[f]);
    }
    sum["aof_last_write_status_err"] += info["aof_last_write_status"] == "err" ? 1 : 0;
  }
  return sum;
}

int DurabilityCluster::WaitAofWritten(int timeout_ms) {
  const PollResult poll = PollUntil(DeadlineInMs(timeout_ms), kAofPollNs, [&]() -> Result<bool> {
    bool held = false;
    for (size_t i = 0; i < controls_.size() && !held; ++i) {
      RedisClient* c = Control(i);
      auto r = c != nullptr ? c->Command({"INFO", "persistence"}) : Result<resp::Reply>(Status::IoError(""));
      if (!r.ok() || r->is_error()) {
        held = true;
        continue;
      }
      auto info = ParseInfo(r->str);
      held = info["aof_enabled"] == "1" && IntOf(info["aof_buffer_length"]) > 0;
    }
    return !held;
  });
  return poll.met ? static_cast<int>(poll.waited_ms()) : -1;
}

std::vector<std::string> DurabilityCluster::ConfigLines(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  RedisClient* c = Control(0);
  for (const std::string& name : names) {
    auto r = c != nullptr ? c->Command({"CONFIG", "GET", name}) : Result<resp::Reply>(Status::IoError("no connection"));
    if (!r.ok() || r->is_error() || r->elements.size() < 2) {
      out.push_back(name + " (not read: " + (r.ok() ? r->str : r.status().message()) + ")");
      continue;
    }
    out.push_back(name + " " + (r->elements[1].str.empty() ? "\"\"" : r->elements[1].str));
  }
  return out;
}

int DurabilityCluster::SlotsOfFirstMaster() const {
  auto [lo, hi] = MasterSlotRange(0, static_cast<int>(topology_->spec().masters));
  return hi - lo + 1;
}

const char* FailureKind(const Status& failure) {
  return failure.code() == Status::Code::kTimeout ? "timeout" : "connection";
}

namespace {

Result<LoadOptions> LoadFor(const CellPlan& p, const RedisTarget& seed) {
  LoadOptions load;
  load.target = seed;
  load.cluster = p.cluster;
  load.threads = p.threads;
  load.clients = p.clients;
  load.pipeline = p.pipeline;
  load.duration_s = p.duration_s;
  load.key_prefix = fmt::format("do:{}:", p.size);
  load.key_min = 1;
  load.key_max = p.keys;
  load.value.min_size = load.value.max_size = p.size;
  load.value.content = p.payload == "compressible" ? ValueSpec::Content::kCompressible
                       : p.payload == "pattern"    ? ValueSpec::Content::kPattern
                                                   : ValueSpec::Content::kRandom;
  load.value.compress_ratio = p.payload == "compressible" ? p.compress_ratio : 1.0;
  load.seed = p.seed;
  CommandLimits limits;
  limits.key_max = p.keys;
  limits.value_max = p.size;
  auto spec = MakeCommandSpec(Protocol::kResp, p.op == "GET" ? "GET __key__" : "SET __key__ __data__",
                              load.key_prefix, KeyPatternSpec{}, 1, limits);
  if (!spec.ok()) return spec.status();
  load.commands.push_back(*spec);
  return load;
}

void FromEngine(const RunResult& run, CellResult* r) {
  const CommandStats& s = run.totals.commands.at(0);
  r->seconds = run.measured_s;
  r->ops = s.ops;
  r->error_replies = s.errors;
  r->ok_replies = s.ops - s.errors;
  r->unanswered = run.unanswered;
  r->hits = s.hits;
  r->misses = s.misses;
  r->ops_per_s = run.measured_s > 0 ? s.ops / run.measured_s : 0;
  if (s.latency_ns.total_count() > 0) {
    r->p50_ns = s.latency_ns.ValueAtPercentile(50);
    r->p95_ns = s.latency_ns.ValueAtPercentile(95);
    r->p99_ns = s.latency_ns.ValueAtPercentile(99);
    r->max_ns = s.latency_ns.max();
  }
  for (const auto& [prefix, kind] : s.errors_by_prefix) {
    r->errors[prefix] += kind.count;
    if (r->first_error.empty()) r->first_error = kind.example;
  }
  if (run.totals.connection_errors > 0 || !run.failure.ok()) {
    r->errors[FailureKind(run.failure)] += std::max<uint64_t>(run.totals.connection_errors, 1);
    r->first_error = run.failure.message();
  }
  r->moved_followed = run.totals.cluster_moved;
  r->tryagain_retried = run.totals.cluster_tryagain;
  r->client_cpu_s = run.process_cpu_user_s + run.process_cpu_sys_s;
  r->interrupted = run.interrupted;
}

void FromSeries(const std::vector<ResourceSeries>& series, CellResult* r) {
  int64_t rss_sum = 0, write_sum = 0;
  bool writes_known = !series.empty();
  for (const ResourceSeries& s : series) {
    ResourceSummary sum = Summarize(s);
    r->server_cpu_s += sum.cpu_s;
    rss_sum += sum.rss_mean;
    r->rss_max = std::max(r->rss_max, sum.rss_max);
    if (sum.write_bytes < 0) writes_known = false;
    write_sum += std::max<int64_t>(sum.write_bytes, 0);
  }
  r->rss_mean = series.empty() ? 0 : rss_sum / static_cast<int64_t>(series.size());
  r->write_bytes = writes_known ? write_sum : -1;
}

void CheckInvariant(CellResult* r) {
  if (!r->plan.aof || r->plan.op != "SET" || !r->ran) return;
  if (r->write_bytes < 0) return;  // unknown: the report says so
  const std::string lhs = r->aof_settle_ms >= 0
                              ? fmt::format("bytes written to storage (read once the AOF buffers were written, {} ms "
                                            "after the load)",
                                            r->aof_settle_ms)
                              : std::string("bytes written to storage (an AOF buffer still held data 5 s after the load)");
  r->invariant = MakeAtLeastInvariant(lhs, r->write_bytes, "successful SETs x value size",
                                      static_cast<int64_t>(r->ok_replies * r->plan.size));
}

}  // namespace

CellResult RunCell(const CellPlan& plan, DurabilityCluster& cluster, const std::atomic<bool>* interrupt) {
  CellResult r;
  r.plan = plan;
  auto load = LoadFor(plan, cluster.seed());
  if (!load.ok()) {
    r.not_run = load.status().message();
    return r;
  }
  int unanswered = 0;
  const auto aof_before = cluster.AofCounters(&unanswered);
  auto sampler = ResourceSampler::Start(cluster.processes(), kResourcePeriodMs);
  auto watch = ClusterWatch::Start(cluster.nodes());
  auto run = RunLoad(*load, interrupt);
  // The storage bytes count what reached the file: the AOF buffer written first.
  if (plan.aof) r.aof_settle_ms = cluster.WaitAofWritten(kAofSettleMs);
  r.cluster = watch->Stop();
  if (sampler.ok()) FromSeries((*sampler)->Stop(), &r);
  const auto aof_after = cluster.AofCounters(&unanswered);
  for (const auto& [k, v] : aof_after) {
    auto it = aof_before.find(k);
    r.aof[k] = v - (it != aof_before.end() ? it->second : 0);
  }
  if (!run.ok()) {
    r.not_run = "the engine could not start: " + run.status().message();
    r.errors[FailureKind(run.status())] = 1;
    r.first_error = run.status().message();
    return r;
  }
  r.ran = true;
  FromEngine(*run, &r);
  // The watcher's CLUSTER INFO and CLUSTER NODES, one each per node and sample, reached
  // the servers beside the load: memstand's own, not another client's.
  const int64_t watched = static_cast<int64_t>(r.cluster.samples) * static_cast<int64_t>(cluster.nodes().size());
  AllowOwnCommands({{"cluster|info", watched}, {"cluster|nodes", watched}, {"cluster", 2 * watched}},
                   &run->cross_check);
  r.validity = AssessRun(*load, *run);
  CheckInvariant(&r);
  return r;
}

}  // namespace memstand
