#include "scenario/replication_cost/replication_cost.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>

#include <fmt/format.h>

#include "client/redis_client.h"
#include "core/clock.h"
#include "load/command_spec.h"
#include "load/engine.h"
#include "load/proto_control.h"
#include "scenario/kit/evidence.h"
#include "scenario/kit/runs.h"
#include "scenario/kit/poll.h"
#include "scenario/kit/scenario_server.h"
#include "scenario/kit/topology_nodes.h"
#include "scenario/replication_cost/run.h"
#include "stand/proc_identity.h"
#include "stand/proc_stats.h"
#include "stand/server_node.h"
#include "stats/knee.h"
#include "util/parse.h"

namespace memstand {
namespace {

constexpr int64_t kSettlePollNs = 5'000'000;
constexpr int64_t kQueuePollNs = 10'000'000;
constexpr char kKeyPrefix[] = "rc:";
// Redis SET keys: a range much larger than a cell writes, so most SETs add a key.
constexpr uint64_t kRedisKeys = 1'000'000;

// The published schema: id unsigned, bucket_id unsigned nullable, value string.
constexpr char kSchemaLua[] = R"lua(
local format = {{name = 'id', type = 'unsigned'}, {name = 'bucket_id', type = 'unsigned', is_nullable = true},
                {name = 'value', type = 'string'}}
local async = box.schema.space.create('async', {format = format, if_not_exists = true})
async:create_index('pk', {parts = {'id'}, if_not_exists = true})
local sync = box.schema.space.create('sync', {format = format, is_sync = true, if_not_exists = true})
sync:create_index('pk', {parts = {'id'}, if_not_exists = true})
local sync_all = box.schema.space.create('sync_all', {format = format, is_sync = true, if_not_exists = true})
sync_all:create_index('pk', {parts = {'id'}, if_not_exists = true})
return async.id, sync.id, sync_all.id, box.cfg.replication_synchro_quorum, box.cfg.replication_synchro_timeout,
       box.info.version
)lua";

// One path: what its connections send, where, and whether it writes.
struct Path {
  std::string name;
  std::vector<std::string> commands;  // templates, sent in a fixed 1:1 cycle
  bool write = false;
  bool replicas = false;  // round robin over the replicas instead of the master
  uint64_t key_max = 0;   // reads and Redis SET: keys 0..key_max (uniform)
  /// sync-write: how long a request left unanswered can stay queued on the master
  /// (replication_synchro_timeout); 0 for the others.
  double queue_timeout_s = 0;
  /// The synchronous paths: the space written and the master's replication_synchro_quorum
  /// set before each of its cells (0: not a synchronous path).
  std::string space{};
  int quorum = 0;
};

// Reads one node's count: space:len() or DBSIZE.
using Counter = std::function<Result<int64_t>(size_t node)>;

// A system under test: its topology, a control connection per node, its paths.
struct System {
  std::string name;
  Protocol protocol = Protocol::kResp;
  std::unique_ptr<Topology> topology;
  std::vector<std::unique_ptr<ProtoControl>> tarantool;  // per node
  std::vector<std::unique_ptr<RedisClient>> redis;       // per node
  Counter count;
};


// Keeps every node's configuration (its command line, Tarantool's init.lua) and log tail
// for the evidence folder when the system's run ends, on every path out of it.
struct EvidenceOnExit {
  const System& sys;
  ReplicationSystemRun* out;
  ~EvidenceOnExit() {
    if (sys.topology == nullptr) return;
    for (const NodeRecord& n : sys.topology->nodes()) {
      const std::string name = sys.name + "-" + n.name;
      std::string conf = "# " + name + " (" + n.role + "), command line:\n" + JoinCmdline(n.process.cmdline) + "\n";
      std::ifstream lua(n.dir + "/init.lua");
      if (lua) conf += "# init.lua:\n" + std::string(std::istreambuf_iterator<char>(lua), {});
      if (out->run == 1) out->files["servers/" + name + ".conf"] = conf;
      KeepLogTail(name, out->run, n.log, &out->files);
    }
  }
};

double Share(double cpu_s, double wall_s) { return wall_s > 0 ? cpu_s / wall_s : 0; }

ReplicationCommand CommandOf(const CommandSpec& spec, const CommandStats& s) {
  ReplicationCommand c;
  c.label = spec.label;
  c.ops = s.ops;
  c.errors = s.errors;
  c.p50_us = double(s.latency_ns.ValueAtPercentile(50)) / 1000;
  c.p99_us = double(s.latency_ns.ValueAtPercentile(99)) / 1000;
  c.mean_us = s.latency_ns.mean() / 1000;
  return c;
}

// The cell's path figures from its commands: one command, or SET + WAIT.
void Summarize(const RunResult& run, const LoadOptions& load, ReplicationCell* cell) {
  for (size_t i = 0; i < load.commands.size(); ++i) {
    const CommandStats& s = run.totals.commands.at(i);
    ReplicationCommand c = CommandOf(load.commands[i], s);
    cell->errors += s.errors;
    cell->p50_us += c.p50_us;
    cell->p99_us += c.p99_us;
    cell->mean_us += c.mean_us;
    cell->hits += s.hits;
    cell->misses += s.misses;
    for (const auto& [prefix, kind] : s.errors_by_prefix) {
      if (cell->first_error.empty()) cell->first_error = kind.example;
      cell->error_kinds.push_back({c.label + " " + prefix, {kind.count, kind.example}});
    }
    cell->commands.push_back(c);
  }
  const CommandStats& last = run.totals.commands.back();  // the WAIT paths: WAIT
  cell->ops = last.ops - last.errors;
  cell->unanswered = run.unanswered;
  cell->measured_s = run.measured_s;
  cell->ops_per_sec = run.measured_s > 0 ? double(cell->ops) / run.measured_s : 0;
  cell->client_core_share = Share(run.client_cpu_s(), run.measured_s);
  cell->client_bottleneck = ClientIsBottleneck(cell->client_core_share);
  if (!run.failure.ok()) cell->failure = run.failure.message();
}

Result<LoadOptions> LoadFor(const System& sys, const Path& path, uint64_t concurrency,
                            const ReplicationCostOptions& o, uint64_t seed) {
  LoadOptions load;
  const auto& nodes = sys.topology->nodes();
  if (path.replicas) {
    for (size_t i = 1; i < nodes.size(); ++i) load.pool.push_back(TargetOfNode(nodes[i], sys.protocol));
    load.target = load.pool.front();
  } else {
    load.target = TargetOfNode(nodes[0], sys.protocol);
  }
  load.protocol = sys.protocol;
  load.threads = 1;
  load.clients = static_cast<int>(concurrency);
  load.pipeline = 1;
  load.duration_s = o.step_s;
  load.warmup_s = o.warmup_s;
  load.key_prefix = kKeyPrefix;
  load.key_min = 0;
  load.key_max = path.key_max;
  load.value.min_size = load.value.max_size = kReplicationValueSize;
  load.value.content = ValueSpec::Content::kRandom;
  load.seed = seed;
  CommandLimits limits;
  limits.key_max = path.key_max;
  limits.value_max = kReplicationValueSize;
  for (const std::string& text : path.commands) {
    auto spec = MakeCommandSpec(sys.protocol, text, kKeyPrefix, KeyPatternSpec{}, 1, limits);
    if (!spec.ok()) return spec.status();
    load.commands.push_back(*spec);
  }
  return load;
}

std::vector<ProcSample> SampleServers(const System& sys) {
  std::vector<ProcSample> out;
  for (const NodeRecord& n : sys.topology->nodes()) {
    auto s = ReadProcSample(n.process.pid);
    out.push_back(s.ok() ? *s : ProcSample{});
  }
  return out;
}

// Polls every node's count until each replica's equals the master's (no writes run
// now), bounded by the settle timeout.
void Settle(System& sys, const ReplicationCostOptions& o, ReplicationCell* cell) {
  const auto& nodes = sys.topology->nodes();
  cell->counted = true;
  const PollResult poll = PollUntil(DeadlineInMs(o.settle_timeout_ms), kSettlePollNs, [&]() -> Result<bool> {
    std::vector<int64_t> counts;
    for (size_t i = 0; i < nodes.size(); ++i) {
      auto c = sys.count(i);
      if (!c.ok()) return c.status().WithContext(nodes[i].name);
      counts.push_back(*c);
    }
    cell->master_count = counts[0];
    cell->replica_counts.clear();
    bool equal = true;
    for (size_t i = 1; i < nodes.size(); ++i) {
      cell->replica_counts.emplace_back(nodes[i].name, counts[i]);
      equal &= counts[i] == counts[0];
    }
    return equal;
  });
  if (!poll.failure.ok()) {
    cell->failure = poll.failure.message();
    return;
  }
  cell->settle_ms = poll.waited_ms();
  cell->settled = poll.met;
}

// Requests the engine stopped waiting for may still be queued on the master (a
// synchronous write waits for its quorum up to replication_synchro_timeout): waits that
// long, and a little more, so that the count and the next cell see them settled.
void WaitOutQueue(double timeout_s, const ScenarioContext& ctx, ReplicationCell* cell) {
  const int64_t deadline = NowNs() + static_cast<int64_t>((timeout_s + 0.5) * 1e9);
  // Nothing to check: the wait ends at the deadline, or at a signal.
  const PollResult poll = PollUntil(deadline, kQueuePollNs, []() -> Result<bool> { return false; }, ctx.interrupt);
  cell->queue_wait_ms = poll.waited_ms();
}

ReplicationCell RunCell(System& sys, const Path& path, uint64_t concurrency, const ReplicationCostOptions& o,
                        const ScenarioContext& ctx, int run, uint64_t seed) {
  ReplicationCell cell;
  cell.run = run;
  cell.system = sys.name;
  cell.path = path.name;
  cell.concurrency = concurrency;
  cell.write = path.write;
  auto load = LoadFor(sys, path, concurrency, o, seed);
  if (!load.ok()) {
    cell.failure = load.status().message();
    return cell;
  }
  std::vector<ProcSample> before = SampleServers(sys);
  const int64_t started = NowNs();
  auto result = RunLoad(*load, ctx.interrupt);
  const double wall_s = static_cast<double>(NowNs() - started) / 1e9;
  std::vector<ProcSample> after = SampleServers(sys);
  const auto& nodes = sys.topology->nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    double cpu = (after[i].user_sec + after[i].sys_sec) - (before[i].user_sec + before[i].sys_sec);
    cell.servers.push_back({nodes[i].name, nodes[i].process.pid, Share(cpu, wall_s)});
  }
  if (!result.ok()) {
    cell.failure = result.status().message();
    return cell;
  }
  Summarize(*result, *load, &cell);
  cell.validity = AssessRun(*load, *result);
  if (result->interrupted) cell.failure = "interrupted";
  cell.stalled = result->measured_s <= 0 || cell.unanswered > 0;
  if (cell.stalled && path.queue_timeout_s > 0) WaitOutQueue(path.queue_timeout_s, ctx, &cell);
  if (cell.failure.empty() && path.write) Settle(sys, o, &cell);
  return cell;
}

