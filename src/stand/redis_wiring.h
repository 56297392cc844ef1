// Wiring started redis-servers into a replicated pair or a cluster, and checking that
// the result is what was asked for, over the blocking control client.
#pragma once

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "util/status.h"

namespace memstand {

struct RedisEndpoint {
  std::string name;  // for messages: "replica-1"
  std::string host;
  int port = 0;
  int bus_port = 0;  // cluster nodes only
};

/// Bounds and cancellation for a wiring step.
struct WiringOptions {
  int timeout_ms = 20000;
  const std::atomic<bool>* cancel = nullptr;  // polled; true: Failed("interrupted")
};

/// Waits until the primary reports connected_slaves == replicas.size(), every slave
/// line state=online, and every replica master_link_status:up (the replicas were
/// started with --replicaof). Timeout names what was last seen.
Status WaitReplication(const RedisEndpoint& primary, const std::vector<RedisEndpoint>& replicas,
                       const WiringOptions& options);

/// Waits until every Sentinel reports, for `master_name` (SENTINEL MASTER): the primary's
/// address, flags "master" alone (not down), num-slaves == replicas and
/// num-other-sentinels == sentinels.size() - 1 (they found each other through the
/// primary's hello channel). Timeout names what was last seen.
Status WaitSentinels(const std::vector<RedisEndpoint>& sentinels, const std::string& master_name,
                     const RedisEndpoint& primary, int replicas, const WiringOptions& options);

/// The slots master i of n owns: an even split of 0..16383, lowest slots first.
std::pair<int, int> MasterSlotRange(int i, int n);

/// Makes a cluster of empty cluster-enabled nodes: each master gets MasterSlotRange
/// (CLUSTER ADDSLOTSRANGE), distinct config epochs, CLUSTER MEET from the first node,
/// then each replicas[m][r] CLUSTER REPLICATEs masters[m]. With replicas, once their
/// links are up: FLUSHALL on the (new, empty) masters so the replicas' offsets leave
/// 0, and a MEET from each replica to every node so all learn its role at once.
/// Returns once every node says cluster_state:ok with 16384 slots assigned, and every
/// node's CLUSTER NODES and CLUSTER SLOTS show the planned masters, slot ranges and
/// replicas (no failing or handshaking node). Then CONFIG RESETSTAT on every node, so
/// the setup's commands are not in the commandstats a run reads.
Status FormCluster(const std::vector<RedisEndpoint>& masters,
                   const std::vector<std::vector<RedisEndpoint>>& replicas,
                   const WiringOptions& options);

}  // namespace memstand
