// The temporary folders of the servers `memstand run` starts itself (LocalRedis,
// LocalServer) and of compute-locality's PostgreSQL (PgCluster):
// $TMPDIR/memstand-<kind>-XXXXXX, marked with the memstand process that made it, so
// that a later start can remove the folders of a run that was killed (SIGKILL leaves
// no chance to clean up) without touching anyone else's.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "util/status.h"

namespace memstand {

/// The marker inside such a folder (0600): "pid N\nstart_ticks T\n" of the memstand
/// process that made it.
inline constexpr char kTempOwnerFile[] = "memstand.owner";

/// Removes the leftovers under $TMPDIR (or /tmp) (RemoveLeftoverTempFolders; one line
/// to stderr for each), then makes $TMPDIR/memstand-<kind>-XXXXXX (mkdtemp: 0700) and
/// marks it with this process. Returns its absolute path.
Result<std::string> MakeTempFolder(const std::string& kind);

/// Removes a folder made by MakeTempFolder, with what it holds, when it goes out of scope
/// (a scenario's working files, on every way out of it but SIGKILL, whose leftovers the
/// next start removes).
class RemovedOnExit {
 public:
  explicit RemovedOnExit(std::string path) : path_(std::move(path)) {}
  ~RemovedOnExit();
  RemovedOnExit(const RemovedOnExit&) = delete;
  RemovedOnExit& operator=(const RemovedOnExit&) = delete;

 private:
  std::string path_;
};

/// Removes every folder directly under root named memstand-<kind>-XXXXXX (kind: redis,
/// memcached, tarantool, etcd, pg, failover or recovery; XXXXXX: mkdtemp's 6 characters) that is ours (our
/// uid, not a symlink) and whose marker is ours and names a memstand process that is
/// gone (no such pid, or a pid that started at another time). A folder without a
/// marker, of another user, or whose memstand still runs is kept. Returns one line
/// per folder removed: "memstand: removed leftover folder X of a killed run (pid N)".
std::vector<std::string> RemoveLeftoverTempFolders(const std::string& root);

}  // namespace memstand
