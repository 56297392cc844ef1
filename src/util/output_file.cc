#include "util/output_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace memstand {

namespace {

namespace fs = std::filesystem;

std::string Folder(const std::string& path) {
  std::string dir = fs::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

std::string RealPath(const std::string& path) {
  char* real = realpath(path.c_str(), nullptr);
  if (real == nullptr) return path;
  std::string s = real;
  free(real);
  return s;
}

// /dev/stdout, /dev/fd/N, /proc/self/fd/N: names of a descriptor, not of a file; the
// file behind one is the caller's (a shell's redirection), so it is written, never
// replaced.
bool IsDescriptorAlias(const std::string& symlink) {
  std::string dir = RealPath(Folder(symlink));
  return dir == "/dev" || dir.rfind("/proc/", 0) == 0;
}

// The name a new file gets from open(2) with mode 0666.
mode_t NewFileMode() {
  mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

// The file `path` names: "folder/name" with the folder resolved, or the file's
// device and inode when it exists; empty for a device or a FIFO.
std::string Identity(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode)) return "";
    return "inode " + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  }
  return RealPath(Folder(path)) + "/" + fs::path(path).filename().string();
}

}  // namespace

Result<std::unique_ptr<OutputFile>> OutputFile::Open(const std::string& flag,
                                                     const std::string& path) {
  // "-": the standard output, written directly like any descriptor alias.
  auto f = std::unique_ptr<OutputFile>(new OutputFile(flag, path == "-" ? "/dev/stdout" : path));
  Status s = f->Prepare();
  if (!s.ok()) return Status::InvalidArgument(s.message());
  return f;
}

OutputFile::~OutputFile() {
  if (file_ != nullptr) std::fclose(file_);
  if (!committed_ && !temp_path_.empty()) unlink(temp_path_.c_str());
}

Status OutputFile::Error(int err) const {
  return Status::IoError(flag_ + ": cannot write '" + path_ + "': " + std::strerror(err));
}

Status OutputFile::Prepare() {
  if (path_.empty()) return Status::InvalidArgument(flag_ + ": needs a file path, got ''");
  struct stat st {};
  if (lstat(path_.c_str(), &st) != 0) {
    if (errno != ENOENT) return Error(errno);
    target_ = path_;
    return OpenTemp(nullptr);
  }
  bool alias = false;
  target_ = path_;
  if (S_ISLNK(st.st_mode)) {
    if (stat(path_.c_str(), &st) != 0) {
      return Status::IoError(flag_ + ": '" + path_ + "' is a symbolic link to a missing file (" +
                             std::strerror(errno) + "); give the file's own path");
    }
    alias = IsDescriptorAlias(path_);
    target_ = RealPath(path_);
  }
  if (S_ISDIR(st.st_mode)) return Error(EISDIR);
  if (!S_ISREG(st.st_mode) || alias) {
    int fd = open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return Error(errno);
    file_ = fdopen(fd, "w");
    mode_ = Mode::kDirect;
    return Status::OK();
  }
  if (access(target_.c_str(), W_OK) != 0) return Error(errno);
  return OpenTemp(&st);
}

// An unnamed file in the target's folder; a named one where O_TMPFILE is unsupported.
// It gets the mode (and, where allowed, the owner) of the file it will replace, `old`,
// or a new file's mode when old is null.
Status OutputFile::OpenTemp(const struct stat* old) {
  const std::string dir = Folder(target_);
  int fd = open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  mode_ = Mode::kTemp;
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    std::string name = dir + "/." + fs::path(target_).filename().string() + ".memstand-XXXXXX";
    fd = mkostemp(name.data(), O_CLOEXEC);
    if (fd >= 0) temp_path_ = name;
    mode_ = Mode::kNamedTemp;
  }
  if (fd < 0) return Error(errno);
  if (old != nullptr && (old->st_uid != geteuid() || old->st_gid != getegid())) {
    (void)!fchown(fd, old->st_uid, old->st_gid);  // root keeps the owner; others cannot
  }
  const mode_t mode = old != nullptr ? old->st_mode & 0777 : NewFileMode();
  if (fchmod(fd, mode) != 0 || (file_ = fdopen(fd, "w")) == nullptr) {
    const int err = errno;
    close(fd);
    return Error(err);
  }
  return Status::OK();
}

Status OutputFile::Write(std::string_view data) {
  if (write_status_.ok() && std::fwrite(data.data(), 1, data.size(), file_) != data.size()) {
    write_status_ = Error(errno);
  }
  return write_status_;
}

Status OutputFile::Commit() {
  if (!write_status_.ok()) return write_status_;
  if (std::fflush(file_) != 0 || std::ferror(file_) != 0) return Error(errno);
  Status s = mode_ == Mode::kTemp ? PutInPlace() : Status::OK();
  const int closed = std::fclose(file_);
  const int err = errno;
  file_ = nullptr;
  if (s.ok() && closed != 0) s = Error(err);
  if (s.ok() && mode_ == Mode::kNamedTemp && rename(temp_path_.c_str(), target_.c_str()) != 0) {
    s = Error(errno);
  }
  committed_ = s.ok();
  return s;
}

// Gives the unnamed file a temporary name beside the target, then renames it over the
// target: the target is the old file or the whole new one, never a part.
Status OutputFile::PutInPlace() {
  const int fd = fileno(file_);
  const std::string by_proc = "/proc/self/fd/" + std::to_string(fd);
  const std::string base = Folder(target_) + "/." + fs::path(target_).filename().string() +
                           ".memstand-" + std::to_string(getpid()) + "-";
  for (int i = 0; i < 100 && temp_path_.empty(); ++i) {
    std::string name = base + std::to_string(i);
    int linked = linkat(AT_FDCWD, by_proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW);
    if (linked != 0 && errno == ENOENT) {  // no /proc: needs CAP_DAC_READ_SEARCH (root)
      linked = linkat(fd, "", AT_FDCWD, name.c_str(), AT_EMPTY_PATH);
    }
    if (linked == 0) {
      temp_path_ = name;
    } else if (errno != EEXIST) {
      return Error(errno);
    }
  }
  if (temp_path_.empty()) return Error(EEXIST);
  if (rename(temp_path_.c_str(), target_.c_str()) != 0) return Error(errno);
  return Status::OK();
}

Status CheckDistinctOutputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].second.empty()) continue;
    const std::string id = Identity(outputs[i].second);
    if (id.empty()) continue;
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      if (outputs[j].second.empty() || Identity(outputs[j].second) != id) continue;
      return Status::InvalidArgument(outputs[i].first + " '" + outputs[i].second + "' and " +
                                     outputs[j].first + " '" + outputs[j].second +
                                     "' name the same file; give each output its own");
    }
  }
  return Status::OK();
}

Status CheckOutputsSpareInputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                               const std::vector<std::string>& inputs) {
  for (const auto& [flag, path] : outputs) {
    if (path.empty()) continue;
    const std::string id = Identity(path);
    if (id.empty()) continue;
    for (const std::string& input : inputs) {
      if (Identity(input) != id) continue;
      return Status::InvalidArgument(flag + " '" + path + "' names the input '" + input +
                                     "', which writing it would destroy; give the output another path");
    }
  }
  return Status::OK();
}

}  // namespace memstand
