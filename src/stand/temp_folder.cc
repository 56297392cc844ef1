#include "stand/temp_folder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/socket.h"
#include "stand/proc_identity.h"
#include "stand/run_root.h"

namespace memstand {
namespace {

namespace fs = std::filesystem;

// "pg": compute-locality's PostgreSQL cluster (scenario/compute_locality/pg.h).
// "failover", "recovery", "partition": the histories of those scenarios' runs (scenario/<kind>/).
constexpr const char* kKinds[] = {"redis", "memcached", "tarantool", "etcd", "pg", "failover", "recovery", "partition"};

std::string TempRoot() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

// memstand-<kind>-XXXXXX with a known kind and 6 letters or digits.
bool IsOurPattern(const std::string& name) {
  for (const char* kind : kKinds) {
    std::string prefix = std::string("memstand-") + kind + "-";
    if (name.size() != prefix.size() + 6 || !name.starts_with(prefix)) continue;
    for (size_t i = prefix.size(); i < name.size(); ++i) {
      if (std::isalnum(static_cast<unsigned char>(name[i])) == 0) return false;
    }
    return true;
  }
  return false;
}

// The memstand process a marker names; pid 0 if the marker is missing, not ours or
// malformed (such a folder is kept).
ProcessIdentity MarkedOwner(const std::string& dir) {
  ProcessIdentity owner;
  auto text = ReadPrivateFile(dir + "/" + kTempOwnerFile, "owner file");
  if (!text.ok()) return owner;
  std::istringstream in(*text);
  std::string pid_key, ticks_key;
  long pid = 0;
  if (!(in >> pid_key >> pid >> ticks_key >> owner.start_ticks) || pid_key != "pid" ||
      ticks_key != "start_ticks" || pid <= 0) {
    return ProcessIdentity{};
  }
  owner.pid = static_cast<pid_t>(pid);
  return owner;
}

bool OwnerGone(const ProcessIdentity& owner) {
  auto now = ReadProcessIdentity(owner.pid);
  return !now.ok() || now->start_ticks != owner.start_ticks;
}

bool OursAndNotALink(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

}  // namespace

std::vector<std::string> RemoveLeftoverTempFolders(const std::string& root) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    std::string dir = entry.path().string();
    if (!IsOurPattern(entry.path().filename().string()) || !OursAndNotALink(dir)) continue;
    ProcessIdentity owner = MarkedOwner(dir);
    if (owner.pid == 0 || !OwnerGone(owner)) continue;
    std::error_code rm;
    fs::remove_all(dir, rm);
    if (rm) continue;
    removed.push_back("memstand: removed leftover folder " + dir + " of a killed run (pid " +
                      std::to_string(owner.pid) + ")");
  }
  return removed;
}

Result<std::string> MakeTempFolder(const std::string& kind) {
  std::string root = TempRoot();
  for (const std::string& line : RemoveLeftoverTempFolders(root)) {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::string tmpl = root + "/memstand-" + kind + "-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) return Status::IoError(ErrnoMessage("mkdtemp " + tmpl, errno));
  std::error_code ec;
  std::string dir = fs::absolute(tmpl, ec).string();
  auto self = ReadProcessIdentity(getpid());
  std::string marker = "pid " + std::to_string(getpid()) + "\nstart_ticks " +
                       std::to_string(self.ok() ? self->start_ticks : 0) + "\n";
  if (Status s = WritePrivateFile(dir + "/" + kTempOwnerFile, marker); !s.ok()) {
    fs::remove_all(dir, ec);
    return s;
  }
  return dir;
}

RemovedOnExit::~RemovedOnExit() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace memstand
