// What one run of replication-cost measured, between the procedure
// (replication_cost.cc) and its report (report.cc). Internal.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenario/replication_cost/replication_cost.h"

namespace memstand {

/// One command of a cell (the Redis WAIT paths have two: SET and WAIT).
struct ReplicationCommand {
  std::string label;  // "REPLACE", "SELECT", "SET", "WAIT"
  uint64_t ops = 0, errors = 0;
  double p50_us = 0, p99_us = 0, mean_us = 0;
};

/// A server's CPU over a cell: (utime + stime delta) / the cell's wall time.
struct ReplicationNodeCpu {
  std::string node;  // "master", "replica-1", "primary"
  int pid = 0;
  double core_share = 0;
};

/// One (path, concurrency) of one run.
struct ReplicationCell {
  int run = 1;
  std::string system;  // "tarantool", "redis"
  std::string path;    // "async-write", "sync-write", "read-master", "read-replicas", "set", "set+wait1", ...
  uint64_t concurrency = 0;
  bool write = false;
  std::string failure;  // non-empty: the cell did not measure (or lost its connection)
  double measured_s = 0;
  /// The path's successful operations (replies without an error): writes (on the WAIT
  /// paths, WAIT replies: acknowledged writes), or reads. ops_per_sec = ops / measured_s.
  uint64_t ops = 0;
  uint64_t errors = 0;  // error replies of every command
  uint64_t unanswered = 0;  // requests without a reply by the end of the cell's drain (2 s)
  /// No reply came after the warm-up (the engine measured nothing: every connection
  /// was still waiting for a request sent before), or requests were left unanswered.
  bool stalled = false;
  /// sync-write with unanswered requests: the wait for them to leave the master's queue
  /// (replication_synchro_timeout + 0.5 s) before counting.
  int64_t queue_wait_ms = 0;
  std::string first_error;
  /// Error replies by kind (the engine's prefix or code), with the first text of each.
  std::vector<std::pair<std::string, std::pair<uint64_t, std::string>>> error_kinds;
  double ops_per_sec = 0;
  /// The path's latency: its one command's; on the WAIT paths SET's + WAIT's (the sum
  /// of the two percentiles; the mean is exact, a sum of means).
  double p50_us = 0, p99_us = 0, mean_us = 0;
  uint64_t hits = 0, misses = 0;  // reads
  std::vector<ReplicationCommand> commands;
  double client_core_share = 0;  // the load thread's CPU / measured seconds
  bool client_bottleneck = false;
  std::vector<ReplicationNodeCpu> servers;
  // Write cells: every replica's count once it reached the master's (or the wait ran out).
  bool counted = false;
  int64_t master_count = 0;
  std::vector<std::pair<std::string, int64_t>> replica_counts;
  int64_t settle_ms = 0;
  bool settled = false;
  std::optional<Validity> validity;  // the cell's statistics judged (measured cells)
  bool ok() const { return failure.empty() && (!counted || settled); }
};

/// One system in one run.
struct ReplicationSystemRun {
  int run = 1;
  std::string system;
  std::string not_run;     // not installed: nothing ran
  std::string failure;     // set-up or a server lost
  std::string version;
  std::string description;  // nodes, addresses, settings (block [1])
  std::vector<std::string> notes;  // e.g. the quorum read back, a path left out
  std::vector<ReplicationCell> cells;
  /// Evidence files by relative path: servers/<system>-<node>.conf (first run),
  /// logs/<system>-<node>-run<N>.log (the last 40 lines at the end of the run).
  std::map<std::string, std::string> files;
};

/// Fills the report's blocks, tables and JSON from the runs (report.cc).
void FillReplicationReport(const ReplicationCostOptions& options, const std::vector<ReplicationSystemRun>& runs,
                           bool interrupted, ScenarioReport* report);

}  // namespace memstand
