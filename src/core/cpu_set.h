// CPU lists as Linux writes them ("0", "0-3", "0,2-3": /proc/PID/status
// Cpus_allowed_list, taskset -c), and the kernel's affinity behind them: pin the calling
// thread, read back where a thread or a process may run (docs/method.md, client and
// servers on their own CPUs).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace memstand {

/// CPU numbers, ascending, each once.
using CpuList = std::vector<int>;

/// The largest CPU number a list may name (the kernel's cpu_set_t holds 0..1023).
inline constexpr int kMaxCpu = 1023;

/// "0", "0-3", "0,2-3": numbers and ranges LOW-HIGH (LOW <= HIGH) separated by commas,
/// no spaces, no CPU twice, none above kMaxCpu. Returns them ascending. InvalidArgument
/// quoting the text and saying what is accepted.
Result<CpuList> ParseCpuList(std::string_view text);

/// The list as ParseCpuList reads it, runs as ranges: {0,2,3} -> "0,2-3"; {} -> "".
std::string CpuListText(const CpuList& cpus);

/// The CPUs online on this machine (/sys/devices/system/cpu/online; else 0..N-1 from
/// sysconf). IoError if neither says.
Result<CpuList> OnlineCpus();

/// ParseCpuList, then every CPU online here. An error names `flag` and, for a CPU that
/// is not online, the ones that are: "--cpus 5: CPU 5 is not online on this machine
/// (online: 0-1)".
Result<CpuList> ParseOnlineCpuList(std::string_view text, std::string_view flag);

/// Pins the calling thread (no other) to `cpus` (sched_setaffinity). REQUIRES: not
/// empty. IoError naming the CPUs and errno (EINVAL: none of them is allowed here, e.g.
/// by a cgroup's cpuset).
Status PinThisThread(const CpuList& cpus);

/// The CPUs the calling thread may run on, read back from the kernel.
Result<CpuList> ThisThreadCpus();

/// The CPUs process `pid` (its main thread) may run on: Cpus_allowed_list of
/// /proc/PID/status. NotFound when the process is gone.
Result<CpuList> ProcessCpus(pid_t pid);

/// The CPUs of `a` and `b` together, ascending.
CpuList CpuUnion(const CpuList& a, const CpuList& b);

/// The CPUs of `a` that are not in `b`, ascending.
CpuList CpuDifference(const CpuList& a, const CpuList& b);

/// Confines the calling thread to `cpus` for its lifetime and gives it back the CPUs it
/// had before; threads it starts meanwhile inherit `cpus`. A refusal by the kernel
/// leaves the thread as it was (ok() false). Not movable: it belongs to its thread.
class ScopedThreadCpus {
 public:
  explicit ScopedThreadCpus(const CpuList& cpus);
  ~ScopedThreadCpus();
  ScopedThreadCpus(const ScopedThreadCpus&) = delete;
  ScopedThreadCpus& operator=(const ScopedThreadCpus&) = delete;
  bool ok() const { return ok_; }

 private:
  CpuList before_;
  bool ok_ = false;
};

/// Confines the calling thread, for `apart`'s lifetime, to the CPUs it may run on
/// outside `reserved` (e.g. the load threads' --cpus). Returns those CPUs; empty, the
/// thread left as it is, when `reserved` is empty, leaves none, or the kernel refused.
CpuList ConfineOutside(const CpuList& reserved, std::optional<ScopedThreadCpus>* apart);

}  // namespace memstand
