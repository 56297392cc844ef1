// RESP's control side of a run (load/run_control.h): a RedisClient per server, INFO
// all before and after the load, commandstats' calls + rejected_calls cross-checked.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "load/run_control.h"

namespace memstand {

namespace {

std::string LowerName(const std::string& upper) {
  std::string s = upper;
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

using Clients = std::vector<std::unique_ptr<RedisClient>>;

struct ServerSnapshot {
  bool ok = false;
  std::string error;
  std::map<std::string, std::string> info;
  std::map<std::string, CommandStat> commands;
  std::map<std::string, int64_t> control_sent;  // control client's sends before INFO
};

ServerSnapshot Snapshot(RedisClient& client) {
  ServerSnapshot snap;
  snap.control_sent = client.sent_by_command();
  auto reply = client.Command({"INFO", "all"});
  if (!reply.ok()) {
    snap.error = reply.status().message();
    return snap;
  }
  if (reply->is_error()) {
    snap.error = "INFO all: " + reply->str;
    return snap;
  }
  snap.info = ParseInfo(reply->str);
  snap.commands = ParseCommandStats(reply->str);
  snap.ok = true;
  return snap;
}

// Sums the snapshots of several servers (a cluster's masters): command counts, CPU
// and memstand's control commands; the rest of INFO is the first server's.
ServerSnapshot Merge(const std::vector<ServerSnapshot>& snaps) {
  ServerSnapshot m = snaps.front();
  for (size_t i = 1; i < snaps.size(); ++i) {
    const ServerSnapshot& s = snaps[i];
    if (!s.ok && m.ok) {
      m.ok = false;
      m.error = s.error;
    }
    for (const auto& [name, st] : s.commands) {
      CommandStat& mine = m.commands[name];
      mine.calls += st.calls;
      mine.rejected_calls += st.rejected_calls;
      mine.failed_calls += st.failed_calls;
      mine.usec += st.usec;
    }
    for (const auto& [name, n] : s.control_sent) m.control_sent[name] += n;
    for (const char* key : {"used_cpu_user", "used_cpu_sys"}) {
      auto a = m.info.find(key);
      auto b = s.info.find(key);
      if (a == m.info.end() || b == s.info.end()) continue;
      a->second = std::to_string(std::strtod(a->second.c_str(), nullptr) +
                                 std::strtod(b->second.c_str(), nullptr));
    }
  }
  return m;
}

std::vector<ServerSnapshot> SnapshotEach(const Clients& clients) {
  std::vector<ServerSnapshot> snaps;
  for (const auto& c : clients) snaps.push_back(Snapshot(*c));
  return snaps;
}

// One server's counts as the cross-check compares them (calls + rejected_calls).
Counts CommandCounts(const ServerSnapshot& s) {
  if (!s.ok) return Status::Failed(s.error);
  std::map<std::string, int64_t> counts;
  for (const auto& [name, st] : s.commands) counts[name] = st.calls + st.rejected_calls;
  return counts;
}

// The control client of target t: RESP2, so that it reads INFO alike on every server.
RedisClientOptions ControlOptions(const LoadOptions& opt, const RedisTarget& t,
                                  std::shared_ptr<const TlsContext> tls) {
  RedisClientOptions co;
  co.tls = std::move(tls);
  co.host = t.host;
  co.port = t.port;
  co.unix_path = t.unix_path;
  co.user = t.user;
  co.password = t.password;
  co.db = t.db;
  co.resp = 2;  // the control client reads INFO the same way on every server
  co.timeout_ms = opt.connect_timeout_ms;
  return co;
}

class RespControl final : public RunControl {
 public:
  explicit RespControl(const LoadOptions& opt) : opt_(opt) {}

  /// A pool: a control client on every member after the first, each with its own
  /// credentials; their INFO is summed as a cluster's masters' is.
  Status ConnectPool(const std::shared_ptr<const TlsContext>& tls);
  /// --cluster: the slot map from CLUSTER SLOTS on the seed, and a control client on
  /// every master (their INFO is summed; replicas are left out, since they count the
  /// writes they replay). The seed's client is reused when it is a master.
  Status ConnectCluster(const RedisClientOptions& co, std::optional<SlotMap>* cluster_map,
                        RunResult* r);

  ControlSnapshot Snapshot() override;
  Counts FleetCounts() override { return CommandCounts(Merge(SnapshotEach(controls_))); }
  std::map<std::string, int64_t> LoadCounts(const std::vector<std::string>& stats,
                                            const ThreadStats& totals) const override;
  void Compare(const std::map<std::string, int64_t>& sent, const ControlSnapshot& before,
               const ControlSnapshot& after, CrossCheck* cc) const override;
  std::string tls_description() const override { return controls_.front()->tls_description(); }
  Result<uint32_t> SpaceId(const std::string& name) override {
    return Status::InvalidArgument("space '" + name + "': Redis has no spaces");
  }
  Result<SlotMap> ReadSlotMap() override;

  Clients controls_;          // the target, the pool's other members, or the masters
  Clients replica_controls_;  // --read-from-replicas

 private:
  ServerSnapshot WithReplicaReads(ServerSnapshot masters);
  void RememberNodes(const SlotMap& map);

  const LoadOptions& opt_;
  RedisClientOptions cluster_options_;      // --cluster: how to reach a node
  std::vector<std::pair<std::string, int>> cluster_nodes_;  // every node seen, masters and replicas
};

Status RespControl::ConnectPool(const std::shared_ptr<const TlsContext>& tls) {
  for (int i = 1; i < opt_.pool_size(); ++i) {
    const RedisTarget& t = opt_.pool_target(i);
    auto c = RedisClient::Connect(ControlOptions(opt_, t, tls));
    if (!c.ok()) return c.status().WithContext("cannot use " + t.Display());
    controls_.push_back(std::move(*c));
  }
  return Status::OK();
}

Status RespControl::ConnectCluster(const RedisClientOptions& co, std::optional<SlotMap>* cluster_map,
                                   RunResult* r) {
  std::unique_ptr<RedisClient> seed = std::move(controls_.front());
  controls_.clear();
  auto reply = seed->Command({"CLUSTER", "SLOTS"});
  if (!reply.ok()) return reply.status().WithContext("--cluster: CLUSTER SLOTS");
  auto map = ParseClusterSlots(*reply, opt_.target.host);
  if (!map.ok()) return map.status().WithContext("--cluster");
  if (map->UncoveredSlots() > 0) {
    return Status::Failed("--cluster: " + std::to_string(map->UncoveredSlots()) +
                          " of 16384 slots have no master (CLUSTER SLOTS on " +
                          opt_.target.Display() + ")");
  }
  for (const ClusterNode& node : map->nodes()) {
    r->cluster_masters.push_back(node.Address());
    if (seed && node.host == opt_.target.host && node.port == opt_.target.port) {
      controls_.push_back(std::move(seed));
      continue;
    }
    RedisClientOptions o = co;
    o.host = node.host;
    o.port = node.port;
    auto c = RedisClient::Connect(o);
    if (!c.ok()) return c.status().WithContext("--cluster: master " + node.Address());
    controls_.push_back(std::move(*c));
  }
  for (const ClusterNode& node : map->nodes()) {
    if (!opt_.read_from_replicas) break;
    for (const auto& [host, port] : node.replicas) {
      RedisClientOptions o = co;
      o.host = host;
      o.port = port;
      auto c = RedisClient::Connect(o);
      if (!c.ok()) return c.status().WithContext("--read-from-replicas: replica " + host + ":" + std::to_string(port));
      replica_controls_.push_back(std::move(*c));
      ++r->cluster_replicas;
    }
  }
  cluster_options_ = co;
  cluster_nodes_.emplace_back(opt_.target.host, opt_.target.port);
  RememberNodes(*map);
  *cluster_map = std::move(*map);
  return Status::OK();
}

void RespControl::RememberNodes(const SlotMap& map) {
  auto add = [this](const std::string& host, int port) {
    for (const auto& [h, p] : cluster_nodes_) {
      if (h == host && p == port) return;
    }
    cluster_nodes_.emplace_back(host, port);
  };
  for (const ClusterNode& node : map.nodes()) {
    add(node.host, node.port);
    for (const auto& [host, port] : node.replicas) add(host, port);
  }
}

// Each node in turn, on a connection of its own with short limits (a dead master must
// not hold the refresh up): the first map that covers every slot.
Result<SlotMap> RespControl::ReadSlotMap() {
  Status last = Status::Failed("no node known");
  for (size_t i = 0; i < cluster_nodes_.size(); ++i) {
    RedisClientOptions o = cluster_options_;
    o.host = cluster_nodes_[i].first;
    o.port = cluster_nodes_[i].second;
    o.timeout_ms = std::min(o.timeout_ms, 1000);
    auto c = RedisClient::Connect(o);
    if (!c.ok()) {
      last = c.status();
      continue;
    }
    auto reply = (*c)->Command({"CLUSTER", "SLOTS"});
    if (!reply.ok()) {
      last = reply.status();
      continue;
    }
    auto map = ParseClusterSlots(*reply, o.host);
    if (!map.ok()) return map.status();
    if (map->UncoveredSlots() > 0) {
      last = Status::Failed(std::to_string(map->UncoveredSlots()) + " slots have no master yet");
      continue;
    }
    RememberNodes(*map);
    return map;
  }
  return last;
}

// --read-from-replicas: the replicas' counts of the reads memstand sends them (never
// replicated) and of their READONLY and INFO are added to the masters'; the writes
// they replay from their masters are not memstand's and stay out.
ServerSnapshot RespControl::WithReplicaReads(ServerSnapshot masters) {
  if (replica_controls_.empty()) return masters;
  std::set<std::string> names = {"readonly", "info"};
  for (const auto& c : opt_.commands) {
    if (c.counts_hits) names.insert(LowerName(c.tmpl.name));
  }
  ServerSnapshot r = Merge(SnapshotEach(replica_controls_));
  ServerSnapshot only_reads = r;
  only_reads.commands.clear();
  for (const auto& [name, st] : r.commands) {
    if (names.count(name)) only_reads.commands[name] = st;
  }
  return Merge({masters, only_reads});
}

ControlSnapshot RespControl::Snapshot() {
  const std::vector<ServerSnapshot> each = SnapshotEach(controls_);
  const ServerSnapshot masters = Merge(each);
  const ServerSnapshot all = WithReplicaReads(masters);
  ControlSnapshot s;
  s.counts = CommandCounts(all);
  s.fleet = CommandCounts(masters);
  if (!opt_.pool.empty()) {
    for (const ServerSnapshot& one : each) s.each.push_back(CommandCounts(one));
  }
  s.info = all.info;
  s.control_sent = all.control_sent;
  if (auto it = all.info.find("redis_version"); it != all.info.end()) s.version = it->second;
  return s;
}

// What the load sent, by lower-case command name, and the connections' set-up.
std::map<std::string, int64_t> RespControl::LoadCounts(const std::vector<std::string>& stats,
                                                       const ThreadStats& t) const {
  std::map<std::string, int64_t> sent;
  for (size_t i = 0; i < stats.size(); ++i) sent[stats[i]] += static_cast<int64_t>(t.sent_by_command[i]);
  for (const auto& [name, n] : t.setup_commands) sent[name] += static_cast<int64_t>(n);
  return sent;
}

// Every command either side counted, but replication's.
void RespControl::Compare(const std::map<std::string, int64_t>& sent, const ControlSnapshot& before,
                          const ControlSnapshot& after, CrossCheck* cc) const {
  std::set<std::string> names;
  for (const auto& [name, n] : sent) names.insert(name);
  for (const auto& [name, n] : *after.counts) names.insert(name);
  auto value = [](const std::map<std::string, int64_t>& m, const std::string& name) -> int64_t {
    auto it = m.find(name);
    return it == m.end() ? 0 : it->second;
  };
  // A Sentinel target: the Sentinels talk to the primary all along with these (a hello
  // every 2 s, a PING every second, INFO every 10 s), so their rows cannot hold.
  static const std::set<std::string> kSentinelTraffic = {"ping", "info", "publish", "subscribe", "client|setname"};
  for (const std::string& name : names) {
    // Replicas talk to their primary with these; no client sends them.
    if (name == "replconf" || name == "psync" || name == "sync") continue;
    if (opt_.target.sentinel() && kSentinelTraffic.count(name) > 0) continue;
    CrossCheckRow row{name, value(sent, name), value(*after.counts, name) - value(*before.counts, name)};
    if (row.memstand == 0 && row.server == 0) continue;
    if (row.memstand != row.server) cc->mismatch = true;
    cc->rows.push_back(row);
  }
}

}  // namespace

Result<std::unique_ptr<RunControl>> ConnectRespControl(const LoadOptions& opt,
                                                       const std::shared_ptr<const TlsContext>& tls,
                                                       std::optional<SlotMap>* cluster_map,
                                                       RunResult* r) {
  auto control = std::make_unique<RespControl>(opt);
  RedisClientOptions co = ControlOptions(opt, opt.target, tls);
  auto client = RedisClient::Connect(co);
  if (!client.ok()) return client.status().WithContext("cannot use " + opt.target.Display());
  control->controls_.push_back(std::move(*client));
  Status s = opt.cluster ? control->ConnectCluster(co, cluster_map, r) : control->ConnectPool(tls);
  if (!s.ok()) return s;
  return std::unique_ptr<RunControl>(std::move(control));
}

}  // namespace memstand
