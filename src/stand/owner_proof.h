// The proof that memstand started a process, checked before `memstand down` signals
// it and before `ps` calls it alive (docs/stand.md, "Run root and ownership").
//
// pid, start time and command line are readable by anyone in /proc, so a record that
// copies them proves nothing. The proof an attacker cannot copy: each topology has a
// random token, written to a 0600 token file in its 0700 run folder; every server
// memstand starts for it holds that file open (SpawnOptions::hold_open) for its whole
// life. Only the process's owner and root can list /proc/PID/fd, and only a process
// that could open the file can hold it. (A token in the environment would not do:
// redis-server and tarantool overwrite /proc/PID/environ with their process titles.)
#pragma once

#include <string>

#include "stand/proc_identity.h"
#include "util/status.h"

namespace memstand {

/// The token file's name inside a topology's run folder.
inline constexpr char kOwnerTokenFile[] = "owner.token";

/// 32 hex digits (128 bits) from getrandom(2).
Result<std::string> NewOwnerToken();

/// What a recorded process is now, with every check `down` needs.
struct OwnerCheck {
  Ownership verdict = Ownership::kGone;
  ProcessIdentity now;  // the current identity, when there is a process
  std::string why;      // kOther / kUnproven: what differs or failed, for messages
};

/// Checks, in order: recorded.pid > 1 (pid 0 and 1 are never ours: kUnproven); a
/// process runs under the pid (else kGone); its start time and command line are the
/// recorded ones (else kOther: the pid was reused); its real uid is the recorded uid,
/// and that is our uid unless we are root (a server that dropped privileges, e.g.
/// memcached --set user=nobody); the token file at token_path is private and holds
/// `token`; the process holds that file open. Any failure after kOther is kUnproven.
OwnerCheck CheckOwner(const ProcessIdentity& recorded, const std::string& token_path,
                      const std::string& token);

}  // namespace memstand