bool EveryNodeRuns(System& sys) {
  for (size_t i = 0; i < sys.topology->nodes().size(); ++i) {
    if (!sys.topology->NodeEnded(i).empty()) return false;
  }
  return true;
}

// The paths of each concurrency level in the order they run: A B at even levels, B A at
// odd ones (docs/method.md rule 10), writes before reads (the reads need the data).
std::vector<const Path*> LevelOrder(const std::vector<Path>& writes, const std::vector<Path>& reads, size_t level) {
  std::vector<const Path*> order;
  for (const std::vector<Path>* group : {&writes, &reads}) {
    std::vector<const Path*> g;
    for (const Path& p : *group) g.push_back(&p);
    if (level % 2 == 1) std::reverse(g.begin(), g.end());
    order.insert(order.end(), g.begin(), g.end());
  }
  return order;
}

// Every path at every concurrency level. Reads take keys 0..read_key_max() (read once
// per level, after its writes); before each cell, `before(path)` (may be empty).
void Sweep(System& sys, const std::vector<Path>& writes, const std::vector<Path>& reads,
           const ReplicationCostOptions& o, const ScenarioContext& ctx, ReplicationSystemRun* out,
           const std::function<uint64_t()>& read_key_max, const std::function<void(const Path&)>& before) {
  uint64_t seed = ctx.seed * 1000 + static_cast<uint64_t>(out->run) * 100;
  for (size_t level = 0; level < o.concurrency.size(); ++level) {
    uint64_t key_max = 0;
    bool keyed = false;
    for (const Path* p : LevelOrder(writes, reads, level)) {
      if (ctx.interrupted()) return;
      Path path = *p;
      if (!path.write) {
        if (!keyed) key_max = read_key_max();
        keyed = true;
        path.key_max = key_max;
      }
      if (before) before(path);
      ctx.Progress("replication-cost", fmt::format("run {}: {} {} at concurrency {}", out->run, sys.name, path.name,
                                                   o.concurrency[level]));
      out->cells.push_back(RunCell(sys, path, o.concurrency[level], o, ctx, out->run, ++seed));
      // A failed cell whose servers all still run (Tarantool 2.6 may close a connection
      // whose synchronous write it rolled back) is that cell's finding; after a lost
      // server the rest would not mean much.
      if (!out->cells.back().failure.empty() && (ctx.interrupted() || !EveryNodeRuns(sys))) return;
    }
  }
}

