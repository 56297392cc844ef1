// One server process memstand starts on free (or given) loopback ports, in a folder
// of its own, waits for until a kind-specific probe says it is ready, and stops.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "stand/proc_identity.h"
#include "stand/process.h"
#include "stand/server_driver.h"
#include "util/status.h"

namespace memstand {

struct ServerNodeOptions {
  /// The program (name in PATH or path). Empty: the driver's DefaultBinary().
  std::string binary;
  /// The node's folder, created if missing, never removed here (the owner does).
  /// REQUIRES: not empty.
  std::string dir;
  /// The log file's name inside dir (the server's stdout and stderr).
  std::string log_name = "server.log";
  /// Per port (PortCount() entries, or empty): a port to use, 0 to pick a free one.
  /// A given port that is busy is InvalidArgument (never retried elsewhere).
  std::vector<int> fixed_ports;
  /// Per-node arguments handed to the driver (NodeLaunch::role_args).
  std::vector<std::string> role_args;
  /// SpawnOptions::detach: the process may outlive memstand (`memstand up`).
  bool detach = false;
  /// SpawnOptions::hold_open: the topology's token file (owner_proof.h); empty: none.
  std::string hold_open;
  /// SpawnOptions::cpus: the CPUs the process may run on (every start and restart).
  /// Empty: inherit the starting thread's.
  CpuList cpus;
  /// How long to wait for readiness. 10 s covers a loaded CI machine.
  int ready_timeout_ms = 10000;
  /// Polled while waiting; true: give up with Failed("interrupted"). May be null.
  const std::atomic<bool>* cancel = nullptr;
  /// Called after each spawn, before the readiness wait, with the new process's
  /// identity (pid, start time, uid; cmdline empty: a server sets its title later) and
  /// its launch (ports, folder), so the owner can record the pid at once: a memstand
  /// killed during the wait then leaves a record `down` can use. An error stops the
  /// start (the process is stopped). May be empty.
  std::function<Status(const ProcessIdentity&, const NodeLaunch&)> on_spawn;
};

/// Not thread-safe: one owner.
class ServerNode {
 public:
  /// Finds the binary (NotFound "<binary> not found in PATH; install it with:
  /// apt-get install <package>"), starts it and returns once the driver's probe
  /// passes. If a picked port was taken meanwhile, retries on others (3 attempts).
  /// Errors on early exit or timeout carry the last lines of the log; a config the
  /// server rejected is InvalidArgument.
  static Result<std::unique_ptr<ServerNode>> Start(std::shared_ptr<const ServerDriver> driver,
                                                   ServerNodeOptions options);

  /// Calls Stop() unless Release()d.
  ~ServerNode();
  ServerNode(const ServerNode&) = delete;
  ServerNode& operator=(const ServerNode&) = delete;

  /// SIGTERM to its process group (SIGKILL after 5 s), reaped. Idempotent. Failed if
  /// the server had died before Stop (with its exit and log tail).
  Status Stop();
  /// Lets the process run on after this object is gone (detached nodes only).
  void Release();

  /// Faults, for experiments (docs/stand.md, Faults). A node killed here is stopped on
  /// purpose: Stop() then returns OK and Ended() "" (nothing suspect), until a Restart.
  /// Kill: SIGKILL to its process group, reaped. Pause / Resume: SIGSTOP / SIGCONT to the
  /// group (Stop and Release resume a paused node first).
  Status Kill();
  Status Pause();
  Status Resume();
  /// Starts the server again in the same folder on the same ports (its data files are
  /// where it left them) and waits for readiness as Start did. REQUIRES: the process has
  /// ended (Kill, or a crash). `on_spawn` replaces ServerNodeOptions::on_spawn for this
  /// start (the owner records the new pid). The new process dies with the thread that
  /// calls this (process.h): call it from a thread that lives as long as the node.
  /// InvalidArgument if a port was taken meanwhile (never moved elsewhere).
  Status Restart(std::function<Status(const ProcessIdentity&, const NodeLaunch&)> on_spawn = {});
  /// True after Kill, until a Restart succeeds.
  bool stopped_on_purpose() const { return stopped_on_purpose_; }
  bool paused() const { return process_ != nullptr && process_->paused(); }
  /// True while the process runs.
  bool Alive();
  /// "" while the process runs; else how it ended ("killed by signal 9 (SIGKILL)",
  /// "exited with code 1"). Reaps it.
  std::string Ended();

  const std::string& host() const { return launch_.host; }
  int port() const { return launch_.ports.empty() ? 0 : launch_.ports[0]; }
  const std::vector<int>& ports() const { return launch_.ports; }
  pid_t pid() const { return process_ != nullptr ? process_->pid() : -1; }
  const std::string& dir() const { return launch_.dir; }
  const std::string& log_path() const { return launch_.log_path; }
  /// What the server reported when ready (e.g. "7.0.15").
  const std::string& version() const { return version_; }
  /// The program's name as given (options.binary or the default).
  const std::string& binary() const { return options_.binary; }
  /// Command line and start time, read from /proc once the server was ready.
  const ProcessIdentity& identity() const { return identity_; }
  /// The last `lines` lines of the log, "" if unreadable.
  std::string LogTail(int lines) const;

 private:
  ServerNode() = default;
  Result<std::vector<int>> PickPorts() const;
  Status TryStart(bool* port_taken);
  // ServerNodeOptions::on_spawn for the process just spawned.
  Status ReportSpawn() const;
  Status WaitReady(bool* port_taken);
  Status StartupFailure(const std::string& what, Status (*make)(std::string)) const;

  std::shared_ptr<const ServerDriver> driver_;
  ServerNodeOptions options_;
  NodeLaunch launch_;
  std::string version_;
  ProcessIdentity identity_;
  std::unique_ptr<Process> process_;
  bool stopped_ = false;
  bool stopped_on_purpose_ = false;
};

/// The error for a server program that cannot be found: NotFound("<binary> not found
/// in PATH; install it with: apt-get install <package>"), or for a path "<binary> not
/// found or not executable; ...".
Status MissingBinary(const std::string& binary, const std::string& package);

/// The last `lines` lines of a text file (at most its last 64 KiB), "" if unreadable.
std::string FileTail(const std::string& path, int lines);

}  // namespace memstand
