// CPU, memory and disk I/O of a process, read from /proc (Linux): the "server CPU"
// next to "client CPU" that docs/method.md rule 13 asks every report to show.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "util/status.h"

namespace memstand {

/// Cumulative counters of one process since it started. Take two samples and subtract.
struct ProcSample {
  double user_sec = 0;  // CPU time in user mode (clock-tick resolution, usually 10 ms)
  double sys_sec = 0;   // CPU time in kernel mode (same resolution)
  /// Resident set size now (not cumulative). Kernels >= 6.2 keep it in per-CPU
  /// counters that /proc/PID/stat reads unsummed: off by up to ~64 pages per CPU.
  int64_t rss_bytes = 0;
  /// Bytes the process caused to be fetched from / sent to storage (/proc/PID/io
  /// read_bytes / write_bytes); -1 if unreadable (permissions, no I/O accounting).
  int64_t read_bytes = -1;
  int64_t write_bytes = -1;
};

/// Samples process pid; pid 0 means this process. NotFound if there is no such
/// process, IoError / Protocol if /proc cannot be read or parsed. Thread-safe.
Result<ProcSample> ReadProcSample(pid_t pid);

/// CPU time of this process (all threads) from getrusage: microsecond resolution,
/// finer than ReadProcSample(0). Thread-safe.
struct CpuTimes {
  double user_sec = 0;
  double sys_sec = 0;
};
CpuTimes SelfCpu();

}  // namespace memstand
