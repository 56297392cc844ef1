// failover's Tarantool configuration (docs/scenarios/failover.md): a master and 2 replicas
// of Tarantool 2.6, which has no election of its own, so the scenario is the orchestrator:
// it pings the master over a control connection, declares it dead after the detection
// timeout without an answer, promotes the replica that has the most of the master's
// writes (the highest vclock component of the master's id) with box.cfg{read_only =
// false}, points the other replica at it, and, when the old master comes back (a pause),
// fences it (read_only = true, replicating from the new master). Internal to failover.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "load/target.h"
#include "stand/topology.h"
#include "util/status.h"

namespace memstand {

/// The space the load writes and reads (a string key, the value in field 2).
inline constexpr char kTarantoolSpace[] = "failover";

/// What the orchestrator needs to know of the replica set before the fault.
struct TarantoolSet {
  std::string master;   // the master's node name
  uint64_t master_id = 0;  // its box.info.id: its component of every vclock
};

/// The replica set ready for the load: the master found (cell victim), the space created
/// on it and seen on every replica, the master's id read. Failed saying which step.
Status PrepareTarantoolSet(const Topology& t, TarantoolSet* set);

/// The load's target: every member in an RW pool (tarantool+rw://), as a client pool
/// that finds the writable one.
Result<RedisTarget> TarantoolPoolTarget(const Topology& t);

/// The load's write and read of a register (kTarantoolSpace).
std::vector<std::string> TarantoolCommands();

/// A replica's position: how much of the master's log it has.
struct ReplicaPosition {
  std::string node;
  bool reachable = false;
  uint64_t master_lsn = 0;  // box.info.vclock[master_id] (0: none of its writes)
};

/// The replica to promote: the reachable one with the highest master_lsn, the first of
/// them in order on a tie; -1 when none is reachable.
int MostAdvanced(const std::vector<ReplicaPosition>& replicas);

/// What the orchestrator did: times are Unix ns (0: not reached); steps, in order, as text.
struct Orchestration {
  int64_t detect_unix_ns = 0;   // the master declared dead
  int64_t promote_unix_ns = 0;  // the chosen replica says box.info.ro false
  std::string new_master;
  std::vector<std::string> steps;
};

/// Runs from the fault until `stop`: pings the master every 10 ms (a 250 ms bound on
/// each), declares it dead once detection_ms passed since its last answer (the watch's
/// start counts as one), promotes the most advanced replica, reconfigures the other,
/// then, while `stop` is not set, fences the old master as soon as it answers again.
/// Times go to *out as they are reached (read *out after `stop` and the thread's end).
void OrchestrateTarantool(const Topology& t, const TarantoolSet& set, int detection_ms,
                          const std::atomic<bool>& stop, Orchestration* out);

}  // namespace memstand
