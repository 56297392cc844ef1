#include "scenario/failover/failover.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "client/redis_client.h"
#include "core/clock.h"
#include "history/history_reader.h"
#include "load/cluster_map.h"
#include "load/command_spec.h"
#include "load/engine.h"
#include "load/history_checks.h"
#include "load/history_events.h"
#include "load/target.h"
#include "load/proto_control.h"
#include "proto/etcd/etcd.h"
#include "scenario/failover/cell.h"
#include "scenario/failover/tarantool.h"
#include "scenario/kit/evidence.h"
#include "scenario/kit/nemesis.h"
#include "scenario/kit/poll.h"
#include "scenario/kit/register_load.h"
#include "scenario/kit/runs.h"
#include "scenario/kit/scenario_server.h"
#include "scenario/kit/topology_nodes.h"
#include "stand/sentinel_driver.h"
#include "stand/temp_folder.h"
#include "stand/topology.h"

namespace memstand {
namespace {

constexpr const char* kScenario = "failover";
constexpr int kControlTimeoutMs = 1000;
// How often the detection and the promotion are looked for: their resolution.
constexpr int64_t kWatchPollNs = 10'000'000;
// Every key of the Redis Cluster configuration is in the slot of this hash tag, so every
// write goes to the one master the fault hits.
constexpr const char* kHashTag = "fo";
constexpr const char* kKeyPrefix = "failover-";
// The WAIT configurations: WAIT 1 after every write (FailoverOptions::wait_timeout_ms).
constexpr int kWaitReplicas = 1;

// --- What a configuration is --------------------------------------------------------

struct Config {
  std::string name;  // the topology's: a WAIT configuration has its Redis configuration's
  SystemKind system;
  Protocol protocol;
  bool wait = false;  // every write followed by WAIT (the "-wait" configurations)
};

std::optional<Config> WaitConfigOf(const std::string& name);

std::optional<Config> ConfigOf(const std::string& name) {
  if (auto waits = WaitConfigOf(name)) return waits;
  if (name == "redis-cluster" || name == "redis-sentinel") return Config{name, SystemKind::kRedis, Protocol::kResp};
  if (name == "etcd") return Config{name, SystemKind::kEtcd, Protocol::kEtcd};
  if (name == "tarantool") return Config{name, SystemKind::kTarantool, Protocol::kIproto};
  return std::nullopt;
}

// "redis-cluster-wait", "redis-sentinel-wait": the Redis configuration's topology, faults
// and load, every write followed by WAIT 1 on its connection (one operation with it).
std::optional<Config> WaitConfigOf(const std::string& name) {
  for (const char* redis : {"redis-cluster", "redis-sentinel"}) {
    if (name != std::string(redis) + "-wait") continue;
    Config c = *ConfigOf(redis);
    c.wait = true;
    return c;
  }
  return std::nullopt;
}

TopologySpec SpecOf(const Config& c, const FailoverOptions& o) {
  TopologySpec spec;
  if (c.name == "redis-cluster") {
    spec.kind = TopologyKind::kRedisCluster;
    spec.masters = 3;
    spec.replicas = 1;
    spec.settings = {{"cluster-node-timeout", std::to_string(o.node_timeout_ms)}};
    if (o.plant_loss) spec.settings.push_back({"cluster-replica-validity-factor", "0"});
  } else if (c.name == "redis-sentinel") {
    spec.kind = TopologyKind::kRedisSentinel;
    spec.replicas = 2;
    spec.settings = {{"sentinel.down-after-milliseconds", std::to_string(o.node_timeout_ms)},
                     {"sentinel.failover-timeout", "5000"}};
  } else if (c.name == "tarantool") {
    spec.kind = TopologyKind::kTarantoolReplicaSet;  // a master, 2 replicas: the scenario orchestrates
    spec.replicas = 2;
  } else {
    spec.kind = TopologyKind::kEtcdCluster;
    spec.members = 3;
  }
  return spec;
}

// Redis Cluster: the master of the hash tag's slot, and its replica.
Status FindClusterVictim(const Topology& t, FailoverCell* cell) {
  const NodeRecord& seed = t.nodes()[0];
  auto c = RedisClient::Connect(seed.host, seed.port, kControlTimeoutMs);
  if (!c.ok()) return c.status().WithContext(seed.name);
  auto slots = (*c)->Command({"CLUSTER", "SLOTS"});
  if (!slots.ok()) return slots.status().WithContext("CLUSTER SLOTS");
  const int slot = KeySlot(kHashTag);
  int port = 0;
  for (const resp::Reply& range : slots->elements) {
    if (range.elements.size() < 3) continue;
    if (slot >= range.elements[0].integer && slot <= range.elements[1].integer &&
        range.elements[2].elements.size() >= 2) {
      port = static_cast<int>(range.elements[2].elements[1].integer);
    }
  }
  for (const NodeRecord& n : t.nodes()) {
    if (n.role == "master" && n.port == port) {
      cell->victim = n.name;
      cell->victim_address = NodeAddress(n);
    }
  }
  for (const NodeRecord& n : t.nodes()) {
    if (!cell->victim.empty() && n.replica_of == cell->victim) cell->successor = n.name;
  }
  if (cell->victim.empty() || cell->successor.empty()) {
    return Status::Failed(fmt::format("no master with a replica serves slot {} (port {})", slot, port));
  }
  return Status::OK();
}

// Redis + Sentinel: the primary; which replica takes over is the Sentinels' choice.
Status FindSentinelVictim(const Topology& t, FailoverCell* cell) {
  for (const NodeRecord& n : t.nodes()) {
    if (n.role == "primary") {
      cell->victim = n.name;
      cell->victim_address = NodeAddress(n);
      return Status::OK();
    }
  }
  return Status::Failed("the topology has no primary");
}

// The Sentinel target of the topology: every Sentinel, the stand's master name.
Result<RedisTarget> SentinelTarget(const Topology& t) {
  std::string hosts;
  for (const NodeRecord& n : t.nodes()) {
    if (n.role == "sentinel") hosts += (hosts.empty() ? "" : ",") + NodeAddress(n);
  }
  return ParseTargetUrl(fmt::format("redis+sentinel://{}/{}", hosts, kSentinelMasterName));
}

Result<etcd::Summary> EtcdStatus(const NodeRecord& n) {
  auto c = ProtoControl::Connect(Protocol::kEtcd, TargetOfNode(n, Protocol::kEtcd), kControlTimeoutMs);
  if (!c.ok()) return c.status();
  return (*c)->EtcdRequest([](Buffer* out, const etcd::Target& et) { etcd::AppendStatus(out, et); });
}

// etcd: the leader, and every member's id (to name a new leader).
Status FindEtcdVictim(const Topology& t, std::map<uint64_t, std::string>* members, FailoverCell* cell) {
  uint64_t leader = 0;
  for (const NodeRecord& n : t.nodes()) {
    auto s = EtcdStatus(n);
    if (!s.ok()) return s.status().WithContext(n.name);
    (*members)[s->member_id] = n.name;
    leader = s->leader;
  }
  const auto it = members->find(leader);
  if (it == members->end()) return Status::Failed("no member is the leader the members name");
  cell->victim = it->second;
  cell->victim_address = NodeAddress(t.nodes()[NodeIndex(t, it->second)]);
  return Status::OK();
}

// --- The load -------------------------------------------------------------------------

Result<LoadOptions> LoadOf(const Config& c, const Topology& t, const FailoverCell& cell, const FailoverOptions& o,
                           const std::string& history_path, uint64_t seed) {
  LoadOptions load;
  load.protocol = c.protocol;
  std::vector<std::string> commands;
  if (c.name == "redis-cluster") {
    bool seeded = false;
    for (const NodeRecord& n : t.nodes()) {  // the seed: a master the fault leaves alone
      if (n.role == "master" && n.name != cell.victim && !seeded) {
        load.target = TargetOfNode(n, c.protocol);
        seeded = true;
      }
    }
    load.cluster = true;
    commands = {fmt::format("SET {{{}}}__key__ __data__", kHashTag), fmt::format("GET {{{}}}__key__", kHashTag)};
  } else if (c.name == "redis-sentinel") {
    auto target = SentinelTarget(t);
    if (!target.ok()) return target.status();
    load.target = *target;
    commands = {"SET __key__ __data__", "GET __key__"};
  } else if (c.name == "tarantool") {
    auto target = TarantoolPoolTarget(t);
    if (!target.ok()) return target.status();
    load.target = *target;
    commands = TarantoolCommands();
  } else {
    for (const NodeRecord& n : t.nodes()) load.pool.push_back(TargetOfNode(n, c.protocol));
    load.target = load.pool.front();
    commands = {"put __key__ __data__", "get __key__"};
  }
  RegisterLoad spec;
  spec.commands = commands;
  spec.key_prefix = kKeyPrefix;
  spec.keys = o.keys;
  spec.clients = o.clients;
  spec.rate = o.rate;
  spec.duration_s = o.duration_s;
  spec.seed = seed;
  spec.history_path = history_path;
  if (Status s = MakeRegisterLoad(spec, &load); !s.ok()) return s;
  if (c.wait) load.wait = {kWaitReplicas, o.wait_timeout_ms};
  return load;
}

// --- Watching the failure detector and the promotion ----------------------------------

// Polls, from the fault on, until both are seen or `stop`: the times are Unix ns.
struct Watch {
  int64_t detect_unix_ns = 0, promote_unix_ns = 0;
  std::string new_primary;
};

void WatchCluster(const Topology& t, const FailoverCell& cell, const std::atomic<bool>& stop, Watch* w) {
  const NodeRecord* survivor = nullptr;
  for (const NodeRecord& n : t.nodes()) {
    if (n.role == "master" && n.name != cell.victim && survivor == nullptr) survivor = &n;
  }
  const NodeRecord& successor = t.nodes()[NodeIndex(t, cell.successor)];
  std::unique_ptr<RedisClient> s, r;
  const std::string mark = cell.victim_address + "@";
  while (!stop.load() && (w->detect_unix_ns == 0 || w->promote_unix_ns == 0)) {
    if (s == nullptr) {
      auto c = RedisClient::Connect(survivor->host, survivor->port, kControlTimeoutMs);
      if (c.ok()) s = std::move(*c);
    }
    if (r == nullptr) {
      auto c = RedisClient::Connect(successor.host, successor.port, kControlTimeoutMs);
      if (c.ok()) r = std::move(*c);
    }
    if (s != nullptr && w->detect_unix_ns == 0) {
      auto nodes = s->Command({"CLUSTER", "NODES"});
      if (!nodes.ok()) s.reset();
      const std::string text = nodes.ok() ? nodes->str : "";
      const size_t at = text.find(mark);
      const size_t eol = at == std::string::npos ? at : text.find('\n', at);
      const std::string line = at == std::string::npos ? "" : text.substr(at, eol - at);
      if (line.find(",fail") != std::string::npos || line.find(" fail") != std::string::npos) {
        if (line.find("fail?") == std::string::npos || line.find(",fail,") != std::string::npos ||
            line.find(",fail ") != std::string::npos) {
          w->detect_unix_ns = UnixNowNs();
        }
      }
    }
    if (r != nullptr && w->promote_unix_ns == 0) {
      auto role = r->Command({"ROLE"});
      if (!role.ok()) r.reset();
      if (role.ok() && !role->elements.empty() && role->elements[0].str == "master") {
        w->promote_unix_ns = UnixNowNs();
        w->new_primary = cell.successor;
      }
    }
    std::this_thread::sleep_for(std::chrono::nanoseconds(kWatchPollNs));
  }
}

// Redis + Sentinel: a Sentinel's view: the primary objectively down (o_down), then
// another address for the master name.
void WatchSentinel(const Topology& t, const FailoverCell& cell, const std::atomic<bool>& stop, Watch* w) {
  const NodeRecord* sentinel = nullptr;
  for (const NodeRecord& n : t.nodes()) {
    if (n.role == "sentinel" && sentinel == nullptr) sentinel = &n;
  }
  std::unique_ptr<RedisClient> s;
  while (sentinel != nullptr && !stop.load() && (w->detect_unix_ns == 0 || w->promote_unix_ns == 0)) {
    if (s == nullptr) {
      auto c = RedisClient::Connect(sentinel->host, sentinel->port, kControlTimeoutMs);
      if (c.ok()) s = std::move(*c);
    }
    if (s != nullptr && w->detect_unix_ns == 0) {
      auto master = s->Command({"SENTINEL", "MASTER", kSentinelMasterName});
      if (!master.ok()) s.reset();
      for (size_t i = 0; master.ok() && i + 1 < master->elements.size(); i += 2) {
        if (master->elements[i].str == "flags" && master->elements[i + 1].str.find("o_down") != std::string::npos) {
          w->detect_unix_ns = UnixNowNs();
        }
      }
    }
    if (s != nullptr && w->promote_unix_ns == 0) {
      auto addr = s->Command({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", kSentinelMasterName});
      if (!addr.ok()) s.reset();
      if (addr.ok() && addr->elements.size() == 2) {
        const std::string now = addr->elements[0].str + ":" + addr->elements[1].str;
        for (const NodeRecord& n : t.nodes()) {
          if (n.role != "sentinel" && NodeAddress(n) == now && n.name != cell.victim) {
            w->promote_unix_ns = UnixNowNs();
            w->new_primary = n.name;
            if (w->detect_unix_ns == 0) w->detect_unix_ns = w->promote_unix_ns;  // o_down missed between polls
          }
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::nanoseconds(kWatchPollNs));
  }
}

void WatchEtcd(const Topology& t, const FailoverCell& cell, const std::map<uint64_t, std::string>& members,
               const std::atomic<bool>& stop, Watch* w) {
  while (!stop.load() && w->promote_unix_ns == 0) {
    for (const NodeRecord& n : t.nodes()) {
      if (n.name == cell.victim) continue;
      auto s = EtcdStatus(n);
      if (!s.ok() || s->leader == 0) continue;
      const auto it = members.find(s->leader);
      if (it != members.end() && it->second != cell.victim) {
        w->promote_unix_ns = UnixNowNs();
        w->new_primary = it->second;
        break;
      }
    }
    std::this_thread::sleep_for(std::chrono::nanoseconds(kWatchPollNs));
  }
}

// Tarantool: the master, its id, the load's space ready on every member.
Status FindTarantoolVictim(const Topology& t, TarantoolSet* set, FailoverCell* cell) {
  if (Status s = PrepareTarantoolSet(t, set); !s.ok()) return s;
  cell->victim = set->master;
  cell->victim_address = NodeAddress(t.nodes()[NodeIndex(t, set->master)]);
  return Status::OK();
}

// Tarantool: the scenario is the failure detector and the promoter (tarantool.h); the
// detection timeout is the Redis configurations' node timeout.
void WatchTarantool(const Topology& t, const TarantoolSet& set, const FailoverOptions& o,
                    const std::atomic<bool>& stop, Orchestration* orchestration, Watch* w) {
  OrchestrateTarantool(t, set, o.node_timeout_ms, stop, orchestration);
  w->detect_unix_ns = orchestration->detect_unix_ns;
  w->promote_unix_ns = orchestration->promote_unix_ns;
  w->new_primary = orchestration->new_master;
}

// --plant-loss: the victim's replica cut off from it (a password it does not know, the
// link closed), so that what the victim acknowledges from now on never reaches it.
Status CutReplicaOff(const Topology& t, const FailoverCell& cell, uint64_t seed) {
  const NodeRecord& victim = t.nodes()[NodeIndex(t, cell.victim)];
  auto c = RedisClient::Connect(victim.host, victim.port, kControlTimeoutMs);
  if (!c.ok()) return c.status().WithContext(cell.victim);
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"CONFIG", "SET", "requirepass", fmt::format("planted-{:x}", seed)},
        std::vector<std::string>{"CLIENT", "KILL", "TYPE", "replica"}}) {
    auto r = (*c)->Command(command);
    if (!r.ok()) return r.status().WithContext(command[0] + " " + command[1]);
    if (r->is_error()) return Status::Server(command[0] + " " + command[1] + ": " + r->str);
  }
  return Status::OK();
}

// --- One cell -------------------------------------------------------------------------

std::vector<FaultStep> ScheduleOf(const FailoverCell& cell, const FailoverOptions& o) {
  if (cell.fault == "kill") return {{FaultAction::kKill, cell.victim, o.fault_at_s}};
  return {{FaultAction::kPause, cell.victim, o.fault_at_s},
          {FaultAction::kResume, cell.victim, o.fault_at_s + o.pause_s}};
}

std::string DescribeEvent(const FaultEvent& e, int64_t start_unix_ns) {
  const double at = static_cast<double>(e.start_unix_ns - start_unix_ns) / 1e9;
  std::string s = fmt::format("{} {} at {:.3f} s (pid {})", FaultActionName(e.step.action), e.step.node, at,
                              e.pid_before);
  if (e.step.at_s < 0) s += ", left paused by the schedule: resumed at its end";
  if (!e.error.empty()) s += ": not carried out: " + e.error;
  return s;
}

// After the run: the target the keys are read back from (the slot's or the cluster's
// current primary, a node the fault did not kill).
RedisTarget FinalTarget(const Config& c, const Topology& t, const FailoverCell& cell) {
  if (c.name == "redis-cluster" || c.name == "redis-sentinel" || c.name == "tarantool") {
    const std::string& owner = cell.new_primary.empty() ? cell.victim : cell.new_primary;
    return TargetOfNode(t.nodes()[NodeIndex(t, owner)], c.protocol);
  }
  for (const NodeRecord& n : t.nodes()) {
    if (n.name != cell.victim) return TargetOfNode(n, c.protocol);
  }
  return TargetOfNode(t.nodes()[0], c.protocol);
}

void RunCell(const Config& c, const FailoverOptions& o, const ScenarioContext& ctx, const std::string& folder,
             uint64_t seed, FailoverCell* cell, std::map<std::string, std::string>* files) {
  ctx.Progress(kScenario, fmt::format("run {}: {} {}: starting", cell->run, cell->configuration, cell->fault));
  auto started = StartScenarioTopology(SpecOf(c, o), ctx.interrupt);
  if (!started.ok()) {
    cell->failure = StartFailure(ctx, kScenario, cell->Label(), "did not start: ", started.status());
    return;
  }
  Topology& t = **started;
  cell->version = t.nodes()[0].version;
  std::map<uint64_t, std::string> members;
  TarantoolSet tarantool;
  Status found = c.name == "redis-cluster"    ? FindClusterVictim(t, cell)
                 : c.name == "redis-sentinel" ? FindSentinelVictim(t, cell)
                 : c.name == "tarantool"      ? FindTarantoolVictim(t, &tarantool, cell)
                                              : FindEtcdVictim(t, &members, cell);
  if (!found.ok()) {
    cell->failure = "finding the primary: " + found.message();
    return;
  }
  const std::string history_path =
      fmt::format("{}/{}-{}-run{}.hist", folder, cell->configuration, cell->fault, cell->run);
  auto load = LoadOf(c, t, *cell, o, history_path, seed);
  if (!load.ok()) {
    cell->failure = load.status().message();
    return;
  }
  ctx.Progress(kScenario, fmt::format("run {}: {} {}: load for {} s, {} {} at {} s", cell->run, cell->configuration, cell->fault,
                                      ApproxSeconds(o.duration_s), cell->fault, cell->victim,
                                      ApproxSeconds(o.fault_at_s)));
  Result<RunResult> result = Status::Failed("not run");
  const int64_t start_ns = NowNs();
  const int64_t load_start_unix_ns = UnixNowNs();
  auto nemesis = std::make_shared<HistoryEvents>();  // the steps, in the history too
  load->history_events = nemesis;
  std::thread runner([&] { result = RunLoad(*load, ctx.interrupt); });
  std::atomic<bool> stop_watch{false};
  Watch watch;
  Orchestration orchestration;  // tarantool: the scenario's own failover
  std::thread watcher;
  const std::vector<FaultStep> steps = ScheduleOf(*cell, o);
  // The watcher starts with the fault: before it, the victim is healthy.
  std::atomic<bool> fault_begun{false};
  watcher = std::thread([&] {
    while (!fault_begun.load() && !stop_watch.load()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (c.name == "redis-cluster") {
      WatchCluster(t, *cell, stop_watch, &watch);
    } else if (c.name == "redis-sentinel") {
      WatchSentinel(t, *cell, stop_watch, &watch);
    } else if (c.name == "tarantool") {
      WatchTarantool(t, tarantool, o, stop_watch, &orchestration, &watch);
    } else {
      WatchEtcd(t, *cell, members, stop_watch, &watch);
    }
  });
  if (o.plant_loss && c.name == "redis-cluster") {
    const int64_t due = start_ns + static_cast<int64_t>((o.fault_at_s - 1) * 1e9);
    PollUntil(due, kWatchPollNs, []() -> Result<bool> { return false; }, ctx.interrupt);
    Status cut = CutReplicaOff(t, *cell, seed);
    cell->schedule.push_back(cut.ok() ? "planted: the replica cut off from its master a second before the fault"
                                      : "planting the loss failed: " + cut.message());
  }
  const std::vector<FaultEvent> events =
      RunFaults(t, steps, start_ns, ctx.interrupt, [&](const FaultEvent&) { fault_begun = true; }, nullptr, nemesis.get());
  fault_begun = true;  // also when the first step was never carried out: the watcher ends
  runner.join();
  stop_watch = true;
  watcher.join();
  auto h = history::ReadHistoryFile(history_path);
  // The schedule as carried out, whatever else happened (an interrupt included): times
  // from the history's start, or from the load's when there is no history to read.
  const int64_t start_unix_ns = h.ok() ? h->header.start_unix_ns : load_start_unix_ns;
  for (const FaultEvent& e : events) cell->schedule.push_back(DescribeEvent(e, start_unix_ns));
  for (const std::string& step : orchestration.steps) cell->schedule.push_back(step);
  if (!result.ok()) {
    cell->failure = result.status().message();
    return;
  }
  if (result->interrupted) {
    cell->failure = "interrupted";
    return;
  }
  cell->reconnects = result->totals.faults.connections_lost;
  if (!h.ok()) {
    cell->failure = "the history: " + h.status().message();
    return;
  }
  auto rel = [&](int64_t unix_ns) { return unix_ns > 0 ? static_cast<double>(unix_ns - start_unix_ns) / 1e9 : -1.0; };
  const FaultEvent& fault = events.front();
  if (!fault.error.empty()) {
    cell->failure = "the fault: " + fault.error;
    return;
  }
  cell->fault_s = rel(fault.start_unix_ns);
  cell->detect_s = rel(watch.detect_unix_ns);
  cell->promote_s = rel(watch.promote_unix_ns);
  cell->new_primary = watch.new_primary;
  if (c.name == "tarantool") cell->successor = watch.new_primary;  // the orchestrator's choice
  cell->records = h->records.size();
  cell->outage = MeasureOutage(*h, fault.start_unix_ns - start_unix_ns, cell->victim_address);
  cell->seconds = PerSecond(*h);
  const RedisTarget final_target = FinalTarget(c, t, *cell);
  cell->checks = RunHistoryChecks(*h, {"lost-writes", "linearizable"}, &final_target,
                                  static_cast<int64_t>(o.check_time_limit_s * 1e9));
  std::ifstream in(history_path, std::ios::binary);
  cell->history_file = fmt::format("histories/{}-{}-run{}.hist", cell->configuration, cell->fault, cell->run);
  (*files)[cell->history_file] = std::string(std::istreambuf_iterator<char>(in), {});
  for (const NodeRecord& n : t.nodes()) KeepLogTail(cell->configuration + "-" + n.name, cell->run, n.log, files);
  Status stopped = t.Stop();
  if (!stopped.ok()) cell->failure = "stopping the topology: " + stopped.message();
}

}  // namespace

std::string FailoverCell::Label() const { return fmt::format("{} {} run {}", configuration, fault, run); }

const std::vector<std::string>& FailoverConfigurations() {
  static const std::vector<std::string> kNames = {"redis-cluster", "redis-cluster-wait", "redis-sentinel",
                                                   "redis-sentinel-wait", "etcd", "tarantool"};
  return kNames;
}

Status ValidateFailover(const FailoverOptions& o) {
  if (o.configurations.empty()) return Status::InvalidArgument("--only: no configuration");
  std::set<std::string> seen;
  for (const std::string& c : o.configurations) {
    if (!ConfigOf(c)) {
      return Status::InvalidArgument(fmt::format("--only: '{}' is not a configuration ({})", c,
                                                 fmt::join(FailoverConfigurations(), ", ")));
    }
    if (!seen.insert(c).second) return Status::InvalidArgument(fmt::format("--only: '{}' given twice", c));
  }
  seen.clear();
  if (o.faults.empty()) return Status::InvalidArgument("--faults: none");
  for (const std::string& f : o.faults) {
    if (f != "kill" && f != "pause") {
      return Status::InvalidArgument(fmt::format("--faults: '{}' is not a fault (kill, pause)", f));
    }
    if (!seen.insert(f).second) return Status::InvalidArgument(fmt::format("--faults: '{}' given twice", f));
  }
  if (o.duration_s <= 0 || o.duration_s > 3600) return Status::InvalidArgument("--duration: must be in (0, 1h]");
  if (o.fault_at_s <= 0 || o.fault_at_s >= o.duration_s) {
    return Status::InvalidArgument("--fault-at: must be after the start and before the end of the load");
  }
  if (o.pause_s <= 0 || o.fault_at_s + o.pause_s >= o.duration_s) {
    return Status::InvalidArgument("--pause: the node must be resumed before the load ends (--fault-at + --pause < "
                                   "--duration)");
  }
  if (o.rate <= 0 || o.rate > 1e6) return Status::InvalidArgument("--rate: must be in (0, 1000000]");
  if (o.clients < 1 || o.clients > 1000) return Status::InvalidArgument("--clients: must be 1..1000");
  if (o.keys < 1 || o.keys > 10'000'000) return Status::InvalidArgument("--keys: must be 1..10000000");
  if (o.plant_loss && o.fault_at_s <= 1) return Status::InvalidArgument("--plant-loss: --fault-at must be above 1 s");
  return Status::OK();
}

Result<ScenarioReport> RunFailover(const FailoverOptions& o, const ScenarioContext& ctx) {
  if (Status s = ValidateFailover(o); !s.ok()) return s;
  ScenarioReport report;
  report.scenario = kScenario;
  auto folder = MakeTempFolder("failover");  // the histories, until the evidence keeps them
  if (!folder.ok()) return folder.status();
  RemovedOnExit remove(*folder);
  std::vector<FailoverCell> cells;
  uint64_t seed = ctx.seed;
  ForEachRun(ctx, &report, [&](int run) {
    for (const std::string& name : o.configurations) {
      const Config c = *ConfigOf(name);
      for (const std::string& fault : o.faults) {
        if (ctx.interrupted()) return;
        FailoverCell& cell = cells.emplace_back();
        cell.run = run;
        cell.configuration = name;
        cell.fault = fault;
        cell.not_run = NotInstalledLine(c.system);
        if (!cell.not_run.empty()) continue;
        RunCell(c, o, ctx, *folder, ++seed, &cell, &report.files);
      }
    }
  });
  FillFailoverReport(o, cells, ctx.interrupted(), &report);
  return report;
}

}  // namespace memstand
