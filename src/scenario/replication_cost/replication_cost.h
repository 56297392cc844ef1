// replication-cost (docs/scenarios/replication-cost.md): what waiting for
// replicas costs. A Tarantool replica set (a master and 3 replicas) with an asynchronous
// and an `is_sync` space, written on the master and read from the master or round robin
// from the replicas; a Redis primary with 2 replicas, SET against SET + WAIT 1 / WAIT 2.
// Each path is swept over concurrency to its knee; every cell shows the client's CPU
// beside each server's, and after every write cell each replica's count must reach the
// master's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/scenario.h"
#include "util/status.h"

namespace memstand {

struct MeasuredChoiceRow;
struct ReportInput;
struct ReportSection;

struct ReplicationCostOptions {
  /// Connections of each step (one load thread, one request in flight each): from one
  /// connection to past where this 2-core machine saturates.
  std::vector<uint64_t> concurrency = {1, 4, 16, 64};
  /// Measured seconds per cell: 2 s keeps the default matrix (32 cells) near 1.5 min.
  double step_s = 2;
  /// Unmeasured seconds before each cell (connections made, first requests answered).
  double warmup_s = 0.2;
  /// replication_synchro_timeout: how long the master waits for the quorum before it
  /// rolls a synchronous transaction back. 5 s: far above a loopback round trip.
  double synchro_timeout_s = 5;
  /// Bound of the wait for every replica's count to reach the master's after a write
  /// cell. Loopback replication settles in milliseconds here (24 ms the longest seen).
  int settle_timeout_ms = 5000;
  /// Which systems run: "tarantool", "redis".
  std::vector<std::string> systems = {"tarantool", "redis"};
  /// The synchronous quorums measured, each its own path into its own is_sync space:
  /// "majority" (sync-write: members / 2 + 1, the published set-up) and "all"
  /// (sync-write-all: every member). Both by default: on Tarantool 2.6.0 (Debian 12) a
  /// majority quorum loses a transaction's quorum now and then and stalls (docs/scenarios/replication-cost.md),
  /// a quorum of all members did not in any run here.
  std::vector<std::string> sync_quorums = {"majority", "all"};
};

/// The replicas of each system (the published sets): Tarantool 1 master + 3, Redis
/// primary + 2.
inline constexpr int kTarantoolReplicas = 3;
inline constexpr int kRedisReplicas = 2;
/// The value of every write: 128 random characters (the published schema's `value`).
inline constexpr int kReplicationValueSize = 128;
/// The knee's rule (stats/knee.h FindKnee): the step after which the next adds less
/// than 10% throughput while p99 rises (and no later step gains it back). 10%, not the
/// sweep command's 5%: these steps are short, on a machine the servers share.
inline constexpr double kReplicationKneeMinGain = 0.10;
/// A client above this share of one core is the bottleneck (docs/method.md rule 13).
inline constexpr double kClientBottleneckShare = 0.90;

/// --concurrency: increasing values 1..1024 ("1,4,16,64"). InvalidArgument naming it.
Result<std::vector<uint64_t>> ParseConcurrency(std::string_view text);
Status ValidateReplicationCost(const ReplicationCostOptions& options);
/// --sync-quorum: "majority", "all" or both, comma-separated, no repeats.
Result<std::vector<std::string>> ParseSyncQuorums(std::string_view text);

/// The majority of `members`: members / 2 + 1 (4 members: 3).
int MajorityQuorum(int members);
/// Whether a Tarantool version ("2.6.0", "2.10.4-0-g...") has synchronous replication
/// (`is_sync` spaces, 2.6 and later). False for text that is not a version.
bool SupportsSynchronousReplication(std::string_view version);
/// Whether a client at `core_share` of one core (CPU seconds / measured seconds) is the
/// bottleneck: more than kClientBottleneckShare.
bool ClientIsBottleneck(double core_share);

/// One step of a path's sweep, as the knee sees it.
struct KneePoint {
  uint64_t concurrency = 0;
  double ops_per_sec = 0;
  double p99_us = 0;
};
/// The knee of a path's steps (sorted by concurrency) by kReplicationKneeMinGain; an
/// index into points, or nullopt (fewer than 3 steps, or throughput kept rising).
std::optional<size_t> ReplicationKnee(const std::vector<KneePoint>& points);

/// About how long the whole procedure takes, in seconds, for the report and --help.
double ExpectedSeconds(const ReplicationCostOptions& options, int runs);

/// Runs the procedure ctx.runs times, each with fresh servers.
Result<ScenarioReport> RunReplicationCost(const ReplicationCostOptions& options, const ScenarioContext& ctx);

// Its row in scenario/registry.cc: its flags (flags.cc), its charts and JSON tables on
// the report page (charts.cc) and its rows of the choice map (choices.cc).
ScenarioPrepare SetupReplicationCost(CLI::App* app);
void ReplicationCostCharts(const ReportInput& in, ReportSection* section);
std::vector<MeasuredChoiceRow> ReplicationCostChoiceRows();

}  // namespace memstand
