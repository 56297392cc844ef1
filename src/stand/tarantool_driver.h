// tarantool as a ServerDriver: memstand writes an init.lua that calls box.cfg{...}
// with the listen port and the user's box.cfg settings, then runs the user's own
// init file, then logs a ready line once box.info.status is "running". A member of a
// replica set (the tarantool-replicaset topology) also gets the replication settings
// its role needs and logs a second line once its replication is in place.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "stand/server_driver.h"

namespace memstand {

/// NodeLaunch::role_args for a member of a replica set: its role and the URIs of every
/// member (itself included), in the topology's node order. Read by TarantoolDriver.
std::vector<std::string> ReplicaSetRoleArgs(bool master, const std::vector<std::string>& uris);

/// The line a replica set member logs once its replication is in place (see
/// TarantoolDriver::InitLua), for Topology's wait.
std::string ReplicationReadyLine(pid_t pid);

/// text as a single-quoted Lua string literal (quote, backslash and newline escaped).
std::string LuaString(const std::string& text);

class TarantoolDriver : public ServerDriver {
 public:
  /// settings: box.cfg keys (memtx_memory, wal_mode, ...). A value that is a number
  /// or true/false goes to Lua as is; a *_memory or vinyl_cache value may carry a size suffix
  /// ("256m"); anything else is a Lua string. user_init: a Lua file to dofile()
  /// after box.cfg, or empty.
  TarantoolDriver(std::vector<std::pair<std::string, std::string>> settings, std::string user_init)
      : settings_(std::move(settings)), user_init_(std::move(user_init)) {}

  std::string DefaultBinary() const override { return "tarantool"; }
  std::string Package() const override { return "tarantool"; }
  /// Writes <dir>/init.lua; argv: binary init.lua (run in dir, where the WAL and
  /// snapshots go). role_args: empty (one server) or ReplicaSetRoleArgs.
  Result<std::vector<std::string>> Prepare(const NodeLaunch& launch) const override;
  /// Ready once the port sends the IPROTO greeting, the listening socket is our
  /// process's, and the log holds init.lua's ready line for our pid.
  Status Probe(const NodeLaunch& launch, pid_t pid, std::string* version,
               bool* port_taken) const override;
  std::string ProbeDescription() const override {
    return "send its greeting and reach box.info.status running";
  }
  bool ConfigRejected(const std::string& log_tail) const override;

  /// The init.lua text for a node listening on host:port. Exposed for tests.
  /// With ReplicaSetRoleArgs: box.cfg also gets `replication` listing the members
  /// up to this one (the members start in order, so each connects at once to all it
  /// lists; a list with members not yet started would make box.cfg wait for them), a
  /// replica `read_only = true`; the master grants guest `super` (replication and the
  /// load's access, loopback only) and runs the user's init file (replicas get what it
  /// creates by replication). A fiber waits until every member has joined
  /// (box.info.replication), sets box.cfg{replication = every member}, and logs
  /// ReplicationReadyLine once: on a replica when every other member's upstream is
  /// `follow`, on the master when every replica's upstream and downstream are `follow`
  /// and each replica has acknowledged the master's whole vclock component.
  /// With ShardStorageRoleArgs: a member as above plus the storage layer
  /// (shard_lua.h) before the user's file; with ShardRouterRoleArgs: box.cfg with the
  /// listen port and the settings, guest `super`, the router's Lua, no user file.
  Result<std::string> InitLua(const std::string& host, int port,
                              const std::vector<std::string>& role_args = {}) const;

 private:
  // "box.cfg{...}" with the listen port, a member's replication settings (member_args:
  // ReplicaSetRoleArgs, or empty) and the user's settings.
  Result<std::string> BoxCfg(const std::string& host, int port, const std::vector<std::string>& member_args) const;

  std::vector<std::pair<std::string, std::string>> settings_;
  std::string user_init_;
};

}  // namespace memstand
