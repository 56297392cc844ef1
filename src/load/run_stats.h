// Counters and latency histograms of a run: one set per worker thread, merged at the
// end (nothing shared on the hot path).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/cpu_set.h"
#include "stats/block_sample.h"
#include "stats/hdr_histogram.h"
#include "stats/reservoir.h"

namespace memstand {

struct ErrorKind {
  uint64_t count = 0;
  std::string example;  // the first full error text seen
  /// Which measured reply of its command (1-based, in reply order within one thread)
  /// brought that first error. With one connection replies come in request order, so
  /// it is the request's ordinal; merged over threads it is the first thread's.
  uint64_t first_reply = 0;
};

/// alignas(128) makes it 512 bytes (416 without), so that the worker's hot path finds a
/// command's statistics (interval_[cmd], per request sent and per reply) with a shift:
/// at 416 bytes g++ -O3 multiplies by four shifts and adds (at 392, before the outcome
/// counts, by one imul). Measured: 6 instructions per request less at RESP pipeline 1
/// (bench/count_instructions.sh, issue #28); the padding costs 96 bytes per command.
struct alignas(128) CommandStats {
  uint64_t ops = 0;           // replies received for measured requests
  uint64_t errors = 0;        // error replies among them
  uint64_t hits = 0;          // counts_hits commands: non-null replies
  uint64_t misses = 0;        // counts_hits commands: null replies
  uint64_t bytes_out = 0;     // request bytes
  uint64_t bytes_in = 0;      // reply bytes
  uint64_t zero_latency = 0;  // replies timed at 0 ns (clock check, docs/method.md rule 2)
  /// What happened to each measured operation (docs/faults.md): ok is ops - errors;
  /// failed and unknown count error replies (as their session reads them) and the
  /// operations that got no reply at all (`lost`: in flight on a lost connection, or
  /// due while their connection was down and never sent).
  uint64_t failed = 0;
  uint64_t unknown = 0;
  uint64_t lost = 0;
  /// Closed loop: from the actual send. Open loop: from the intended send time, so a
  /// stalled server's queueing counts (corrected for coordinated omission).
  HdrHistogram latency_ns;
  /// Open loop only: from the actual send (service time) and the send's lag behind its
  /// intended time. Empty in the closed loop, where both equal latency_ns and 0.
  HdrHistogram service_ns;
  HdrHistogram send_lag_ns;
  std::map<std::string, ErrorKind> errors_by_prefix;  // "OOM", "MOVED", "ERR", ...

  void Add(const CommandStats& other);
  /// Back to empty, keeping the histogram's memory.
  void Reset();
};

/// A span in which one command had no ok operation: from the completion of the first
/// that ended fail or unknown after an ok (or the start) to the next ok's completion.
/// Monotonic nanoseconds; end_ns 0: not over when the measured phase ended.
struct OutageSpan {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint64_t failed = 0;   // operations of the command that ended fail in the span
  uint64_t unknown = 0;  // and unknown
};

/// --reconnect: what the connections went through, and what the cross-check needs to
/// stay exact across a loss.
struct FaultStats {
  uint64_t connections_lost = 0;    // connections that were up and were lost
  uint64_t reconnects = 0;          // connections opened and set up again
  uint64_t reconnect_failures = 0;  // attempts that failed (refused, timed out in set-up)
  std::string first_loss;           // why the first connection was lost
  /// Requests in flight when their connection was lost, warm-up included, by command:
  /// each may or may not have been executed (the cross-check's margin).
  std::vector<uint64_t> lost_in_flight;
  /// sent_by_command and setup_commands as they stood at this thread's last loss:
  /// what it sent since then went to the server as it is at the end (a restarted
  /// server's counters start from zero).
  std::vector<uint64_t> sent_at_last_loss;
  std::map<std::string, uint64_t> setup_at_last_loss;
  /// By command index; merged over threads by ThreadStats::Add (concatenated).
  std::vector<std::vector<OutageSpan>> outages;

