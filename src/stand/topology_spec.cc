#include "stand/topology_spec.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace memstand {
namespace {

struct KindInfo {
  TopologyKind kind;
  const char* name;
  // Options memstand sets itself; a --set of one of them would break the topology.
  std::vector<std::string_view> managed;
};

const std::array<KindInfo, 10>& Kinds() {
  static const std::array<KindInfo, 10> kKinds = {{
      // redis: `include` would read a file that sets any of them again; `loadmodule`
      // loads code from a file; `aclfile` reads its users from a file and ACL SAVE
      // writes it; pidfile, unixsocket and cluster-config-file (a path, unlike
      // dbfilename, appendfilename and appenddirname, which redis 7 keeps in `dir`)
      // write files outside the run folder.
      {TopologyKind::kRedis,
       "redis",
       {"port", "bind", "dir", "daemonize", "logfile", "include", "pidfile", "unixsocket", "loadmodule",
        "aclfile", "cluster-config-file"}},
      {TopologyKind::kRedisReplica,
       "redis-replica",
       {"port", "bind", "dir", "daemonize", "logfile", "include", "pidfile", "unixsocket", "loadmodule",
        "aclfile", "cluster-config-file", "replicaof", "slaveof"}},
      {TopologyKind::kRedisCluster,
       "redis-cluster",
       {"port", "bind", "dir", "daemonize", "logfile", "include", "pidfile", "unixsocket", "loadmodule",
        "aclfile", "replicaof", "slaveof", "cluster-enabled", "cluster-config-file", "cluster-port"}},
      {TopologyKind::kRedisSentinel,
       "redis-sentinel",
       {"port", "bind", "dir", "daemonize", "logfile", "include", "pidfile", "unixsocket", "loadmodule",
        "aclfile", "cluster-config-file", "replicaof", "slaveof"}},
      {TopologyKind::kMemcached,
       "memcached",
       {"port", "listen", "udp-port", "unix-socket", "daemon", "pidfile"}},
      {TopologyKind::kTarantool,
       "tarantool",
       {"listen", "work_dir", "wal_dir", "memtx_dir", "vinyl_dir", "background", "pid_file",
        "log"}},
      {TopologyKind::kTarantoolReplicaSet,
       "tarantool-replicaset",
       {"listen", "work_dir", "wal_dir", "memtx_dir", "vinyl_dir", "background", "pid_file",
        "log", "replication", "read_only", "replication_connect_quorum", "instance_uuid",
        "replicaset_uuid"}},
      {TopologyKind::kTarantoolSharded,
       "tarantool-sharded",
       {"listen", "work_dir", "wal_dir", "memtx_dir", "vinyl_dir", "background", "pid_file",
        "log", "replication", "read_only", "replication_connect_quorum", "instance_uuid",
        "replicaset_uuid"}},
      {TopologyKind::kEtcd,
       "etcd",
       {"name", "data-dir", "wal-dir", "listen-client-urls", "advertise-client-urls",
        "listen-peer-urls", "initial-advertise-peer-urls", "initial-cluster",
        "initial-cluster-state"}},
      {TopologyKind::kEtcdCluster,
       "etcd-cluster",
       {"name", "data-dir", "wal-dir", "listen-client-urls", "advertise-client-urls",
        "listen-peer-urls", "initial-advertise-peer-urls", "initial-cluster",
        "initial-cluster-state", "initial-cluster-token"}},
  }};
  return kKinds;
}

const KindInfo& Info(TopologyKind kind) {
  for (const KindInfo& k : Kinds()) {
    if (k.kind == kind) return k;
  }
  return Kinds()[0];
}

// The largest topology memstand will start: one machine, one process per node.
constexpr int kMaxNodes = 256;

bool ValidName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

bool ValidKey(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// tarantool-sharded's --storages and --routers: defaults 2 and 2, at most 64 each.
Status CheckShardCounts(TopologySpec* spec) {
  const bool sharded = spec->kind == TopologyKind::kTarantoolSharded;
  if (!sharded && (spec->storages != -1 || spec->routers != -1)) {
    return Status::InvalidArgument(std::string(spec->storages != -1 ? "--storages" : "--routers") +
                                   " applies to tarantool-sharded only, not " + TopologyKindName(spec->kind));
  }
  if (!sharded) return Status::OK();
  if (spec->storages == -1) spec->storages = 2;
  if (spec->routers == -1) spec->routers = 2;
  for (const auto& [flag, value] : {std::pair{"--storages", spec->storages}, std::pair{"--routers", spec->routers}}) {
    if (value < 1 || value > 64) {
      return Status::InvalidArgument(std::string(flag) + " " + std::to_string(value) + ": 1..64");
    }
  }
  return Status::OK();
}

Status CheckCounts(TopologySpec* spec) {
  const bool cluster = spec->kind == TopologyKind::kRedisCluster;
  const bool sentinel = spec->kind == TopologyKind::kRedisSentinel;
  const bool sharded = spec->kind == TopologyKind::kTarantoolSharded;
  const bool replica = spec->kind == TopologyKind::kRedisReplica ||
                       spec->kind == TopologyKind::kTarantoolReplicaSet || sentinel || sharded;
  if (!cluster && spec->masters != 0) {
    return Status::InvalidArgument("--masters applies to redis-cluster only, not " +
                                   std::string(TopologyKindName(spec->kind)));
  }
  if (!cluster && !replica && spec->replicas != -1) {
    return Status::InvalidArgument("--replicas applies to redis-replica, redis-cluster, "
                                   "redis-sentinel, tarantool-replicaset and tarantool-sharded only, not " +
                                   std::string(TopologyKindName(spec->kind)));
  }
  if (cluster && spec->masters == 0) spec->masters = 8;
  if (cluster && spec->masters < 1) {
    return Status::InvalidArgument("--masters " + std::to_string(spec->masters) +
                                   ": a cluster needs at least 1 master");
  }
  if (spec->replicas == -1) {
    spec->replicas = spec->kind == TopologyKind::kTarantoolReplicaSet ? 3 : sentinel ? 2 : replica ? 1 : 0;
  }
  if (sharded && spec->replicas == 0) {
    return Status::InvalidArgument("--replicas 0: tarantool-sharded needs at least 1 replica per storage (the "
                                   "reads with mode 'read' go to one)");
  }
  if (Status s = CheckShardCounts(spec); !s.ok()) return s;
  if (!sentinel && spec->sentinels != -1) {
    return Status::InvalidArgument("--sentinels applies to redis-sentinel only, not " +
                                   std::string(TopologyKindName(spec->kind)));
  }
  if (sentinel && spec->sentinels == -1) spec->sentinels = 3;
  const bool etcd_cluster = spec->kind == TopologyKind::kEtcdCluster;
  if (!etcd_cluster && spec->members != -1) {
    return Status::InvalidArgument("--members applies to etcd-cluster only, not " +
                                   std::string(TopologyKindName(spec->kind)));
  }
  if (etcd_cluster && spec->members == -1) spec->members = 3;
  if (etcd_cluster && spec->members < 1) {
    return Status::InvalidArgument("--members " + std::to_string(spec->members) +
                                   ": etcd-cluster needs at least 1 member");
  }
  if (sentinel && spec->sentinels < 1) {
    return Status::InvalidArgument("--sentinels " + std::to_string(spec->sentinels) +
                                   ": redis-sentinel needs at least 1 Sentinel");
  }
  if (replica && spec->replicas < 1) {
    return Status::InvalidArgument("--replicas " + std::to_string(spec->replicas) + ": " +
                                   TopologyKindName(spec->kind) + " needs at least 1 replica");
  }
  if (spec->replicas < 0) {
    return Status::InvalidArgument("--replicas " + std::to_string(spec->replicas) +
                                   ": must be 0 or more");
  }
  if (NodeCount(*spec) > kMaxNodes) {
    return Status::InvalidArgument("--masters/--replicas/--sentinels: " + std::to_string(NodeCount(*spec)) +
                                   " nodes; at most " + std::to_string(kMaxNodes) +
                                   " on one machine");
  }
  return Status::OK();
}

Status CheckPorts(const TopologySpec& spec) {
  if (spec.port < 0 || spec.port > 65535 || spec.port + NodeCount(spec) - 1 > 65535) {
    return Status::InvalidArgument("--port " + std::to_string(spec.port) + ": " +
                                   std::to_string(NodeCount(spec)) +
                                   " ports from there do not fit in 1..65535");
  }
  if (spec.peer_port != 0 && spec.kind != TopologyKind::kEtcd && spec.kind != TopologyKind::kEtcdCluster) {
    return Status::InvalidArgument("--peer-port applies to etcd and etcd-cluster only");
  }
  if (spec.peer_port < 0 || spec.peer_port > 65535) {
    return Status::InvalidArgument("--peer-port " + std::to_string(spec.peer_port) +
                                   ": not in 1..65535");
  }
  if (spec.peer_port != 0 && spec.peer_port == spec.port) {
    return Status::InvalidArgument("--peer-port equals --port (" + std::to_string(spec.port) + ")");
  }
  if (spec.peer_port + NodeCount(spec) - 1 > 65535) {
    return Status::InvalidArgument("--peer-port " + std::to_string(spec.peer_port) + ": " +
                                   std::to_string(NodeCount(spec)) + " ports from there do not fit in 1..65535");
  }
  if (spec.peer_port != 0 && spec.port != 0 && spec.peer_port < spec.port + NodeCount(spec) &&
      spec.port < spec.peer_port + NodeCount(spec)) {
    return Status::InvalidArgument("--peer-port " + std::to_string(spec.peer_port) + ": its ports overlap --port's");
  }
  if (spec.relay.port < 0 || spec.relay.port > 65535) {
    return Status::InvalidArgument("relay.port " + std::to_string(spec.relay.port) +
                                   ": not in 1..65535");
  }
  return Status::OK();
}

Status CheckSentinelSetting(const TopologySpec& spec, const std::string& key, const std::string& lower) {
  if (spec.kind != TopologyKind::kRedisSentinel) {
    return Status::InvalidArgument("--set " + key + ": sentinel settings apply to redis-sentinel only");
  }
  for (std::string_view known : kSentinelDirectives) {
    if (lower.substr(9) == known) return Status::OK();
  }
  return Status::InvalidArgument("--set " + key + ": memstand passes sentinel.down-after-milliseconds, "
                                 "sentinel.failover-timeout and sentinel.parallel-syncs to the Sentinels");
}

Status CheckSettings(const TopologySpec& spec) {
  const KindInfo& info = Info(spec.kind);
  for (const auto& [key, value] : spec.settings) {
    if (!ValidKey(key)) {
      return Status::InvalidArgument("--set '" + key + "=" + value +
                                     "': a key is letters, digits, '-', '_' or '.'");
    }
    std::string lower = key;  // redis reads its directives in any case (INCLUDE, Port)
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (IsSentinelSetting(lower)) {
      if (Status s = CheckSentinelSetting(spec, key, lower); !s.ok()) return s;
      continue;
    }
    if (std::find(info.managed.begin(), info.managed.end(), lower) != info.managed.end()) {
      return Status::InvalidArgument("--set " + key + ": managed by memstand for " + info.name +
                                     " (ports: --port; files: the run folder)");
    }
  }
  if (!spec.init_lua.empty()) {
    if (spec.kind != TopologyKind::kTarantool && spec.kind != TopologyKind::kTarantoolReplicaSet &&
        spec.kind != TopologyKind::kTarantoolSharded) {
      return Status::InvalidArgument("--init-lua applies to tarantool, tarantool-replicaset and tarantool-sharded only");
    }
    struct stat st {};
    if (stat(spec.init_lua.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      return Status::InvalidArgument("--init-lua '" + spec.init_lua + "': no such file");
    }
  }
  return Status::OK();
}

}  // namespace

const char* TopologyKindName(TopologyKind kind) { return Info(kind).name; }

bool IsSentinelSetting(std::string_view key) {
  constexpr std::string_view kPrefix = "sentinel.";
  return key.size() >= kPrefix.size() &&
         std::equal(kPrefix.begin(), kPrefix.end(), key.begin(),
                    [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
}

std::string KnownTopologyKinds() {
  std::string known;
  for (const KindInfo& k : Kinds()) known += (known.empty() ? "" : ", ") + std::string(k.name);
  return known;
}

Result<TopologyKind> ParseTopologyKind(std::string_view name) {
  for (const KindInfo& k : Kinds()) {
    if (name == k.name) return k.kind;
  }
  return Status::InvalidArgument("unknown topology '" + std::string(name) +
                                 "'; known: " + KnownTopologyKinds());
}

int NodeCount(const TopologySpec& spec) {
  switch (spec.kind) {
    case TopologyKind::kRedisReplica:
    case TopologyKind::kTarantoolReplicaSet:
      return 1 + std::max(spec.replicas, 0);
    case TopologyKind::kRedisSentinel:
      return 1 + std::max(spec.replicas, 0) + std::max(spec.sentinels, 0);
    case TopologyKind::kEtcdCluster:
      return std::max(spec.members, 1);
    case TopologyKind::kTarantoolSharded:
      return std::max(spec.storages, 1) * (1 + std::max(spec.replicas, 0)) + std::max(spec.routers, 1);
    case TopologyKind::kRedisCluster:
      return spec.masters * (1 + std::max(spec.replicas, 0));
    default:
      return 1;
  }
}

Status NormalizeSpec(TopologySpec* spec) {
  if (spec->name.empty()) spec->name = TopologyKindName(spec->kind);
  if (!ValidName(spec->name)) {
    return Status::InvalidArgument("--name '" + spec->name +
                                   "': use 1-64 letters, digits, '-', '_' or '.', not starting "
                                   "with '.'");
  }
  if (spec->ready_timeout_ms <= 0) {
    return Status::InvalidArgument("--ready-timeout must be more than 0");
  }
  if (Status s = CheckCounts(spec); !s.ok()) return s;
  if (Status s = CheckPorts(*spec); !s.ok()) return s;
  return CheckSettings(*spec);
}

Result<std::pair<std::string, std::string>> ParseSetting(std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Status::InvalidArgument("--set '" + std::string(text) + "': expected KEY=VALUE");
  }
  return std::make_pair(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
}

}  // namespace memstand
