// `memstand run` without the CLI: connects a control client, snapshots the server's
// counters, runs the workers, drains, snapshots again and cross-checks the counts.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "load/availability.h"
#include "load/intervals.h"
#include "load/load_options.h"
#include "load/run_stats.h"
#include "util/status.h"

namespace memstand {

/// One command's count as memstand sent it and as the server executed it.
struct CrossCheckRow {
  std::string command;   // lower-case, as INFO commandstats names it
  int64_t memstand = 0;  // data + per-connection setup + control commands
  int64_t server = 0;    // delta of calls + rejected_calls
  /// --reconnect: requests in flight when their connection was lost, which the server
  /// may or may not have executed: the row holds when server is within
  /// [memstand - unknown, memstand].
  int64_t unknown = 0;
};

struct CrossCheck {
  bool available = false;
  std::string unavailable_reason;
  std::vector<CrossCheckRow> rows;
  bool mismatch = false;
  bool enforced = false;  // a mismatch fails the run (exclusive server)
  /// The server restarted during the run (RESP: its run_id changed): the rows compare
  /// what was sent since each thread's last lost connection with the new server's counts.
  bool server_restarted = false;
};

/// A pool member (several --target): its connections and its own counts.
struct PoolMemberResult {
  std::string url;           // RedisTarget::Display(): no password
  uint64_t connections = 0;  // load connections assigned to it by --balance
  /// The server's deltas of the cross-check's counters, on this member alone (the
  /// cross-check compares their sum over the pool; endpoints of one etcd cluster are
  /// one store, counted once). Empty when the cross-check is not available.
  std::map<std::string, int64_t> server_counts;
};

/// --fleet-check: the server's counters (RESP: INFO commandstats calls + rejected_calls;
/// other protocols: the cross-check's counters; summed over a pool) before this run
/// and GRACE seconds after its end.
struct FleetCounts {
  bool recorded = false;
  std::string reason;  // why not, when not recorded
  double grace_s = 0;
  double before_unix_s = 0, after_unix_s = 0;
  std::map<std::string, int64_t> before, after;
};

/// A Sentinel target (redis+sentinel://): where the primary was, and each change. An RW
/// pool (tarantool+rw://) fills the same: master_name empty, `sentinels` its members,
/// `queries` the times the members were asked which one is writable.
struct SentinelResult {
  std::string master_name;
  std::vector<std::string> sentinels;  // host:port, as the URL gives them
  std::string primary_at_start;        // host:port
  struct Change {
    double unix_s = 0;    // when the engine learned it
    std::string primary;  // the new primary's host:port
  };
  std::vector<Change> changes;
  /// The times the Sentinels were asked (the start's included; each asks them in turn
  /// until one answer holds), those with no answer that held, and the last one's reason.
  uint64_t queries = 0;
  uint64_t failed_queries = 0;
  std::string last_failure;
  /// What confirming the primary sent it mid-run (handshake, ROLE) when it stayed the
  /// same: its INFO counts them, so the cross-check adds them.
  std::map<std::string, int64_t> sent_to_primary;
};

struct RunResult {
  std::string started_at;           // wall clock, ISO 8601 UTC
  ThreadStats totals;               // all threads merged
  std::vector<ThreadStats> threads;  // per thread (CPU, system calls)
  /// --cpus, when the calling thread may run on CPUs outside it: those CPUs, where the
  /// run's other threads (the caller's, the per-second collector, the history's writer)
  /// were kept, so that none takes a load thread's CPU from it. Empty: not confined.
  CpuList other_threads_cpus;
  double measured_s = 0;            // measured phase: first start to last reply
  double send_span_s = 0;           // measured phase: first start to last measured send
  uint64_t unanswered = 0;          // requests that never got a reply
  Status failure;                   // first failure (connection, protocol, setup)
  bool interrupted = false;         // stopped by SIGINT/SIGTERM
  std::string server_version;
  /// TLS: the protocol and cipher the control connection agreed, e.g. "TLSv1.3
  /// TLS_AES_256_GCM_SHA384" (the load connections use the same context). Empty: plaintext.
  std::string tls_session;
  std::map<std::string, std::string> server_info;  // INFO before the run
  bool server_cpu_known = false;    // from INFO cpu (used_cpu_user/sys) deltas
  double server_cpu_user_s = 0;
  double server_cpu_sys_s = 0;
  double process_cpu_user_s = 0;    // the whole memstand process, set-up included
  double process_cpu_sys_s = 0;
  CrossCheck cross_check;             // --cluster: summed over the masters
  std::vector<std::string> cluster_masters;  // --cluster: host:port from CLUSTER SLOTS
  int cluster_replicas = 0;                   // --read-from-replicas: replicas read from
  /// --cluster: slot maps read again during the run (a lost master, CLUSTERDOWN, a
  /// MOVED storm), of them those a MOVED storm asked for (maybe among other reasons),
  /// and the last failure to read one.
  uint64_t cluster_map_reads = 0;
  uint64_t cluster_map_reads_moved = 0;
  std::string cluster_refresh_failure;
  SentinelResult sentinel;  // a Sentinel target or an RW pool (target.follows_primary())
  /// Several --target: one entry per member, in LoadOptions::pool order; the
  /// cross-check and the server CPU are summed over them. Empty without a pool.
  std::vector<PoolMemberResult> pool;
  /// Per-second summaries by command index; the last entry is all commands.
  std::vector<std::vector<SeriesPoint>> series;
  double measured_start_unix_s = 0;  // wall clock at the measured start (epoch seconds)
  /// --start-at (LoadOptions::start_at_unix_s > 0): the whole second the measured
  /// phase was planned for (start_at, or a later second when this run was late), and
  /// the warm-up actually run before it. The series' second i covers
  /// [series_start_unix_s + i, + 1) to within the threads' wake-up (measured_start_unix_s).
  double series_start_unix_s = 0;
  double start_warmup_s = 0;
  FleetCounts fleet;  // --fleet-check (LoadOptions::fleet_check_grace_s >= 0)
  /// --samples (LoadOptions::samples_cap > 0): a uniform sample, sorted by time, of the
  /// samples_seen measured replies of all threads; all of them when they fit the cap.
  std::vector<Sample> samples;
  uint64_t samples_seen = 0;
  /// Outages and lost connections (load/availability.h); empty when none.
  Availability availability;
  /// --history: the records written to LoadOptions::history_path (once the file is in
  /// place; a failure to write it is `failure`).
  uint64_t history_records = 0;

  uint64_t measured_ops() const;
  /// Every command's statistics merged (the report's "Total" row).
  CommandStats AllCommands() const;
  double client_cpu_s() const;      // worker threads, measured phase
};

/// Commands that memstand's own other clients (a scenario's watcher) sent to the servers
/// around a run, by INFO commandstats name: any number up to `sent` of each may be in the
/// server's counts (some went before or after the run's window). Each such row then
/// holds when the server counted between memstand's count (less the requests lost in
/// flight) and memstand's count plus those sent; the verdict is redone over every row.
void AllowOwnCommands(const std::map<std::string, int64_t>& sent, CrossCheck* cc);

/// Runs the load. Returns a Status only when nothing could be measured (target
/// unreachable, handshake refused); failures during the load are in RunResult::failure.
/// `interrupt` (may be null) is polled: once true, workers stop sending and drain.
/// `sink` (may be empty) receives every second's statistics as it completes.
Result<RunResult> RunLoad(const LoadOptions& options, const std::atomic<bool>* interrupt,
                          IntervalSink sink = {});

}  // namespace memstand
