// failover (docs/scenarios/failover.md): what happens to a replicated system under load
// when its primary dies or stops. Each configuration is its own topology: a Redis Cluster
// of 3 masters with a replica each (a master's replica promoted after
// cluster-node-timeout), a Redis primary with 2 replicas and 3 Sentinels (the load through
// the engine's Sentinel target), each of these two again with WAIT 1 after every write, an
// etcd cluster of 3 members (the leader's loss: a new election), a Tarantool master with 2
// replicas (no election in 2.6: the scenario detects the master's death and promotes a
// replica; the load through the engine's RW pool, tarantool+rw://).
// Load: open loop, writes of unique values and reads, every operation in a history. The
// fault: the primary (master, leader) SIGKILLed, or SIGSTOPped for longer than the
// failure detector and then resumed. Measured per configuration, fault and run: the
// outage, the detection and promotion, the operations ok / fail / unknown in the outage;
// checked from the history: acknowledged writes lost, values unexpected, reads not
// linearizable. Such a finding is the system breaking its contract (exit 4), not a
// failed run.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/scenario.h"
#include "util/status.h"

namespace memstand {

struct MeasuredChoiceRow;
struct ReportInput;
struct ReportSection;

struct FailoverOptions {
  /// "redis-cluster", "redis-sentinel", "etcd", "tarantool"; "redis-cluster-wait" and
  /// "redis-sentinel-wait": the same, every write followed by WAIT 1 (200 ms).
  std::vector<std::string> configurations = {"redis-cluster", "redis-cluster-wait", "redis-sentinel",
                                             "redis-sentinel-wait", "etcd", "tarantool"};
  /// "kill" (SIGKILL) and "pause" (SIGSTOP for pause_s, then SIGCONT).
  std::vector<std::string> faults = {"kill", "pause"};
  /// The load's length; the fault comes at fault_at_s.
  double duration_s = 10;
  double fault_at_s = 3;
  /// pause: how long the node stays stopped. 4 s: four times the Redis Cluster's node
  /// timeout below and far above etcd's election timeout (1 s).
  double pause_s = 4;
  /// Operations per second (open loop), half writes, half reads, over `clients`.
  double rate = 1000;
  int clients = 4;
  uint64_t keys = 1000;
  /// Redis Cluster's cluster-node-timeout and the Sentinels' down-after-milliseconds:
  /// how long a primary may be unreachable before it is failed over; for Tarantool the
  /// scenario's own detection timeout (its pings unanswered that long: the master dead). 1 s (Redis's
  /// defaults are 15 s and 30 s) keeps a run in seconds.
  int node_timeout_ms = 1000;
  /// The WAIT configurations: WAIT 1's timeout. Below the load's 1 s reply timeout
  /// (kit/register_load.h), so that a write no replica acknowledged ends unknown by
  /// WAIT's answer rather than as a lost connection; far above a loopback replica's ack.
  int wait_timeout_ms = 200;
  /// Bound of the linearizability search of one history.
  double check_time_limit_s = 20;
  /// A control of the checks (redis-cluster only): a second before the fault the
  /// replica is cut off from its master (the master's password changed, the replication
  /// link closed: the replica cannot come back), and may be promoted whatever its lag
  /// (cluster-replica-validity-factor 0). The writes the master acknowledged since then
  /// are lost at the failover: the scenario must report them (exit 4).
  bool plant_loss = false;
};

/// The configurations failover knows, in their order.
const std::vector<std::string>& FailoverConfigurations();
Status ValidateFailover(const FailoverOptions& options);

/// Runs every configuration x fault, ctx.runs times, each with a fresh topology.
Result<ScenarioReport> RunFailover(const FailoverOptions& options, const ScenarioContext& ctx);

// Its row in scenario/registry.cc.
ScenarioPrepare SetupFailover(CLI::App* app);
void FailoverCharts(const ReportInput& in, ReportSection* section);
std::vector<MeasuredChoiceRow> FailoverChoiceRows();

}  // namespace memstand
