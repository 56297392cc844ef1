// Resource use of processes on a run's timeline (issue #4 item 3, docs/method.md rules 13
// and 18): every period, each watched process's CPU user/sys, RSS and storage bytes
// read/written, from /proc. A background thread samples; nothing touches the load
// threads.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "stand/proc_stats.h"

namespace memstand {

struct WatchedProcess {
  std::string label;  // e.g. "redis-server:6379" or "memstand"
  pid_t pid = 0;      // 0: this process
};

/// One interval of one process. CPU and I/O are what the interval added; RSS is the
/// value at its end.
struct ResourcePoint {
  double t_s = 0;          // end of the interval, seconds since the sampler started
  double cpu_user_s = 0;   // clock-tick resolution (10 ms) for other processes
  double cpu_sys_s = 0;
  int64_t rss_bytes = 0;
  int64_t read_bytes = -1;   // -1: /proc/PID/io unreadable
  int64_t write_bytes = -1;
};

struct ResourceSeries {
  WatchedProcess process;
  std::vector<ResourcePoint> points;
  std::string ended;  // empty while sampled to the end; else why sampling stopped ("exited")
};

/// Intervals shorter than this do not count for cpu_share_max (clock ticks are 10 ms).
inline constexpr double kMinShareIntervalS = 0.2;

/// Mean and max over a series (CPU as a share of one core per interval).
struct ResourceSummary {
  double seconds = 0;  // time covered
  double cpu_share_mean = 0, cpu_share_max = 0;
  double cpu_s = 0;    // user + sys in total
  int64_t rss_mean = 0, rss_max = 0;
  int64_t read_bytes = -1, write_bytes = -1;  // totals; -1 unknown
};
ResourceSummary Summarize(const ResourceSeries& series);

/// Thread-safe; Stop() from the owner's thread.
class ResourceSampler {
 public:
  /// Takes a first sample of every process now, then one every period_ms.
  /// A process that cannot be read at the start is an error (NotFound if gone).
  static Result<std::unique_ptr<ResourceSampler>> Start(std::vector<WatchedProcess> processes,
                                                        int period_ms = 1000);
  ~ResourceSampler();
  ResourceSampler(const ResourceSampler&) = delete;
  ResourceSampler& operator=(const ResourceSampler&) = delete;

  /// Takes a last (partial) interval, stops the thread and returns the series, in the
  /// order the processes were given. Idempotent: later calls return the same.
  std::vector<ResourceSeries> Stop();

 private:
  ResourceSampler(std::vector<WatchedProcess> processes, int period_ms);
  void Loop();
  void SampleAll();  // REQUIRES: mu_ held

  const int period_ms_;
  const int64_t start_ns_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::vector<ResourceSeries> series_;
  std::vector<ProcSample> last_;
  std::thread thread_;
};

}  // namespace memstand
