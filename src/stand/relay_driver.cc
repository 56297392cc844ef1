#include "stand/relay_driver.h"

#include <unistd.h>

#include <climits>

#include "stand/proc_identity.h"
#include "stand/server_node.h"

namespace memstand {

namespace {
constexpr char kStartLine[] = "relaying ";
constexpr char kComplaint[] = "memstand relay: ";
}  // namespace

std::string RelayDriver::DefaultBinary() const {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : "memstand";
}

Result<std::vector<std::string>> RelayDriver::Prepare(const NodeLaunch& launch) const {
  std::vector<std::string> argv = {launch.binary_path, "relay", "--link",
                                   launch.host + ":" + std::to_string(launch.ports.at(0)) + "=" +
                                       target_host_ + ":" + std::to_string(target_port_)};
  argv.insert(argv.end(), args_.begin(), args_.end());
  return argv;
}

Status RelayDriver::Probe(const NodeLaunch& launch, pid_t pid, std::string* version,
                          bool* port_taken) const {
  if (FileTail(launch.log_path, 50).find(kStartLine) == std::string::npos) {
    return Status::IoError("no start line yet");
  }
  if (!ListensOn(pid, launch.ports.at(0))) {
    *port_taken = true;
    return Status::IoError(launch.host + ":" + std::to_string(launch.ports[0]) +
                           " is served by another process");
  }
  *version = MEMSTAND_VERSION;
  return Status::OK();
}

bool RelayDriver::ConfigRejected(const std::string& log_tail) const {
  return log_tail.find(kComplaint) != std::string::npos;
}

std::string RelayDriver::Complaint(const std::string& log_tail) const {
  const size_t at = log_tail.find(kComplaint);
  if (at == std::string::npos) return "";
  return log_tail.substr(at, log_tail.find('\n', at) - at);
}

}  // namespace memstand
