// Per-second statistics of a run. Workers record into their own interval stats and hand
// each finished second to the collector (once a second, not per request); the
// collector merges the same second of every worker and keeps only its summary, so
// memory does not grow with the run's length.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "load/run_stats.h"
#include "stats/encoded_histogram.h"

namespace memstand {

/// One worker's statistics for one second of the measured phase.
struct IntervalStats {
  int index = 0;  // seconds since the worker's measured start
  std::vector<CommandStats> commands;
};

/// The summary of one second, all workers merged.
struct SeriesPoint {
  int second = 0;
  uint64_t ops = 0;
  uint64_t errors = 0;
  /// The second's operations by outcome (CommandStats::failed, unknown): ok is the
  /// replies that were not errors, so an outage is a run of seconds with ok == 0.
  uint64_t ok = 0;
  uint64_t failed = 0;
  uint64_t unknown = 0;
  uint64_t bytes_out = 0;  // request and reply bytes of the second's replies
  uint64_t bytes_in = 0;
  int64_t p50_ns = 0;
  int64_t p90_ns = 0;
  int64_t p99_ns = 0;
  int64_t p999_ns = 0;
  int64_t max_ns = 0;
  /// False: the percentiles are unknown (a merge of inputs without per-second histograms).
  bool percentiles_known = true;
  /// Open loop: the second's send lag (a measured request's actual minus intended send
  /// time, of the requests sent in it) at p99 and at most, so that a run's lag can be
  /// placed in time; -1: not recorded (closed loop, a second with no send, a merge).
  int64_t send_lag_p99_ns = -1;
  int64_t send_lag_max_ns = -1;
  /// The second's latency histogram, per command (the all-commands series has none:
  /// it is the sum of the commands'), so that shards' seconds merge exactly.
  EncodedHistogram latency;
};

/// The summary of `latency`: its percentiles and max (not the encoding).
void SetPercentiles(const HdrHistogram& latency, SeriesPoint* p);

/// Receives each second once all workers handed it in, by command index (e.g. to write
/// an HdrHistogram interval log). Called from the collector's own thread, one second
/// at a time, or from Finish() once that thread has ended.
using IntervalSink = std::function<void(int second, const std::vector<CommandStats>& commands)>;

/// Thread-safe: workers Publish(), the engine reads after Finish().
///
/// A second's merge and summary (its percentiles, its histograms encoded, the sink: an
/// interval log written, a line printed) run on the collector's own thread, on
/// SCHED_IDLE: a worker's Publish only queues its second. Done on the worker that handed
/// in the last part, as before, they held its loop for 2 to 6 ms each second, and an
/// open loop's requests due meanwhile were sent that late (bench/README.md, "Open loop
/// precision"). SCHED_IDLE: on a core it shares with a load thread, a second handed in
/// does not preempt that thread, and the collector runs mostly while it sleeps; the
/// kernel may still give it a slice of a few ms while the load thread is runnable (seen
/// with EEVDF, bench/README.md), so a load thread pinned alone to its core (--cpus) is
/// best. On a machine with every core busy a second's line (--live, the progress line)
/// may come late. Finish() summarizes what is left on the caller's thread.
class IntervalCollector {
 public:
  IntervalCollector(int workers, size_t command_count, IntervalSink sink = {});
  ~IntervalCollector();
  IntervalCollector(const IntervalCollector&) = delete;
  IntervalCollector& operator=(const IntervalCollector&) = delete;

  /// Hands over one worker's second. Every worker publishes each index at most once.
  void Publish(IntervalStats&& stats);
  /// A summarized second's statistics given back, emptied (CommandStats::Reset) with
  /// their histograms' memory kept, for a worker's next second; empty when none is
  /// free yet. A worker that takes them each second allocates nothing in its loop
  /// after the first seconds, and the collector frees nothing.
  std::vector<CommandStats> Recycled();
  /// Ends the collector's thread (after the second it is summarizing, if any) and
  /// summarizes every second still queued, those still waiting for workers that ended
  /// early included, on the caller's thread. Call once the workers are done.
  void Finish();

  /// By command index; the last entry is all commands together. Sorted by second.
  /// Complete after Finish().
  const std::vector<std::vector<SeriesPoint>>& series() const { return series_; }

 private:
  struct Pending {
    int arrived = 0;
    std::vector<CommandStats> commands;
  };
  void Run();
  void Take(IntervalStats&& stats);
  void Summarize(int index, const std::vector<CommandStats>& commands);
  /// Empties `commands` and keeps it for Recycled().
  void GiveBack(std::vector<CommandStats>&& commands);

  const int workers_;
  const size_t command_count_;
  std::mutex mu_;  // guards queue_, finishing_ and spare_
  std::condition_variable wake_;
  std::deque<IntervalStats> queue_;
  bool finishing_ = false;
  std::vector<std::vector<CommandStats>> spare_;  // Recycled()'s, at most kMaxSpare
  static constexpr size_t kMaxSpare = 64;
  // The collector's thread alone, then Finish() after it ended.
  std::map<int, Pending> pending_;
  std::vector<std::vector<SeriesPoint>> series_;
  CommandStats total_;  // Summarize's all-commands sum, emptied for each second
  IntervalSink sink_;
  std::thread thread_;  // last: started once the rest is constructed
};

}  // namespace memstand
