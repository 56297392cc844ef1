// Where the stand keeps its run folders, and the checks that keep other users out of
// them (docs/stand.md, "Run root and ownership"): the run root is private to the user
// (0700, owned by them, not a symlink), and every file `down` trusts (state files,
// token files) is 0600 and theirs. A path that fails a check is refused with
// Status::Failed, never repaired or followed.
#pragma once

#include <string>

#include "util/status.h"

namespace memstand {

/// $MEMSTAND_RUN_DIR if set and not empty; else $XDG_RUNTIME_DIR/memstand when
/// XDG_RUNTIME_DIR is an absolute path to a private folder of ours (CheckPrivateDir);
/// else /tmp/memstand-<uid>.
std::string DefaultRunRoot();

/// OK if path is a folder (not a symlink) owned by our effective uid with no group or
/// other permission bits. Failed ("<what> <path>: refused: ...") otherwise; NotFound if
/// it does not exist.
Status CheckPrivateDir(const std::string& path, const std::string& what);

/// Creates path as a 0700 folder if it does not exist (its parents with the default
/// mode), then CheckPrivateDir: an existing folder with another owner, a looser mode
/// or a symlink is refused, not changed.
Status EnsurePrivateDir(const std::string& path, const std::string& what);

/// OK if the open file fd (named path in messages) is a regular file owned by our
/// effective uid with no group or other permission bits (0600 or stricter).
Status CheckPrivateFile(int fd, const std::string& path, const std::string& what);

/// Reads a whole private file (opened O_NOFOLLOW, then CheckPrivateFile). IoError if
/// it cannot be opened or read, Failed if refused.
Result<std::string> ReadPrivateFile(const std::string& path, const std::string& what);

/// Writes text to path atomically and privately: a new 0600 temp file beside it
/// (O_EXCL, O_NOFOLLOW) renamed over path.
Status WritePrivateFile(const std::string& path, const std::string& text);

}  // namespace memstand
