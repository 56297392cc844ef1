#include "stand/memcached_driver.h"

#include <unistd.h>

#include "stand/probe_io.h"

namespace memstand {
namespace {

// The value after "<prefix>" up to the line end, "" if absent.
std::string LineValue(const std::string& text, const std::string& prefix) {
  size_t at = text.find(prefix);
  if (at == std::string::npos) return "";
  at += prefix.size();
  return text.substr(at, text.find("\r\n", at) - at);
}

}  // namespace

Result<std::vector<std::string>> MemcachedDriver::Prepare(const NodeLaunch& launch) const {
  std::vector<std::string> argv = {launch.binary_path, "--port=" + std::to_string(launch.ports.at(0)),
                                   "--listen=" + launch.host, "--udp-port=0"};
  bool user_given = false;
  for (const auto& [key, value] : settings_) user_given |= key == "user";
  if (geteuid() == 0 && !user_given) argv.push_back("--user=root");
  argv.insert(argv.end(), launch.role_args.begin(), launch.role_args.end());
  for (const auto& [key, value] : settings_) {
    argv.push_back(value.empty() ? "--" + key : "--" + key + "=" + value);
  }
  return argv;
}

Status MemcachedDriver::Probe(const NodeLaunch& launch, pid_t pid, std::string* version,
                              bool* port_taken) const {
  auto got = Exchange(
      launch.host, launch.ports.at(0), "version\r\nstats\r\n",
      [](const std::string& g) {
        return g.find("END\r\n") != std::string::npos || g.find("ERROR") != std::string::npos;
      },
      kProbeTimeoutMs);
  if (!got.ok()) return got.status();
  if (!got->starts_with("VERSION ")) {
    return Status::Protocol("unexpected reply: " + got->substr(0, 80));
  }
  std::string owner = LineValue(*got, "STAT pid ");
  if (owner != std::to_string(pid)) {
    *port_taken = true;
    return Status::IoError(launch.host + ":" + std::to_string(launch.ports[0]) +
                           " is served by another process (pid " + owner + ")");
  }
  *version = LineValue(*got, "VERSION ");
  return Status::OK();
}

}  // namespace memstand