// --- Tarantool ---------------------------------------------------------------------

// Starts sys's topology; false, with out->failure saying what did not start, on an error.
bool StartSystem(const TopologySpec& spec, const std::string& what, const ScenarioContext& ctx, System* sys,
                 ReplicationSystemRun* out) {
  ctx.Progress("replication-cost", fmt::format("run {}: starting {}: {}", out->run, sys->name, what));
  auto t = StartScenarioTopology(spec, ctx.interrupt);
  if (!t.ok()) {
    // A start cut short by the signal is interrupted, not failed (Verdict).
    if (ctx.interrupted()) {
      ctx.Progress("replication-cost", fmt::format("run {}: {}: the start was interrupted: {}", out->run, sys->name,
                                                   t.status().message()));
    }
    out->failure = ctx.interrupted() ? "interrupted" : what + " did not start: " + t.status().message();
    return false;
  }
  sys->topology = std::move(*t);
  return true;
}

Result<iproto::Value> EvalOn(System& sys, size_t node, const std::string& lua) {
  return sys.tarantool.at(node)->Eval(lua, iproto::Value::Array({}));
}

Result<int64_t> IntegerOf(const Result<iproto::Value>& r) {
  if (!r.ok()) return r.status();
  if (r->size() < 1) return Status::Protocol("an empty EVAL result");
  const iproto::Value& v = r->items()[0];
  if (v.type() == iproto::Value::Type::kUint) return static_cast<int64_t>(v.uint_value());
  if (v.type() == iproto::Value::Type::kInt) return v.int_value();
  return Status::Protocol("not an integer: " + iproto::ToString(v));
}

