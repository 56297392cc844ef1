#include "stand/topology.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <thread>

#include "core/socket.h"

#include "stand/etcd_driver.h"
#include "stand/memcached_driver.h"
#include "stand/redis_driver.h"
#include "stand/sentinel_driver.h"
#include "stand/shard_lua.h"
#include "stand/redis_wiring.h"
#include "stand/relay_driver.h"
#include "stand/tarantool_driver.h"

namespace memstand {
namespace {

namespace fs = std::filesystem;

using Settings = std::vector<std::pair<std::string, std::string>>;

std::shared_ptr<const ServerDriver> MakeDriver(const TopologySpec& spec) {
  Settings settings = spec.settings;
  switch (spec.kind) {
    case TopologyKind::kRedis:
      return std::make_shared<RedisDriver>(settings, false);
    case TopologyKind::kRedisSentinel:
      std::erase_if(settings, [](const auto& kv) { return IsSentinelSetting(kv.first); });
      [[fallthrough]];
    case TopologyKind::kRedisReplica:
    case TopologyKind::kRedisCluster:
      // A replica's first sync would wait 5 s (the diskless default) for more
      // replicas to join it; ours all exist already. The user's value still wins.
      settings.insert(settings.begin(), {"repl-diskless-sync-delay", "0"});
      return std::make_shared<RedisDriver>(settings, spec.kind == TopologyKind::kRedisCluster);
    case TopologyKind::kMemcached:
      return std::make_shared<MemcachedDriver>(settings);
    case TopologyKind::kTarantool:
    case TopologyKind::kTarantoolReplicaSet:
    case TopologyKind::kTarantoolSharded:
      return std::make_shared<TarantoolDriver>(settings, spec.init_lua);
    case TopologyKind::kEtcd:
    case TopologyKind::kEtcdCluster:
      return std::make_shared<EtcdDriver>(settings, spec.kind == TopologyKind::kEtcdCluster);
  }
  return nullptr;
}

bool Cancelled(const TopologyOptions& options) {
  return options.cancel != nullptr && options.cancel->load();
}

RedisEndpoint Endpoint(const NodeRecord& n) {
  return RedisEndpoint{n.name, n.host, n.port, n.ports.size() > 1 ? n.ports[1] : 0};
}

}  // namespace

struct Topology::NodePlan {
  std::string name;
  std::string role;
  int replica_of = -1;  // index of the node it replicates
  std::vector<int> fixed_ports;
  std::vector<std::string> role_args;  // tarantool-replicaset: ReplicaSetRoleArgs
};

namespace {

// A tarantool replica set's client ports, known before any member starts (each lists
// them all in box.cfg.replication): --port, port+1, ..., or free picks. A pick taken by
// another process before its member binds it fails that start (it is a fixed port then).
Result<std::vector<int>> ReplicaSetPorts(const TopologySpec& spec) {
  std::vector<int> ports;
  for (int i = 0; i < NodeCount(spec); ++i) {
    if (spec.port != 0) {
      ports.push_back(spec.port + i);
      continue;
    }
    for (;;) {
      auto port = PickFreePort("127.0.0.1");
      if (!port.ok()) return port.status();
      if (std::find(ports.begin(), ports.end(), *port) == ports.end()) {
        ports.push_back(*port);
        break;
      }
    }
  }
  return ports;
}

// Distinct free loopback ports, none of them in `taken`.
Result<std::vector<int>> PickDistinctPorts(size_t n, std::vector<int> taken) {
  std::vector<int> out;
  while (out.size() < n) {
    auto port = PickFreePort("127.0.0.1");
    if (!port.ok()) return port.status();
    if (std::find(taken.begin(), taken.end(), *port) == taken.end()) {
      out.push_back(*port);
      taken.push_back(*port);
    }
  }
  return out;
}

}  // namespace

// etcd-cluster: every member's client and peer ports are known before any starts (each
// lists every peer in --initial-cluster): --port / --peer-port and the next ones, or picks.
Status Topology::PlanEtcdCluster(std::vector<NodePlan>* plans) const {
  const size_t n = static_cast<size_t>(spec_.members);
  std::vector<int> clients, peers;
  for (size_t i = 0; i < n; ++i) {
    if (spec_.port != 0) clients.push_back(spec_.port + static_cast<int>(i));
    if (spec_.peer_port != 0) peers.push_back(spec_.peer_port + static_cast<int>(i));
  }
  std::vector<int> taken = clients;
  taken.insert(taken.end(), peers.begin(), peers.end());
  auto picked = PickDistinctPorts(2 * n - clients.size() - peers.size(), taken);
  if (!picked.ok()) return picked.status();
  size_t next = 0;
  while (clients.size() < n) clients.push_back((*picked)[next++]);
  while (peers.size() < n) peers.push_back((*picked)[next++]);
  std::string initial;
  for (size_t i = 0; i < n; ++i) {
    initial += (i == 0 ? "" : ",") + std::string("member-") + std::to_string(i + 1) + "=http://127.0.0.1:" +
               std::to_string(peers[i]);
  }
  for (size_t i = 0; i < n; ++i) {
    const std::string name = "member-" + std::to_string(i + 1);
    plans->push_back({name, "member", -1, {clients[i], peers[i]},
                      {"--name=" + name, "--initial-cluster=" + initial,
                       "--initial-cluster-token=" + spec_.name, "--initial-cluster-state=new"}});
  }
  return Status::OK();
}

// etcd-cluster: every member answers GET /health with health true (a leader elected
// and a quorum reached).
Status Topology::WaitEtcdCluster() {
  NodeWait wait;
  wait.waiting_for = "the etcd members";
  wait.during = "the cluster formed";
  wait.not_ready = "not healthy";
  wait.poll_ms = 20;
  wait.ready = [this](size_t i) { return EtcdHealthy(record_.nodes[i].host, record_.nodes[i].port); };
  wait.detail = [](size_t, const Status& last) { return last.message(); };
  if (Status s = WaitEachNode(wait); !s.ok()) return s;
  for (size_t i = 0; i < servers_.size(); ++i) {
    auto version = EtcdVersion(record_.nodes[i].host, record_.nodes[i].port);
    if (!version.ok()) return version.status().WithContext(record_.nodes[i].name + " GET /version");
    record_.nodes[i].version = *version;
  }
  return SaveState();
}

Status Topology::PlanReplicaSet(std::vector<NodePlan>* plans) const {
  auto ports = ReplicaSetPorts(spec_);
  if (!ports.ok()) return ports.status();
  std::vector<std::string> uris;
  for (int port : *ports) uris.push_back("127.0.0.1:" + std::to_string(port));
  plans->push_back({"master", "master", -1, {ports->at(0)}, ReplicaSetRoleArgs(true, uris)});
  for (int r = 1; r <= spec_.replicas; ++r) {
    plans->push_back({"replica-" + std::to_string(r), "replica", 0, {ports->at(r)},
                      ReplicaSetRoleArgs(false, uris)});
  }
  return Status::OK();
}

// tarantool-sharded: storage-S-master and storage-S-replica-R for each replica set, in
// set order, then router-1..N; every port known before the first starts (a set's
// members name each other, a router names every storage).
Status Topology::PlanSharded(std::vector<NodePlan>* plans) const {
  auto ports = ReplicaSetPorts(spec_);
  if (!ports.ok()) return ports.status();
  const int per_set = 1 + spec_.replicas;
  std::vector<std::vector<std::string>> sets(spec_.storages);
  for (int s = 0; s < spec_.storages; ++s) {
    for (int m = 0; m < per_set; ++m) sets[s].push_back("127.0.0.1:" + std::to_string(ports->at(s * per_set + m)));
  }
  for (int s = 0; s < spec_.storages; ++s) {
    const std::string set = "storage-" + std::to_string(s + 1);
    const int master = s * per_set;
    plans->push_back({set + "-master", "storage-master", -1, {ports->at(master)}, ShardStorageRoleArgs(true, sets[s])});
    for (int r = 1; r <= spec_.replicas; ++r) {
      plans->push_back({set + "-replica-" + std::to_string(r), "storage-replica", master, {ports->at(master + r)},
                        ShardStorageRoleArgs(false, sets[s])});
    }
  }
  for (int r = 0; r < spec_.routers; ++r) {
    plans->push_back({"router-" + std::to_string(r + 1), "router", -1,
                      {ports->at(spec_.storages * per_set + r)}, ShardRouterRoleArgs(sets)});
  }
  return Status::OK();
}

Result<std::unique_ptr<Topology>> Topology::Start(TopologySpec spec, const TopologyOptions& options) {
  if (Status s = NormalizeSpec(&spec); !s.ok()) return s;
  std::unique_ptr<Topology> t(new Topology());
  t->spec_ = std::move(spec);
  t->options_ = options;
  t->driver_ = MakeDriver(t->spec_);
  std::string binary = t->spec_.binary.empty() ? t->driver_->DefaultBinary() : t->spec_.binary;
  if (!FindExecutable(binary).ok()) {  // before any folder is made
    return MissingBinary(binary, t->driver_->Package());
  }
  if (t->spec_.kind == TopologyKind::kRedisSentinel && !FindExecutable("redis-sentinel").ok()) {
    return MissingBinary("redis-sentinel", "redis-sentinel");
  }
  std::string root = options.run_root.empty() ? DefaultRunRoot() : options.run_root;
  if (Status s = t->ClaimFolder(root); !s.ok()) return s;
  if (Status s = t->StartNodes(); !s.ok()) return s;  // ~Topology tears down
  if (Status s = t->Wire(); !s.ok()) return s;
  if (Status s = t->StartSentinels(); !s.ok()) return s;
  if (Status s = t->StartRelay(); !s.ok()) return s;
  t->record_.status = "up";
  if (Status s = t->SaveState(); !s.ok()) return s;
  // An interrupt taken after the last step's own check, while the state file still said
  // "starting" (its save was under way), cuts the start short as one during a step does:
  // a caller never gets a topology from a start that was interrupted.
  if (Cancelled(t->options_)) return Status::Failed("interrupted while starting '" + t->spec_.name + "'");
  return t;
}

namespace {

// OK if dir holds no topology whose processes may still run; then removes it.
Status ReplaceLeftover(const std::string& dir, const std::string& name) {
  auto old = ReadTopologyRecord(dir + "/" + kStateFileName);
  if (!old.ok()) {
    if (old.status().code() == Status::Code::kFailed) return old.status();  // refused
    return Status::InvalidArgument(dir + " exists and is not a memstand run folder (" +
                                   old.status().message() + "); remove it or pick another --name");
  }
  for (const NodeRecord& n : old->nodes) {
    Ownership verdict = NodeOwnership(*old, n).verdict;
    if (verdict == Ownership::kOurs || verdict == Ownership::kUnproven) {
      return Status::InvalidArgument("topology '" + name + "' is already up in " + dir +
                                     " (see memstand ps); stop it with 'memstand down " + name +
                                     "' or pick another --name");
    }
  }
  std::error_code ec;
  fs::remove_all(dir, ec);  // a leftover whose processes are all gone
  if (ec) return Status::IoError("cannot remove leftover " + dir + ": " + ec.message());
  return Status::OK();
}

}  // namespace

Status Topology::ClaimFolder(const std::string& root) {
  if (Status s = EnsurePrivateDir(root, "run root"); !s.ok()) return s;
  std::error_code ec;
  std::string dir = fs::absolute(root, ec).string() + "/" + spec_.name;
  if (fs::exists(fs::symlink_status(dir, ec))) {
    if (Status s = ReplaceLeftover(dir, spec_.name); !s.ok()) return s;
  }
  if (Status s = EnsurePrivateDir(dir, "run folder"); !s.ok()) return s;
  owns_folder_ = true;
  record_.dir = dir;
  auto token = NewOwnerToken();
  if (!token.ok()) return token.status();
  record_.token = *token;
  if (Status s = WritePrivateFile(dir + "/" + kOwnerTokenFile, record_.token); !s.ok()) return s;
  record_.name = spec_.name;
  record_.kind = TopologyKindName(spec_.kind);
  record_.status = "starting";
  record_.created_unix = std::time(nullptr);
  record_.memstand_pid = getpid();
  record_.detached = options_.detach;
  record_.masters = spec_.masters;
  record_.replicas = spec_.replicas;
  record_.settings = spec_.settings;
  return SaveState();
}

Status Topology::StartNodes() {
  std::vector<NodePlan> plans;
  auto port_at = [&](size_t i) { return spec_.port == 0 ? 0 : spec_.port + static_cast<int>(i); };
  switch (spec_.kind) {
    case TopologyKind::kRedisReplica:
    case TopologyKind::kRedisSentinel:  // the Sentinels start once replication is up
      plans.push_back({"primary", "primary", -1, {port_at(0)}, {}});
      for (int r = 1; r <= spec_.replicas; ++r) {
        plans.push_back({"replica-" + std::to_string(r), "replica", 0, {port_at(r)}, {}});
      }
      break;
    case TopologyKind::kRedisCluster:
      for (int m = 1; m <= spec_.masters; ++m) {
        plans.push_back({"master-" + std::to_string(m), "master", -1, {port_at(plans.size()), 0}, {}});
      }
      for (int m = 1; m <= spec_.masters; ++m) {
        for (int r = 1; r <= spec_.replicas; ++r) {
          plans.push_back({"replica-" + std::to_string(m) + "-" + std::to_string(r), "replica",
                           m - 1, {port_at(plans.size()), 0}, {}});
        }
      }
      break;
    case TopologyKind::kTarantoolReplicaSet:
      if (Status s = PlanReplicaSet(&plans); !s.ok()) return s;
      break;
    case TopologyKind::kTarantoolSharded:
      if (Status s = PlanSharded(&plans); !s.ok()) return s;
      break;
    case TopologyKind::kEtcdCluster:
      if (Status s = PlanEtcdCluster(&plans); !s.ok()) return s;
      break;
    default:
      plans.push_back({TopologyKindName(spec_.kind), "server", -1, {spec_.port, spec_.peer_port}, {}});
      break;
  }
  if (Status s = CheckRelayNode(plans); !s.ok()) return s;
  for (const NodePlan& plan : plans) {
    if (Cancelled(options_)) return Status::Failed("interrupted while starting '" + spec_.name + "'");
    if (Status s = StartNode(plan, driver_, spec_.binary); !s.ok()) {
      return s.WithContext(spec_.name == plan.name ? spec_.name : spec_.name + " " + plan.name);
    }
  }
  return Status::OK();
}

Status Topology::CheckRelayNode(const std::vector<NodePlan>& plans) const {
  if (!spec_.relay.enabled || spec_.relay.node.empty()) return Status::OK();
  std::string names;
  for (const NodePlan& plan : plans) {
    if (plan.name == spec_.relay.node) return Status::OK();
    names += (names.empty() ? "" : ", ") + plan.name;
  }
  return Status::InvalidArgument("relay.node '" + spec_.relay.node + "': no such node in '" +
                                 spec_.name + "' (its nodes: " + names + ")");
}

// The relay goes last, once the node it fronts is ready (and wired), and is stopped
// first (Stop goes in reverse).
// redis-sentinel: the Sentinels, once the primary and its replicas are in sync, each
// watching the primary; ready once all of them see it, its replicas and each other.
Status Topology::StartSentinels() {
  if (spec_.kind != TopologyKind::kRedisSentinel) return Status::OK();
  const NodeRecord primary = record_.nodes[0];
  SentinelWatch watch{primary.host, primary.port, spec_.sentinels / 2 + 1, {}};
  for (const auto& [key, value] : spec_.settings) {
    if (IsSentinelSetting(key)) watch.directives.emplace_back(key.substr(9), value);
  }
  auto driver = std::make_shared<SentinelDriver>(watch);
  const int first_port = spec_.port == 0 ? 0 : spec_.port + 1 + spec_.replicas;
  std::vector<RedisEndpoint> sentinels;
  for (int i = 1; i <= spec_.sentinels; ++i) {
    const std::string name = "sentinel-" + std::to_string(i);
    Status s = StartNode({name, "sentinel", -1, {first_port == 0 ? 0 : first_port + i - 1}, {}}, driver, "");
    if (!s.ok()) return s.WithContext(spec_.name + " " + name);
    sentinels.push_back(Endpoint(record_.nodes.back()));
  }
  WiringOptions w{spec_.ready_timeout_ms, options_.cancel};
  Status s = WaitSentinels(sentinels, kSentinelMasterName, Endpoint(primary), spec_.replicas, w);
  return s.ok() ? s : s.WithContext(spec_.name);
}

Status Topology::StartRelay() {
  if (!spec_.relay.enabled) return Status::OK();
  size_t target = 0;
  while (!spec_.relay.node.empty() && record_.nodes[target].name != spec_.relay.node) ++target;
  const NodeRecord& node = record_.nodes[target];
  auto driver = std::make_shared<RelayDriver>(spec_.relay.args, node.host, node.port);
  const std::string fronts = node.name;
  Status s = StartNode({"relay", "relay", -1, {spec_.relay.port}, {}}, driver, spec_.relay.binary);
  if (!s.ok()) return s.WithContext(spec_.name + " relay");
  record_.nodes.back().fronts = fronts;
  return SaveState();
}

Status Topology::StartNode(const NodePlan& plan, const std::shared_ptr<const ServerDriver>& driver,
                           const std::string& binary) {
  ServerNodeOptions o;
  o.binary = binary;
  o.dir = record_.dir + "/" + plan.name;
  o.fixed_ports = plan.fixed_ports;
  o.fixed_ports.resize(driver->PortCount(), 0);
  o.detach = options_.detach;
  o.hold_open = record_.dir + "/" + kOwnerTokenFile;
  o.ready_timeout_ms = spec_.ready_timeout_ms;
  o.cancel = options_.cancel;
  o.cpus = options_.cpus;
  // redis-replica replicas follow the primary from the start; cluster replicas are
  // attached by CLUSTER REPLICATE once the cluster has met.
  if (plan.replica_of >= 0 &&
      (spec_.kind == TopologyKind::kRedisReplica || spec_.kind == TopologyKind::kRedisSentinel)) {
    const NodeRecord& primary = record_.nodes[plan.replica_of];
    o.role_args = {"--replicaof", primary.host, std::to_string(primary.port)};
  }
  if (!plan.role_args.empty()) o.role_args = plan.role_args;
  NodeRecord n;
  n.name = plan.name;
  n.role = plan.role;
  n.replica_of = plan.replica_of >= 0 ? record_.nodes[plan.replica_of].name : "";
  n.binary = o.binary.empty() ? driver->DefaultBinary() : o.binary;
  // The pid goes into the state file before the readiness wait (docs/stand.md, State
  // file): record_.nodes[slot] is this node while it starts, replaced once it is ready.
  const size_t slot = record_.nodes.size();
  o.on_spawn = [this, slot, n](const ProcessIdentity& id, const NodeLaunch& launch) {
    NodeRecord early = n;
    early.host = launch.host;
    early.ports = launch.ports;
    early.port = launch.ports.empty() ? 0 : launch.ports[0];
    early.dir = launch.dir;
    early.log = launch.log_path;
    early.process = id;
    record_.nodes.resize(slot);
    record_.nodes.push_back(std::move(early));
    return SaveState();
  };
  auto server = ServerNode::Start(driver, o);
  record_.nodes.resize(slot);  // the early record goes: the node is stopped, or recorded below
  if (!server.ok()) return server.status();
  n.host = (*server)->host();
  n.port = (*server)->port();
  n.ports = (*server)->ports();
  n.binary = (*server)->binary();
  n.version = (*server)->version();
  n.dir = (*server)->dir();
  n.log = (*server)->log_path();
  n.process = (*server)->identity();
  record_.nodes.push_back(std::move(n));
  servers_.push_back(std::move(server).value());
  return SaveState();
}

// Every member logs ReplicationReadyLine once its replication is in place (the init.lua
// fiber reads box.info.replication: TarantoolDriver::InitLua), and a tarantool-sharded
// router RouterReadyLine once its check passes (shard_lua.h); waits for all of them.
Status Topology::WaitReplicaSet() {
  NodeWait wait;
  wait.waiting_for = "replication";
  wait.during = "replication was being set up";
  wait.not_ready = "replication not in place";
  wait.poll_ms = 10;
  wait.ready = [this](size_t i) {
    const pid_t pid = servers_[i]->pid();
    const std::string line = record_.nodes[i].role == "router" ? RouterReadyLine(pid) : ReplicationReadyLine(pid);
    const bool logged = FileTail(servers_[i]->log_path(), 1000).find(line) != std::string::npos;
    return logged ? Status::OK() : Status::Failed("not logged yet");
  };
  wait.detail = [this](size_t i, const Status&) -> std::string {
    const std::string& role = record_.nodes[i].role;
    if (role == "router") {
      return "every replica set's master writable and replicas following it, seen over net.box, every bucket "
             "mapped once";
    }
    const bool master = role == "master" || role == "storage-master";
    return "every peer's upstream follow" +
           std::string(master ? ", every replica's downstream follow and caught up" : "");
  };
  return WaitEachNode(wait);
}

Status Topology::WaitEachNode(const NodeWait& wait) {
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::milliseconds(spec_.ready_timeout_ms);
  for (size_t i = 0; i < servers_.size(); ++i) {
    for (Status last = wait.ready(i); !last.ok(); last = wait.ready(i)) {
      if (Cancelled(options_)) return Status::Failed(std::string("interrupted while waiting for ") + wait.waiting_for);
      if (!servers_[i]->Alive()) {
        return Status::Failed(record_.nodes[i].name + " exited while " + wait.during + ":\n" +
                              servers_[i]->LogTail(10));
      }
      if (Clock::now() >= deadline) {
        return Status::Timeout(record_.nodes[i].name + ": " + wait.not_ready + " within " +
                               std::to_string(spec_.ready_timeout_ms) + " ms (" + wait.detail(i, last) +
                               "); last log lines:\n" + servers_[i]->LogTail(10));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(wait.poll_ms));
    }
  }
  return Status::OK();
}

Status Topology::Wire() {
  if (spec_.kind == TopologyKind::kTarantoolReplicaSet || spec_.kind == TopologyKind::kTarantoolSharded) {
    Status s = WaitReplicaSet();
    return s.ok() ? s : s.WithContext(spec_.name);
  }
  if (spec_.kind == TopologyKind::kEtcdCluster) {
    Status s = WaitEtcdCluster();
    return s.ok() ? s : s.WithContext(spec_.name);
  }
  WiringOptions w{spec_.ready_timeout_ms, options_.cancel};
  if (spec_.kind == TopologyKind::kRedisReplica || spec_.kind == TopologyKind::kRedisSentinel) {
    std::vector<RedisEndpoint> replicas;
    for (size_t i = 1; i < record_.nodes.size(); ++i) replicas.push_back(Endpoint(record_.nodes[i]));
    Status s = WaitReplication(Endpoint(record_.nodes[0]), replicas, w);
    return s.ok() ? s : s.WithContext(spec_.name);
  }
  if (spec_.kind != TopologyKind::kRedisCluster) return Status::OK();
  std::vector<RedisEndpoint> masters;
  std::vector<std::vector<RedisEndpoint>> replicas(spec_.masters);
  for (size_t i = 0; i < record_.nodes.size(); ++i) {
    const NodeRecord& n = record_.nodes[i];
    if (n.role == "master") {
      masters.push_back(Endpoint(n));
    } else {
      replicas[(i - spec_.masters) / spec_.replicas].push_back(Endpoint(n));
    }
  }
  Status s = FormCluster(masters, replicas, w);
  return s.ok() ? s : s.WithContext(spec_.name);
}

Status Topology::SaveState() {
  return WriteTopologyRecord(state_path(), record_);
}

Topology::~Topology() {
  if (!detached_) Stop();
}

Status Topology::Stop() {
  Status result;
  for (auto it = servers_.rbegin(); it != servers_.rend(); ++it) {  // replicas first
    Status s = (*it)->Stop();
    if (!s.ok() && result.ok()) result = s;
  }
  servers_.clear();
  if (owns_folder_) {
    owns_folder_ = false;
    std::error_code ec;
    fs::remove_all(record_.dir, ec);
    if (ec && result.ok()) result = Status::IoError("cannot remove " + record_.dir + ": " + ec.message());
  }
  return result;
}

std::string Topology::NodeEnded(size_t i) {
  return i < servers_.size() ? servers_[i]->Ended() : "";
}

Result<ServerNode*> Topology::Node(size_t i) {
  if (i >= servers_.size()) {
    return Status::InvalidArgument("no node " + std::to_string(i) + " in '" + spec_.name + "' (" +
                                   std::to_string(servers_.size()) + " nodes run here)");
  }
  return servers_[i].get();
}

Status Topology::KillNode(size_t i) {
  auto node = Node(i);
  return node.ok() ? (*node)->Kill() : node.status();
}

Status Topology::PauseNode(size_t i) {
  auto node = Node(i);
  return node.ok() ? (*node)->Pause() : node.status();
}

Status Topology::ResumeNode(size_t i) {
  auto node = Node(i);
  return node.ok() ? (*node)->Resume() : node.status();
}

Status Topology::RestartNode(size_t i) {
  auto node = Node(i);
  if (!node.ok()) return node.status();
  Status s = (*node)->Restart([this, i](const ProcessIdentity& id, const NodeLaunch&) {
    record_.nodes[i].process = id;
    return SaveState();
  });
  if (!s.ok()) return s.WithContext(spec_.name + " " + record_.nodes[i].name);
  record_.nodes[i].process = (*node)->identity();
  return SaveState();
}

void Topology::Detach() {
  for (auto& server : servers_) server->Release();
  servers_.clear();
  owns_folder_ = false;
  detached_ = true;
}

}  // namespace memstand
