#include "stand/redis_driver.h"

#include <cstdlib>
#include <string_view>

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

// Where an error reply starts in a probe reply: at 0, or after +PONG; npos if none.
size_t ErrorAt(const std::string& got) {
  static constexpr std::string_view kPong = "+PONG\r\n";
  if (got.starts_with("-")) return 0;
  if (got.starts_with(kPong) && got.size() > kPong.size() && got[kPong.size()] == '-') {
    return kPong.size();
  }
  return std::string::npos;
}

// True once `got` holds the whole probe reply, or enough to say it is not one (an
// error reply counts once its line is complete, so the message can quote it).
bool ProbeReplyDone(const std::string& got) {
  size_t err = ErrorAt(got);
  if (err != std::string::npos) return got.find("\r\n", err) != std::string::npos;
  int64_t want = PongInfoReplyLength(got);
  return want < 0 || (want > 0 && static_cast<int64_t>(got.size()) >= want);
}

// Errors a redis sends while it gets ready (loading its data, a busy script, a
// replica whose primary is not up yet): worth probing again.
bool Transient(std::string_view error) {
  for (std::string_view prefix : {"-LOADING", "-BUSY", "-MASTERDOWN", "-TRYAGAIN"}) {
    if (error.starts_with(prefix)) return true;
  }
  return false;
}

Status NeverReady(std::string_view error) {
  std::string quoted = "'" + std::string(error.substr(0, 120)) + "'";
  bool auth = error.starts_with("-NOAUTH") || error.starts_with("-WRONGPASS") ||
              error.starts_with("-NOPERM");
  if (auth) {
    return Status::Server(
        "answered memstand's readiness probe (PING, INFO server) with " + quoted +
        ": it requires a password or limits the default user (requirepass, an ACL), and "
        "the stand does not AUTH; start it without requirepass, or start it yourself and "
        "point memstand run --target at it");
  }
  return Status::Server("answered memstand's readiness probe (PING, INFO server) with " + quoted +
                        ", which waiting cannot change");
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
  auto got = Exchange(launch.host, launch.ports.at(0), "PING\r\nINFO server\r\n",
                      ProbeReplyDone, kProbeTimeoutMs);
  if (!got.ok()) return got.status();
  if (size_t err = ErrorAt(*got); err != std::string::npos) {
    std::string_view error(got->data() + err, got->find("\r\n", err) - err);
    if (!Transient(error)) return NeverReady(error);
    return Status::Protocol("not ready yet: " + std::string(error.substr(0, 80)));
  }
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