Status ConnectTarantool(System& sys) {
  for (const NodeRecord& n : sys.topology->nodes()) {
    auto c = ProtoControl::Connect(Protocol::kIproto, TargetOfNode(n, Protocol::kIproto), kControlTimeoutMs);
    if (!c.ok()) return c.status().WithContext(n.name);
    sys.tarantool.push_back(std::move(*c));
  }
  return Status::OK();
}

// Waits until every replica has both spaces (they come by replication).
Status WaitForSchema(System& sys, int timeout_ms) {
  const int64_t deadline = DeadlineInMs(timeout_ms);
  for (size_t i = 1; i < sys.tarantool.size(); ++i) {
    const PollResult poll = PollUntil(deadline, kSettlePollNs, [&]() -> Result<bool> {
      auto r = IntegerOf(
          EvalOn(sys, i, "return (box.space.async and box.space.sync and box.space.sync_all) and 1 or 0"));
      if (!r.ok()) return r.status();
      return *r == 1;
    });
    if (!poll.failure.ok()) return poll.failure;
    if (!poll.met) return Status::Timeout("the spaces did not reach replica " + std::to_string(i));
  }
  return Status::OK();
}

// The spaces kSchemaLua made on the master, by id.
struct TarantoolSpaces {
  uint64_t async = 0, sync = 0, sync_all = 0;
};

