// One system's side of recovery's procedure (recovery.cc): how its server is configured,
// filled, snapshotted, watched while it comes back, and counted once it is back. Redis
// (redis_system.cc) and Tarantool (tarantool_system.cc). Internal.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "load/protocol.h"
#include "scenario/recovery/cell.h"
#include "scenario/scenario.h"
#include "stand/topology.h"
#include "stand/topology_spec.h"
#include "util/status.h"

namespace memstand {

/// What the watcher saw from the restart on (Unix ns; 0: not seen).
struct RecoveryWatch {
  int64_t accept_unix_ns = 0;  // the first TCP connection accepted
  int64_t loaded_unix_ns = 0;  // loading done, where the system says it over the wire
};

class RecoverySystem {
 public:
  virtual ~RecoverySystem() = default;
  virtual Protocol protocol() const = 0;
  /// The one-node topology of `configuration` at `memory`; `folder` is the scenario's
  /// own (removed at its end) for files the server reads on every start.
  virtual Result<TopologySpec> Spec(const std::string& configuration, uint64_t memory,
                                    const std::string& folder) const = 0;
  /// The fill's write and the history load's write and read, as engine templates.
  virtual std::string FillCommand() const = 0;
  virtual std::vector<std::string> LoadCommands() const = 0;
  /// The server's memory per fill key beyond its value (FillKeyCount).
  virtual uint64_t PerKeyOverhead() const = 0;
  /// The data's size now (bytes): Redis INFO used_memory, Tarantool arena_used.
  virtual Result<int64_t> DataSize(const NodeRecord& n) const = 0;
  /// What comes after the fill (rdb: BGSAVE; Tarantool: box.snapshot()), waited for.
  virtual Status AfterFill(const NodeRecord& n, const std::string& configuration,
                           const ScenarioContext& ctx) const = 0;
  /// The sizes of the persistence files in the node's folder, into `cell`.
  virtual void FilesOnDisk(const std::string& dir, RecoveryCell* cell) const = 0;
  /// True when Watch measures loading done itself (Tarantool: box.info.status over
  /// IPROTO); false: the restart's readiness wait is loading done (Redis).
  virtual bool WatchesLoaded() const = 0;
  /// From `restarting` on, polling every 2 ms until `stop` or until it saw all it
  /// watches: the first connection accepted (and loading done where WatchesLoaded).
  virtual void Watch(const NodeRecord& n, const std::atomic<bool>& restarting, const std::atomic<bool>& stop,
                     RecoveryWatch* seen) const = 0;
  /// Once back: keys_after and fill_present of `cell` (left -1 when unreadable).
  virtual void CountAfter(const NodeRecord& n, RecoveryCell* cell) const = 0;
  /// "redis", "tarantool": the configuration line's and the log tail's name.
  virtual const char* name() const = 0;
};

const RecoverySystem& RedisRecoverySystem();
const RecoverySystem& TarantoolRecoverySystem();
/// The side of `configuration`'s system (RecoverySystemOf).
const RecoverySystem& RecoverySystemFor(const std::string& configuration);

/// The summed size of the regular files under `p` whose names end in `suffix` ("" for
/// all; `p` itself when a file); -1 when `p` does not exist.
int64_t FilesBytes(const std::string& p, const std::string& suffix = "");

}  // namespace memstand
