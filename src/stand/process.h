// A child process memstand starts and owns: spawned with fork/exec into its own process
// group, killed with its parent, and always reaped. Used for local servers (redis-server).
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cpu_set.h"
#include "util/status.h"

namespace memstand {

struct SpawnOptions {
  /// argv[0] is the program: a path if it holds a '/', else searched in PATH.
  /// REQUIRES: not empty.
  std::vector<std::string> argv;
  /// Working directory of the child; empty: inherit ours.
  std::string work_dir;
  /// stdout and stderr go to this file (created, appended to); empty: /dev/null.
  /// stdin is always /dev/null.
  std::string log_path;
  /// false (the default): the child gets its own process group and PR_SET_PDEATHSIG =
  /// SIGKILL, so it cannot outlive memstand. true (`memstand up`): the child starts a
  /// new session (setsid: no terminal hangup reaches it) and has no death signal, so it
  /// keeps running after memstand exits; call Process::Release() to let it go.
  bool detach = false;
  /// A file the child keeps open read-only for its whole life (an inherited fd above
  /// 2, number unspecified): the topology's token file, memstand's proof that it
  /// started the process (owner_proof.h). Empty: none. Opened before the fork
  /// (O_NOFOLLOW), so its errors come back from Spawn.
  std::string hold_open = {};
  /// The CPUs the child may run on, set in the child before exec (sched_setaffinity,
  /// inherited by its threads and children). Empty: inherit the spawning thread's. A
  /// set the kernel refuses comes back from Spawn as IoError naming the CPUs.
  CpuList cpus = {};
};

/// Resolves a program name the way execvp would: a name holding a '/' is checked as a
/// path, any other is searched in $PATH. Returns the path of an executable regular
/// file, or NotFound("<name> not found in PATH").
Result<std::string> FindExecutable(const std::string& name);

/// One spawned child. Not thread-safe: one owner.
///
/// The child runs in its own process group (so a terminal's Ctrl-C reaches memstand
/// only, and Terminate reaches the child's own children too), has PR_SET_PDEATHSIG
/// = SIGKILL (it dies with the *thread* that spawned it, so spawn from a long-lived
/// thread; not with SpawnOptions::detach), default signal dispositions and mask, and
/// inherits no fds but 0, 1, 2 (and SpawnOptions::hold_open). Every signal this class
/// sends goes to a pid > 1 (checked at each kill call), so never to kill(-1) or kill(0).
class Process {
 public:
  /// Forks and execs. Returns once exec succeeded; an exec failure is reported here:
  /// NotFound if the program does not exist ("<prog> not found in PATH"), IoError
  /// otherwise. The log file is opened before the fork, so its errors come back too.
  static Result<std::unique_ptr<Process>> Spawn(const SpawnOptions& options);

  /// Calls Terminate(kDefaultTerminateMs) unless Release()d.
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  static constexpr int kDefaultTerminateMs = 5000;

  pid_t pid() const { return pid_; }

  /// True while the child runs. Reaps it (and SIGKILLs whatever is left of its
  /// process group) once it has exited.
  bool Alive();

  /// SIGTERM to the process group; if the child has not exited after timeout_ms,
  /// SIGKILL to the group. Always reaps the child before returning. Idempotent.
  /// Errors only if a system call fails unexpectedly.
  Status Terminate(int timeout_ms = kDefaultTerminateMs);

  /// Gives the child up: this object no longer signals, reaps or waits for it (it is
  /// reparented when memstand exits). For detached children that must outlive us.
  /// A paused child is resumed first: nothing is left stopped. Alive() is false and
  /// Terminate() a no-op afterwards.
  void Release();
  bool released() const { return released_; }

  /// Faults, for experiments (docs/stand.md, Faults). Kill: SIGKILL to the process group,
  /// reaped before returning; OK if it had already ended. Pause: SIGSTOP to the group
  /// (the server keeps its sockets; clients see no reply); Resume: SIGCONT. A paused child
  /// is resumed by Terminate and Release, so none is ever left stopped. Failed when the
  /// child has ended (Pause, Resume) or was released.
  Status Kill();
  Status Pause();
  Status Resume();
  bool paused() const { return paused_; }

  /// The raw waitpid() status once reaped; nullopt while running.
  std::optional<int> wait_status() const { return wait_status_; }
  /// "running", "exited with code N" or "killed by signal N (NAME)".
  std::string DescribeExit() const;

 private:
  explicit Process(pid_t pid) : pid_(pid) {}
  // Reaps if the child has exited (block: wait for it). Returns true once reaped.
  bool Reap(bool block);
  Status SignalGroup(int sig, const char* what);

  pid_t pid_;
  std::optional<int> wait_status_;
  bool released_ = false;
  bool paused_ = false;
};

}  // namespace memstand