// Connects to every node, makes the spaces on the master and waits until every replica
// has them; notes the version and box.cfg as read back. false with out->failure set.
bool PrepareTarantool(System& sys, const ReplicationCostOptions& o, int members, ReplicationSystemRun* out,
                      TarantoolSpaces* spaces) {
  if (Status s = ConnectTarantool(sys); !s.ok()) {
    out->failure = s.message();
    return false;
  }
  auto schema = EvalOn(sys, 0, kSchemaLua);
  if (!schema.ok() || schema->size() < 6) {
    out->failure = "creating the spaces: " + (schema.ok() ? iproto::ToString(*schema) : schema.status().message());
    return false;
  }
  const auto& v = schema->items();
  *spaces = {v[0].uint_value(), v[1].uint_value(), v[2].uint_value()};
  out->version = v[5].str();
  out->notes.push_back(fmt::format("Tarantool {}: synchronous replication {}", out->version,
                                   SupportsSynchronousReplication(out->version) ? "supported (2.6 and later)"
                                                                                : "NOT supported (2.6 and later)"));
  out->notes.push_back(fmt::format("box.cfg read back on the master: replication_synchro_quorum = {} (the majority "
                                   "of {} members), replication_synchro_timeout = {} s",
                                   iproto::ToString(v[3]), members, iproto::ToString(v[4])));
  for (const NodeRecord& n : sys.topology->nodes()) {
    out->description += fmt::format("{}{} {} on {}:{} (pid {})", out->description.empty() ? "" : ", ", n.role,
                                    n.name, n.host, n.port, n.process.pid);
  }
  if (Status s = WaitForSchema(sys, o.settle_timeout_ms); !s.ok()) {
    out->failure = s.message();
    return false;
  }
  return true;
}

// The write paths: async, and each --sync-quorum where the version has is_sync spaces.
std::vector<Path> TarantoolWrites(const ReplicationCostOptions& o, const TarantoolSpaces& spaces, int members,
                                  ReplicationSystemRun* out) {
  const std::string value = fmt::format("__rand:{}__", kReplicationValueSize);
  auto replace = [&value](uint64_t space_id) { return fmt::format("replace {} [__seq__, nil, {}]", space_id, value); };
  std::vector<Path> writes = {{"async-write", {replace(spaces.async)}, true, false, 0, 0, "async", 0}};
  if (!SupportsSynchronousReplication(out->version)) {
    out->notes.push_back("sync-write not run: this Tarantool has no is_sync spaces");
    return writes;
  }
  for (const std::string& q : o.sync_quorums) {
    if (q == "majority") {
      writes.push_back({"sync-write", {replace(spaces.sync)}, true, false, 0, o.synchro_timeout_s, "sync",
                        MajorityQuorum(members)});
    } else {
      writes.push_back({"sync-write-all", {replace(spaces.sync_all)}, true, false, 0, o.synchro_timeout_s,
                        "sync_all", members});
    }
  }
  return writes;
}

// Before a synchronous path's cell: its quorum on the master (the limbo's owner), read
// back; a quorum that does not take is noted (the cell then measures the other one).
void SetQuorumFor(System& sys, const Path& p, int* quorum, ReplicationSystemRun* out) {
  if (p.quorum == 0 || p.quorum == *quorum) return;
  auto set = IntegerOf(EvalOn(sys, 0,
                              fmt::format("box.cfg{{replication_synchro_quorum = {}}} "
                                          "return box.cfg.replication_synchro_quorum",
                                          p.quorum)));
  if (set.ok() && *set == p.quorum) {
    *quorum = p.quorum;
  } else {
    out->notes.push_back(fmt::format("{}: setting replication_synchro_quorum = {} on the master failed: {}", p.name,
                                     p.quorum, set.ok() ? std::to_string(*set) : set.status().message()));
  }
}

