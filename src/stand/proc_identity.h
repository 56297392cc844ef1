// Who a pid is: its command line, start time and uid from /proc, recorded when
// memstand starts a server and checked again before `memstand down` signals it, so
// that a pid reused by an unrelated process is never signalled. Anyone can read (and
// so copy) these: the proof that memstand started a process is in owner_proof.h.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"

namespace memstand {

struct ProcessIdentity {
  pid_t pid = 0;
  /// /proc/PID/cmdline split at its NULs, trailing empty strings dropped (servers
  /// that set a process title, like redis-server, show the title here).
  std::vector<std::string> cmdline;
  /// Field 22 of /proc/PID/stat: when the process started, in clock ticks after boot.
  uint64_t start_ticks = 0;
  /// The real uid (first field of Uid: in /proc/PID/status); -1 if unknown.
  int64_t uid = -1;
  /// The process group (field 5 of /proc/PID/stat); 0 if unknown.
  pid_t pgid = 0;
};

/// Reads the identity of a running process. NotFound if there is no such process or
/// it is a zombie (it has exited and only waits to be reaped).
Result<ProcessIdentity> ReadProcessIdentity(pid_t pid);

enum class Ownership {
  kOurs,      // same pid, same start time, same command line: the process we recorded
  kGone,      // no such process (or a zombie)
  kOther,     // the pid runs something else now (reused, or its title changed)
  kUnproven,  // the identity matches, but not the proof that memstand started it
              // (owner_proof.h: token, uid, pid > 1); never from CheckOwnership
};

/// Compares what runs under recorded.pid now with the record (start time and command
/// line only, the start time alone when the recorded command line is empty: a node
/// recorded at spawn; uid and the proof are CheckOwner's); *now gets the current identity
/// when there is one (for messages).
Ownership CheckOwnership(const ProcessIdentity& recorded, ProcessIdentity* now);

/// True if process `pid` holds a TCP socket listening on `port` (IPv4 or IPv6), found
/// through /proc/net/tcp{,6} and the process's fds. For servers that cannot name their
/// pid over the wire: it tells our process's answer from another one's on the port.
bool ListensOn(pid_t pid, int port);

/// True if one of process `pid`'s open fds refers to the file with this device and
/// inode (stat of /proc/PID/fd/N). Readable only for our own processes (or as root).
bool HoldsFile(pid_t pid, dev_t dev, ino_t ino);

/// The command line as one line, arguments separated by spaces (for messages).
std::string JoinCmdline(const std::vector<std::string>& cmdline);

}  // namespace memstand
