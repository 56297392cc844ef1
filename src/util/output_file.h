// An output file of a run (--json, --samples, --hdr-log, --hgrm) that appears whole or
// not at all: written into an unnamed temporary file in the target's folder
// (O_TMPFILE; a named ".NAME.memstand-XXXXXX" where the filesystem lacks it) and
// renamed into place by Commit(). A run killed before Commit() leaves the path as it
// was: absent, or the previous complete file. Existing non-regular files (a device
// such as /dev/null or /dev/full, a FIFO, /dev/stdout and other descriptor aliases)
// are written directly: a device node is never replaced. Not thread-safe: one owner.
#pragma once

#include <sys/stat.h>

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace memstand {

class OutputFile {
 public:
  /// Prepares `path` for the output named by `flag` (e.g. "--json"); nothing appears at
  /// `path` before Commit(). "-" is the standard output (/dev/stdout, written directly). InvalidArgument naming the flag, the path and the errno
  /// text if it cannot be written: an empty path, a directory, a missing folder, a
  /// symbolic link to a missing file, no permission, a read-only filesystem.
  static Result<std::unique_ptr<OutputFile>> Open(const std::string& flag, const std::string& path);
  /// Without Commit(): the temporary file is removed, `path` is left untouched.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Appends `data`; the first failure is kept and returned again by Commit().
  Status Write(std::string_view data);
  /// The stream to write to (for writers that take a FILE*); report a failed write
  /// with Error(errno).
  std::FILE* stream() { return file_; }
  /// Flushes and puts the file in place (rename over a regular file; the old file's
  /// mode is kept). IoError naming the flag, the path and the errno text on failure,
  /// and then `path` is left as it was. Call once.
  Status Commit();
  /// IoError "<flag>: cannot write '<path>': <strerror(err)>".
  Status Error(int err) const;

  const std::string& flag() const { return flag_; }
  const std::string& path() const { return path_; }

 private:
  enum class Mode { kTemp, kNamedTemp, kDirect };
  OutputFile(std::string flag, std::string path) : flag_(std::move(flag)), path_(std::move(path)) {}
  Status Prepare();
  Status OpenTemp(const struct stat* old);
  Status PutInPlace();

  std::string flag_;
  std::string path_;
  std::string target_;     // the regular file to create or replace (symlinks resolved)
  std::string temp_path_;  // kNamedTemp: the visible temporary name
  Mode mode_ = Mode::kDirect;
  std::FILE* file_ = nullptr;
  Status write_status_;
  bool committed_ = false;
};

/// Output paths given as (flag, path) pairs, empty paths meaning "not given": refuses two
/// flags naming the same file (after resolving "." "..", symlinks and hard links), unless
/// it is a device or a FIFO (/dev/null twice is fine). InvalidArgument naming both flags.
Status CheckDistinctOutputs(const std::vector<std::pair<std::string, std::string>>& outputs);

/// Output paths as (flag, path) pairs against the files a command reads: refuses an output
/// that names an input (after resolving "." "..", symlinks and hard links), which writing
/// it would destroy. Empty output paths, devices and FIFOs are skipped. InvalidArgument
/// "<flag> '<path>' names the input '<input>' ...".
Status CheckOutputsSpareInputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                               const std::vector<std::string>& inputs);

}  // namespace memstand
