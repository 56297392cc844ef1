// durability-overload's parts below the procedure: the cluster of one durability mode
// (a stand topology the scenario owns, with a control connection per master), and one
// cell: load through the engine for a fixed time while every node's /proc figures and
// the cluster's state are sampled, then the figures the report prints.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "client/redis_client.h"
#include "load/target.h"
#include "scenario/scenario.h"
#include "stand/cluster_watch.h"
#include "stand/resource_sampler.h"
#include "stand/topology.h"
#include "util/status.h"

namespace memstand {

/// A Redis Cluster of one durability mode, stood up fresh; stopped by Stop() or the
/// destructor (and with memstand itself: PR_SET_PDEATHSIG). Not thread-safe.
class DurabilityCluster {
 public:
  /// `replicas` per master; `settings`: redis directives (appendonly, appendfsync,
  /// cluster-node-timeout), on every node.
  static Result<std::unique_ptr<DurabilityCluster>> Start(int masters, int replicas,
                                                          std::vector<std::pair<std::string, std::string>> settings,
                                                          const std::atomic<bool>* cancel);
  ~DurabilityCluster();
  /// Stops every node and removes the run folder. Failed if a node had died.
  Status Stop();

  const Topology& topology() const { return *topology_; }
  RedisTarget seed() const;
  std::vector<WatchedNode> nodes() const;
  std::vector<WatchedProcess> processes() const;
  /// The first node that no longer runs as ours ("master-2 (pid N)"), "" if all run.
  std::string Gone() const;
  /// INFO persistence summed over the masters that answer: aof_delayed_fsync,
  /// aof_rewrites, ...; *unanswered counts those that did not.
  std::map<std::string, int64_t> AofCounters(int* unanswered);
  /// Waits (polling INFO persistence every 10 ms, at most timeout_ms) until no master
  /// holds AOF data not yet written (aof_buffer_length 0): with appendfsync everysec
  /// Redis postpones the write() while a background fsync runs (up to 2 s), so a cell's
  /// last SETs may be answered before they reach the file. The ms waited, or -1 when
  /// some master still held data (or did not answer) at the timeout.
  int WaitAofWritten(int timeout_ms);
  /// CONFIG GET of each name on master-1, "name value" lines as the server has them.
  std::vector<std::string> ConfigLines(const std::vector<std::string>& names);
  /// The slots master-1 owns (for the legacy block's expected share).
  int SlotsOfFirstMaster() const;

 private:
  DurabilityCluster() = default;
  RedisClient* Control(size_t i);

  std::unique_ptr<Topology> topology_;
  std::vector<std::unique_ptr<RedisClient>> controls_;  // per node; null: reconnect
};

/// What one cell does.
struct CellPlan {
  std::string mode;     // "none", "aof-everysec"
  std::string op;       // "SET" or "GET"
  uint64_t size = 0;    // value bytes
  std::string payload;  // "random", "compressible" or "pattern" (GET: that of the data read)
  int run = 1;
  double duration_s = 2;
  uint64_t keys = 1;    // key range 1..keys, uniform
  bool cluster = true;  // false: the legacy client (everything to the seed)
  int clients = 4, pipeline = 1, threads = 1;
  double compress_ratio = 8;
  uint64_t seed = 1;
  bool aof = false;     // the invariant applies
};

/// What one cell measured.
struct CellResult {
  CellPlan plan;
  bool ran = false;
  bool interrupted = false;  // SIGINT during the cell: its figures are partial
  std::string not_run;  // why the cell could not start
  double seconds = 0;   // measured phase
  uint64_t ops = 0, ok_replies = 0, error_replies = 0, unanswered = 0;
  uint64_t hits = 0, misses = 0;
  double ops_per_s = 0;
  int64_t p50_ns = 0, p95_ns = 0, p99_ns = 0, max_ns = 0;
  /// Error replies by their first word (CLUSTERDOWN, MOVED, TRYAGAIN, ...), then
  /// "timeout" and "connection" for failed connections.
  std::map<std::string, uint64_t> errors;
  std::string first_error;  // a reply's text, or the failure's
  uint64_t moved_followed = 0, tryagain_retried = 0;  // cluster mode: redirections
  double client_cpu_s = 0;  // the memstand process (getrusage) over the cell
  double server_cpu_s = 0;  // every node's user + sys (/proc/PID/stat)
  int64_t rss_mean = 0, rss_max = 0;  // over the nodes' samples
  int64_t write_bytes = -1;  // storage bytes written, summed over nodes; -1 unknown
  std::map<std::string, int64_t> aof;  // INFO persistence deltas over the cell
  /// AOF cells: ms waited after the load until every master had written its AOF buffer
  /// (the storage bytes are read after it); -1 not settled within the bound; 0 others.
  int aof_settle_ms = 0;
  ClusterWatchResult cluster;
  std::optional<Invariant> invariant;  // AOF SET cells
  std::optional<Validity> validity;    // the cell's statistics judged (ran cells)
  /// Error replies, failed connections or unanswered requests; also a cell whose
  /// engine could not start (errors holds why). A cell skipped because its cluster
  /// had lost a node is not run, not errored.
  bool has_errors() const { return error_replies > 0 || unanswered > 0 || !errors.empty(); }
  bool skipped() const { return !ran && errors.empty(); }
  double bytes_per_s() const { return seconds > 0 && write_bytes >= 0 ? write_bytes / seconds : 0; }
};

/// Runs one cell against `cluster`. Never fails: what went wrong is in the result.
CellResult RunCell(const CellPlan& plan, DurabilityCluster& cluster, const std::atomic<bool>* interrupt);

/// The engine's failure classified: "timeout" for Status::Code::kTimeout, else
/// "connection". Pure.
const char* FailureKind(const Status& failure);

}  // namespace memstand
