// One configuration of a scenario and the server that runs it: started fresh through
// the stand library (a one-node Topology on free loopback ports), read through the
// control clients (exact server counters, never sampled reads), written one record at
// a time for exact detection, and described for the report and the evidence folder.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/redis_client.h"
#include "load/load_options.h"
#include "load/proto_control.h"
#include "stand/topology.h"
#include "util/status.h"

namespace memstand {

/// Timeout of a scenario's control-client calls to a server (INFO, CONFIG, eval), ms.
inline constexpr int kControlTimeoutMs = 5000;

enum class SystemKind { kRedis, kMemcached, kTarantool, kEtcd };

/// "redis", "memcached", "tarantool", "etcd".
const char* SystemName(SystemKind kind);
/// The Debian package and the program that provide it.
const char* SystemPackage(SystemKind kind);
const char* SystemBinary(SystemKind kind);
/// Whether the system's program is installed here (found in PATH).
bool SystemInstalled(SystemKind kind);

/// A new topology name for a scenario's servers: "scenario-<pid>-<n>" (the prefix
/// RemoveLeftoverScenarioFolders looks for).
std::string NextScenarioTopologyName();

/// A scenario's topologies die with memstand (PR_SET_PDEATHSIG), but a memstand killed
/// by SIGKILL leaves their run folders. Removes the folders of scenario topologies whose
/// memstand is gone and whose every node is gone too (StopRecordedTopology signals only
/// processes proven ours, and none of these runs); once per process.
void RemoveLeftoverScenarioFolders();

struct ServerConfig {
  std::string name;  // the configuration's name in reports, e.g. "redis-allkeys-lru"
  SystemKind system = SystemKind::kRedis;
  /// The server's own option names and values (redis directives, memcached long
  /// options, tarantool box.cfg keys, etcd flags), applied after memstand's own.
  std::vector<std::pair<std::string, std::string>> settings;
  /// Tarantool: the engine of space `products` ("memtx" or "vinyl").
  std::string engine = "memtx";
  /// "redis maxmemory=8mb maxmemory-policy=allkeys-lru" (what --config takes).
  std::string Describe() const;
};

/// Parses a --config value: "SYSTEM [KEY=VALUE ...]", e.g. "redis maxmemory=16mb
/// maxmemory-policy=allkeys-lfu" or "tarantool engine=vinyl vinyl_memory=8mb" (`engine`
/// is the space's engine, not a box.cfg key; `name=` names the configuration, else
/// SYSTEM-<n>). InvalidArgument naming what is wrong.
Result<ServerConfig> ParseServerConfig(std::string_view text, int index);

/// The server's exact counters at one moment.
struct ServerCounters {
  int64_t present = 0;  // keys or tuples stored (DBSIZE, curr_items, space:len())
  int64_t evicted = 0;  // evicted_keys, evictions; 0 where the server never evicts
  int64_t memory = 0;   // used_memory, bytes, memtx quota_used / vinyl level0
  std::map<std::string, int64_t> raw;  // every counter read, by the server's name
  bool operator==(const ServerCounters& o) const {
    return present == o.present && evicted == o.evicted && memory == o.memory;
  }
};

/// Starts a topology of several nodes for a scenario (a replica set, a cluster) through
/// the stand library, named and cleaned up after a killed memstand as the scenarios'
/// one-node servers are (spec.name is replaced). Its processes die with memstand.
Result<std::unique_ptr<Topology>> StartScenarioTopology(TopologySpec spec, const std::atomic<bool>* cancel);

class ServerUnderTest {
 public:
  /// Starts a fresh server for `config` (a run folder of its own; Tarantool with space
  /// `products`, unsigned primary key). A program that is not installed is NotFound
  /// with the apt-get hint. `cancel` may be null. `init_lua` (Tarantool): the Lua run
  /// after box.cfg in place of memstand's own (guest access, `products` as [id, record
  /// JSON]), for a scenario that needs another schema; it must grant guest access too.
  static Result<std::unique_ptr<ServerUnderTest>> Start(const ServerConfig& config,
                                                        const std::atomic<bool>* cancel,
                                                        std::string init_lua = "");
  ~ServerUnderTest();
  ServerUnderTest(const ServerUnderTest&) = delete;
  ServerUnderTest& operator=(const ServerUnderTest&) = delete;

  /// Stops the server and removes its folders. Idempotent.
  Status Stop();
  /// Whether the server process still runs.
  bool Alive();
  /// The server's pid (0 before it started).
  pid_t pid() const;
  /// "" while the server runs; else "<name> (pid N) died: killed by signal 9 (SIGKILL)".
  std::string Died();
  /// A failure of a request to this server, said for what it was: when the server
  /// died, Died() first, and without the "if that port is a TLS port" hint (a
  /// reset from a dead server is not a TLS port's); else `failure` as it is. A lost
  /// connection (closed, reset, refused) waits up to 500 ms for the death to show: a
  /// killed process's sockets close before it can be reaped.
  std::string ExplainFailure(const std::string& failure);

  /// Reads the counters through the control connection (reconnecting once if it broke).
  Result<ServerCounters> Read();
  /// Writes one record through the control connection. OK with *error empty when the
  /// server stored it, OK with the server's error text when it refused; a Status for
  /// I/O failures.
  Status Write(uint64_t id, std::string_view key, std::string_view value, std::string* error);

  /// The engine's view: the target, its protocol and the write command's template.
  RedisTarget target() const;
  Protocol protocol() const;
  /// SET / set / replace products [__keynum__, __data__] / put.
  std::string WriteTemplate() const;

  const ServerConfig& config() const { return config_; }
  /// "redis-server 7.0.15 on 127.0.0.1:PORT (pid N), settings ..."
  std::string Describe() const;
  /// The server's exact configuration: its command line and, for Tarantool, init.lua.
  std::string ConfigText() const;
  /// The server's log file (scenario/kit/evidence.h keeps its tail).
  const std::string& log_path() const;
  const std::string& version() const;
  /// The control connections, for scenario-specific requests (etcd maintenance,
  /// Tarantool EVAL). Redis: redis() is set; the others: control().
  RedisClient* redis() { return redis_.get(); }
  ProtoControl* control() { return control_.get(); }

 private:
  ServerUnderTest() = default;
  Status Connect();
  Result<ServerCounters> ReadRedis();
  Result<ServerCounters> ReadMemcached();
  Result<ServerCounters> ReadTarantool();
  Result<ServerCounters> ReadEtcd();

  ServerConfig config_;
  std::string init_dir_;  // Tarantool: the folder of the init file, ours to remove
  std::string init_lua_;  // Tarantool: the products Lua as run
  std::unique_ptr<Topology> topology_;
  std::unique_ptr<RedisClient> redis_;
  std::unique_ptr<ProtoControl> control_;
};

}  // namespace memstand
