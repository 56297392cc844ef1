#include "stand/run_root.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace memstand {
namespace {

namespace fs = std::filesystem;

std::string Octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

std::string Refused(const std::string& what, const std::string& path, const std::string& why) {
  return what + " " + path + ": refused: " + why;
}

// The owner and mode checks shared by folders and files.
Status CheckOwnerAndMode(const struct stat& st, const std::string& path, const std::string& what,
                         mode_t want) {
  uid_t me = geteuid();
  if (st.st_uid != me) {
    return Status::Failed(Refused(what, path,
                                  "owned by uid " + std::to_string(st.st_uid) +
                                      ", not by you (uid " + std::to_string(me) + ")"));
  }
  if ((st.st_mode & 077) != 0) {
    return Status::Failed(Refused(what, path,
                                  "mode " + Octal(st.st_mode) +
                                      " lets group or others in (want " + Octal(want) + ")"));
  }
  return Status::OK();
}

std::string WithoutTrailingSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace

std::string DefaultRunRoot() {
  const char* env = std::getenv("MEMSTAND_RUN_DIR");
  if (env != nullptr && *env != '\0') return env;
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  if (xdg != nullptr && xdg[0] == '/' && CheckPrivateDir(xdg, "XDG_RUNTIME_DIR").ok()) {
    return WithoutTrailingSlashes(xdg) + "/memstand";
  }
  return "/tmp/memstand-" + std::to_string(geteuid());
}

Status CheckPrivateDir(const std::string& path, const std::string& what) {
  struct stat st {};
  if (lstat(path.c_str(), &st) < 0) {
    int err = errno;
    std::string text = what + " " + path + ": " + std::strerror(err);
    return err == ENOENT ? Status::NotFound(text) : Status::IoError(text);
  }
  if (S_ISLNK(st.st_mode)) return Status::Failed(Refused(what, path, "a symlink"));
  if (!S_ISDIR(st.st_mode)) return Status::Failed(Refused(what, path, "not a folder"));
  return CheckOwnerAndMode(st, path, what, 0700);
}

Status EnsurePrivateDir(const std::string& path_in, const std::string& what) {
  std::string path = WithoutTrailingSlashes(path_in);
  fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) return Status::IoError("cannot create " + parent.string() + ": " + ec.message());
  if (mkdir(path.c_str(), 0700) == 0) {
    chmod(path.c_str(), 0700);  // whatever the umask took away from the owner
  } else if (errno != EEXIST) {
    return Status::IoError("cannot create " + what + " " + path + ": " + std::strerror(errno));
  }
  return CheckPrivateDir(path, what);
}

Status CheckPrivateFile(int fd, const std::string& path, const std::string& what) {
  struct stat st {};
  if (fstat(fd, &st) < 0) return Status::IoError("cannot stat " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Status::Failed(Refused(what, path, "not a regular file"));
  return CheckOwnerAndMode(st, path, what, 0600);
}

Result<std::string> ReadPrivateFile(const std::string& path, const std::string& what) {
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ELOOP) return Status::Failed(Refused(what, path, "a symlink"));
    return Status::IoError("cannot read " + path + ": " + std::strerror(errno));
  }
  Status s = CheckPrivateFile(fd, path, what);
  std::string text;
  char buf[4096];
  for (ssize_t n = 1; s.ok() && n > 0;) {
    n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno != EINTR) s = Status::IoError("cannot read " + path + ": " + std::strerror(errno));
    if (n > 0) text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (!s.ok()) return s;
  return text;
}

Status WritePrivateFile(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  unlink(tmp.c_str());  // a leftover of a killed write
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IoError("cannot create " + tmp + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  int write_errno = errno;
  if (close(fd) < 0 || done < text.size()) {
    unlink(tmp.c_str());
    return Status::IoError("cannot write " + tmp + ": " + std::strerror(write_errno));
  }
  if (rename(tmp.c_str(), path.c_str()) < 0) {
    int err = errno;
    unlink(tmp.c_str());
    return Status::IoError("cannot rename " + tmp + " to " + path + ": " + std::strerror(err));
  }
  return Status::OK();
}

}  // namespace memstand