void RunTarantool(const ReplicationCostOptions& o, const ScenarioContext& ctx, ReplicationSystemRun* out) {
  const int members = 1 + kTarantoolReplicas;
  TopologySpec spec;
  spec.kind = TopologyKind::kTarantoolReplicaSet;
  spec.replicas = kTarantoolReplicas;
  spec.settings = {{"replication_synchro_quorum", std::to_string(MajorityQuorum(members))},
                   {"replication_synchro_timeout", fmt::format("{:g}", o.synchro_timeout_s)}};
  System sys;
  sys.name = "tarantool";
  sys.protocol = Protocol::kIproto;
  EvidenceOnExit evidence{sys, out};
  if (!StartSystem(spec, "the replica set", ctx, &sys, out)) return;
  TarantoolSpaces spaces;
  if (!PrepareTarantool(sys, o, members, out, &spaces)) return;
  const std::vector<Path> writes = TarantoolWrites(o, spaces, members, out);
  const std::string select = fmt::format("select {} 0 eq [__keynum__] limit 1", spaces.async);
  std::vector<Path> reads = {{"read-master", {select}, false, false, 0}, {"read-replicas", {select}, false, true, 0}};
  std::string space = "async";  // the space the cell writes: each write cell counts its own
  sys.count = [&sys, &space](size_t node) {
    return IntegerOf(EvalOn(sys, node, "return box.space." + space + ":len()"));
  };
  auto read_key_max = [&sys]() -> uint64_t {
    auto n = IntegerOf(EvalOn(sys, 0, "return box.space.async:len()"));
    return n.ok() && *n > 0 ? static_cast<uint64_t>(*n - 1) : 0;
  };
  int quorum = MajorityQuorum(members);
  Sweep(sys, writes, reads, o, ctx, out, read_key_max, [&](const Path& p) {
    if (p.write) space = p.space;
    SetQuorumFor(sys, p, &quorum, out);
  });
}

// --- Redis -------------------------------------------------------------------------

void RunRedis(const ReplicationCostOptions& o, const ScenarioContext& ctx, ReplicationSystemRun* out) {
  TopologySpec spec;
  spec.kind = TopologyKind::kRedisReplica;
  spec.replicas = kRedisReplicas;
  System sys;
  sys.name = "redis";
  EvidenceOnExit evidence{sys, out};
  if (!StartSystem(spec, "the primary and its replicas", ctx, &sys, out)) return;
  for (const NodeRecord& n : sys.topology->nodes()) {
    RedisClientOptions c;
    c.host = n.host;
    c.port = n.port;
    c.timeout_ms = kControlTimeoutMs;
    auto client = RedisClient::Connect(c);
    if (!client.ok()) {
      out->failure = n.name + ": " + client.status().message();
      return;
    }
    sys.redis.push_back(std::move(*client));
    out->description += fmt::format("{}{} on {}:{} (pid {})", out->description.empty() ? "" : ", ", n.name, n.host,
                                    n.port, n.process.pid);
  }
  out->version = sys.topology->nodes()[0].version;
  sys.count = [&sys](size_t node) -> Result<int64_t> {
    auto r = sys.redis.at(node)->Command({"DBSIZE"});
    if (!r.ok()) return r.status();
    if (r->is_error()) return Status::Server("DBSIZE: " + r->str);
    return r->integer;
  };
  const std::string set = "SET __key__ __data__";
  std::vector<Path> writes = {{"set", {set}, true, false, kRedisKeys - 1},
                              {"set+wait1", {set, "WAIT 1 0"}, true, false, kRedisKeys - 1},
                              {"set+wait2", {set, "WAIT 2 0"}, true, false, kRedisKeys - 1}};
  Sweep(sys, writes, {}, o, ctx, out, [] { return uint64_t{0}; }, {});
}

}  // namespace