  void Add(const FaultStats& o);
};

struct ThreadStats {
  std::vector<CommandStats> commands;  // by command index
  uint64_t sent_total = 0;             // every data request written, warm-up included
  uint64_t measured_sent = 0;          // measured requests written (redirects not again)
  std::vector<uint64_t> sent_by_command;  // idem, by command index
  std::map<std::string, uint64_t> setup_commands;  // per-connection HELLO/AUTH/SELECT
  uint64_t socket_bytes_read = 0;      // application bytes read from sockets
  uint64_t socket_bytes_written = 0;   // and written
  /// System calls of the measured loop: read/write/epoll_wait. With --io uring:
  /// receive completions and sends (no system call of their own), and every
  /// io_uring_enter of the thread's ring (set-up and cancels included).
  uint64_t read_calls = 0;
  uint64_t write_calls = 0;
  uint64_t wait_calls = 0;
  /// --io uring: multishot receives re-armed because every receive buffer was taken.
  uint64_t receive_buffer_waits = 0;
  double cpu_user_s = 0;               // this thread's CPU in the measured phase
  double cpu_sys_s = 0;
  /// Open loop with --spin: the part of the measured phase the thread spent polling
  /// before a send time with nothing else to do (CPU it burnt on purpose, in the CPU
  /// above), and the polls that made it.
  double spin_s = 0;
  uint64_t spin_polls = 0;
  /// --realtime: the SCHED_FIFO priority the thread ran at, read back from the kernel
  /// once set (0: the default scheduler).
  int realtime_priority = 0;
  /// The CPUs the thread could run on, read back from the kernel (sched_getaffinity)
  /// once it had pinned itself (--cpus) or not; in the totals, the union over threads.
  CpuList cpus;
  uint64_t protocol_errors = 0;
  uint64_t connection_errors = 0;
  /// Open loop, duration mode: requests intended before the end but not sent by then
  /// (the schedule fell behind). Estimated from the pacer's position and rate: exact
  /// for constant arrivals, the expected count for Poisson ones.
  uint64_t unsent_intended = 0;
  /// Open loop: measured requests sent before their intended time (the histogram of
  /// the send lag keeps a negative lag as 0). Never, by the schedules' rules: a test's.
  uint64_t sent_early = 0;
  /// --cluster: redirections followed (each request at most a few times) and TRYAGAIN
  /// replies retried.
  uint64_t cluster_moved = 0;
  uint64_t cluster_ask = 0;
  uint64_t cluster_tryagain = 0;
  /// --cluster: slot maps the engine read again (a lost master, CLUSTERDOWN, a MOVED
  /// storm) that this thread adopted.
  uint64_t cluster_map_updates = 0;
  /// --cluster: connections opened after the common start (to masters a redirect named).
  uint64_t cluster_connections_opened = 0;
  /// Protocols other than RESP, over every reply (warm-up included), for the
  /// cross-check: memcache get/gets replies with and without a value, and etcd
  /// replies that raised the store revision (a put, a delete that deleted).
  uint64_t get_hits_all = 0;
  uint64_t get_misses_all = 0;
  uint64_t writes_applied = 0;
  /// Other protocols: error replies by command index over every reply (memcached
  /// counts an incr/decr that fails with CLIENT_ERROR in neither incr_hits nor misses).
  std::vector<uint64_t> error_replies_all;
  /// --samples only (LoadOptions::samples_cap > 0): the raw samples of this thread's
  /// measured replies, created by the worker on its first one. Not merged by Add();
  /// copies share it (no copy of a million samples).
  std::shared_ptr<SampleReservoir> samples;
  FaultStats faults;
  /// The validity checks' raw material (report/validity.h): runs of consecutive
  /// measured latencies in reply order, and (open loop, per-connection schedule) of the
  /// gaps between a client's measured sends. Not merged by Add(): a pair must not
  /// straddle two threads, so the checks read each thread's (RunResult::threads).
  BlockSample latency_runs;
  BlockSample send_gaps;

  explicit ThreadStats(size_t command_count = 0)
      : commands(command_count), sent_by_command(command_count), error_replies_all(command_count) {}
  void Add(const ThreadStats& other);
};

}  // namespace memstand
