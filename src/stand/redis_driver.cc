#include "stand/redis_driver.h"

#include <cstdlib>

#include "client/redis_info.h"
#include "stand/probe_io.h"

namespace memstand {
namespace {

// Total length of the reply "+PONG\r\n$N\r\n<N bytes>\r\n" once `got` holds its
// header; 0 while incomplete; -1 if it is not that reply.
int64_t PongInfoReplyLength(const std::string& got) {
  static constexpr std::string_view kPong = "+PONG\r\n";
  if (got.size() < kPong.size()) return kPong.starts_with(got) ? 0 : -1;
  if (!got.starts_with(kPong)) return -1;
  size_t crlf = got.find("\r\n", kPong.size());
  if (got.size() == kPong.size() || crlf == std::string::npos) return 0;
  if (got[kPong.size()] != '$') return -1;
  int64_t n = std::strtoll(got.c_str() + kPong.size() + 1, nullptr, 10);
  return n < 0 ? -1 : static_cast<int64_t>(crlf) + 2 + n + 2;
}

}  // namespace

Result<std::vector<std::string>> RedisDriver::Prepare(const NodeLaunch& launch) const {
  std::vector<std::string> argv = {launch.binary_path,
                                   "--port",
                                   std::to_string(launch.ports.at(0)),
                                   "--bind",
                                   launch.host,
                                   "--save",
                                   "",
                                   "--appendonly",
                                   "no",
                                   "--dir",
                                   launch.dir,
                                   "--logfile",
                                   "",
                                   "--daemonize",
                                   "no"};
  if (cluster_) {
    argv.insert(argv.end(), {"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                             "--cluster-port", std::to_string(launch.ports.at(1))});
  }
  argv.insert(argv.end(), launch.role_args.begin(), launch.role_args.end());
  for (const auto& [key, value] : settings_) {
    argv.push_back("--" + key);
    argv.push_back(value);
  }
  return argv;
}

Status RedisDriver::Probe(const NodeLaunch& launch, pid_t pid, std::string* version,
                          bool* port_taken) const {
  auto got = Exchange(
      launch.host, launch.ports.at(0), "PING\r\nINFO server\r\n",
      [](const std::string& g) {
        int64_t want = PongInfoReplyLength(g);
        return want < 0 || (want > 0 && static_cast<int64_t>(g.size()) >= want);
      },
      kProbeTimeoutMs);
  if (!got.ok()) return got.status();
  if (PongInfoReplyLength(*got) < 0) {
    return Status::Protocol("unexpected reply: " + got->substr(0, 80));
  }
  auto info = ParseInfo(*got);
  std::string owner = info["process_id"];
  if (owner != std::to_string(pid)) {
    *port_taken = true;
    return Status::IoError(launch.host + ":" + std::to_string(launch.ports[0]) +
                           " is served by another process (pid " + owner + ")");
  }
  *version = info["redis_version"];
  return Status::OK();
}

bool RedisDriver::ConfigRejected(const std::string& log_tail) const {
  return log_tail.find("FATAL CONFIG FILE ERROR") != std::string::npos;
}

}  // namespace memstand