Result<std::vector<uint64_t>> ParseConcurrency(std::string_view text) {
  auto values = ParseIncreasingList(text);
  if (!values.ok()) return Status::InvalidArgument("--concurrency: " + values.status().message());
  if (values->back() > 1024) {
    return Status::InvalidArgument(fmt::format("--concurrency: {} is above 1024 connections", values->back()));
  }
  return values;
}

Status ValidateReplicationCost(const ReplicationCostOptions& o) {
  if (o.concurrency.empty()) return Status::InvalidArgument("--concurrency: give at least one value");
  for (size_t i = 0; i < o.concurrency.size(); ++i) {
    if (o.concurrency[i] < 1 || o.concurrency[i] > 1024 || (i > 0 && o.concurrency[i] <= o.concurrency[i - 1])) {
      return Status::InvalidArgument("--concurrency: increasing values 1..1024");
    }
  }
  if (!(o.step_s >= 0.1 && o.step_s <= 3600)) {
    return Status::InvalidArgument(fmt::format("--step-duration must be 0.1 s .. 1 h, got {:g}", o.step_s));
  }
  if (o.systems.empty()) return Status::InvalidArgument("--only: name tarantool, redis or both");
  for (const std::string& s : o.systems) {
    if (s != "tarantool" && s != "redis") {
      return Status::InvalidArgument("--only: no system '" + s.substr(0, 40) + "'; known: tarantool, redis");
    }
  }
  for (const std::string& q : o.sync_quorums) {
    if (q != "majority" && q != "all") return Status::InvalidArgument("--sync-quorum: majority, all or both");
  }
  return Status::OK();
}

Result<std::vector<std::string>> ParseSyncQuorums(std::string_view text) {
  return ParseWordList(text, "--sync-quorum", {"majority", "all"});
}

int MajorityQuorum(int members) { return members / 2 + 1; }

bool SupportsSynchronousReplication(std::string_view version) {
  int major = 0, minor = 0;
  if (std::sscanf(std::string(version).c_str(), "%d.%d", &major, &minor) != 2) return false;
  return major > 2 || (major == 2 && minor >= 6);
}

bool ClientIsBottleneck(double core_share) { return core_share > kClientBottleneckShare; }

std::optional<size_t> ReplicationKnee(const std::vector<KneePoint>& points) {
  std::vector<SweepPoint> p;
  for (const KneePoint& k : points) p.push_back({double(k.concurrency), k.ops_per_sec, k.p99_us});
  return FindKnee(p, kReplicationKneeMinGain);
}

double ExpectedSeconds(const ReplicationCostOptions& o, int runs) {
  double cells = 0, startup = 0;
  for (const std::string& s : o.systems) {
    cells += s == "tarantool" ? 3 + static_cast<double>(o.sync_quorums.size()) : 3;
    startup += s == "tarantool" ? 3 : 1;
  }
  // Each cell: warm-up, the measured steps, the drain and the settle wait (~0.3 s).
  return runs * (startup + cells * double(o.concurrency.size()) * (o.warmup_s + o.step_s + 0.3));
}

Result<ScenarioReport> RunReplicationCost(const ReplicationCostOptions& o, const ScenarioContext& ctx) {
  Status valid = ValidateReplicationCost(o);
  if (!valid.ok()) return valid;
  ScenarioReport report;
  report.scenario = "replication-cost";
  report.runs_requested = ctx.runs;
  std::vector<ReplicationSystemRun> runs;
  ForEachRun(ctx, &report, [&](int run) {
    for (const std::string& name : o.systems) {
      ReplicationSystemRun r;
      r.run = run;
      r.system = name;
      r.not_run = NotInstalledLine(name == "redis" ? SystemKind::kRedis : SystemKind::kTarantool);
      if (r.not_run.empty()) (name == "tarantool" ? RunTarantool : RunRedis)(o, ctx, &r);
      runs.push_back(std::move(r));
      if (ctx.interrupted()) break;
    }
  });
  FillReplicationReport(o, runs, ctx.interrupted(), &report);
  return report;
}

}  // namespace memstand
