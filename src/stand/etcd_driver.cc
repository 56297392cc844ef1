#include "stand/etcd_driver.h"

#include "stand/probe_io.h"
#include "stand/proc_identity.h"

namespace memstand {
namespace {

// GET path over HTTP/1.0; returns the body once the response is complete (a JSON
// object: up to its final '}').
Result<std::string> HttpGet(const std::string& host, int port, const std::string& path) {
  std::string request = "GET " + path + " HTTP/1.0\r\nHost: " + host + "\r\n\r\n";
  auto got = Exchange(
      host, port, request,
      [](const std::string& g) {
        size_t body = g.find("\r\n\r\n");
        return body != std::string::npos && g.find('}', body) != std::string::npos;
      },
      kProbeTimeoutMs);
  if (!got.ok()) return got.status();
  if (!got->starts_with("HTTP/1.")) return Status::Protocol("not HTTP: " + got->substr(0, 64));
  return got->substr(got->find("\r\n\r\n") + 4);
}

// The string value of "key" in a flat JSON object, "" if absent.
std::string JsonString(const std::string& json, const std::string& key) {
  std::string needle = "\"" + key + "\":\"";
  size_t at = json.find(needle);
  if (at == std::string::npos) return "";
  at += needle.size();
  return json.substr(at, json.find('"', at) - at);
}

}  // namespace

Result<std::vector<std::string>> EtcdDriver::Prepare(const NodeLaunch& launch) const {
  std::string client = "http://" + launch.host + ":" + std::to_string(launch.ports.at(0));
  std::string peer = "http://" + launch.host + ":" + std::to_string(launch.ports.at(1));
  std::vector<std::string> argv = {launch.binary_path,
                                   "--name=memstand",
                                   "--data-dir=" + launch.dir + "/data",
                                   "--listen-client-urls=" + client,
                                   "--advertise-client-urls=" + client,
                                   "--listen-peer-urls=" + peer,
                                   "--initial-advertise-peer-urls=" + peer,
                                   "--initial-cluster=memstand=" + peer};
  argv.insert(argv.end(), launch.role_args.begin(), launch.role_args.end());
  for (const auto& [key, value] : settings_) argv.push_back("--" + key + "=" + value);
  return argv;
}

Status EtcdHealthy(const std::string& host, int port) {
  auto health = HttpGet(host, port, "/health");
  if (!health.ok()) return health.status();
  if (JsonString(*health, "health") != "true") {
    return Status::IoError("GET /health: " + health->substr(0, 120));
  }
  return Status::OK();
}

Result<std::string> EtcdVersion(const std::string& host, int port) {
  auto v = HttpGet(host, port, "/version");
  if (!v.ok()) return v.status();
  return JsonString(*v, "etcdserver");
}

Status EtcdDriver::Probe(const NodeLaunch& launch, pid_t pid, std::string* version,
                         bool* port_taken) const {
  if (member_) {
    for (int port : launch.ports) {
      // Another process on the port makes etcd exit ("address already in use"), which
      // ServerNode reads from the log.
      if (!ListensOn(pid, port)) return Status::IoError(launch.host + ":" + std::to_string(port) + " is not yet ours");
    }
    return Status::OK();
  }
  auto health = HttpGet(launch.host, launch.ports.at(0), "/health");
  if (!health.ok()) return health.status();
  if (!ListensOn(pid, launch.ports[0])) {
    *port_taken = true;
    return Status::IoError(launch.host + ":" + std::to_string(launch.ports[0]) +
                           " is served by another process");
  }
  if (JsonString(*health, "health") != "true") {
    return Status::IoError("GET /health: " + health->substr(0, 120));
  }
  auto v = HttpGet(launch.host, launch.ports[0], "/version");
  if (!v.ok()) return v.status();
  *version = JsonString(*v, "etcdserver");
  return Status::OK();
}

namespace {
constexpr const char* kFlagErrors[] = {"flag provided but not defined", "invalid value",
                                       "invalid argument", "error verifying flags"};
}  // namespace

bool EtcdDriver::ConfigRejected(const std::string& log_tail) const {
  return !Complaint(log_tail).empty();
}

std::string EtcdDriver::Complaint(const std::string& log_tail) const {
  for (const char* sign : kFlagErrors) {
    size_t at = log_tail.find(sign);
    if (at == std::string::npos) continue;
    size_t start = log_tail.rfind('\n', at);
    start = start == std::string::npos ? 0 : start + 1;
    return log_tail.substr(start, log_tail.find('\n', at) - start);
  }
  return "";
}

}  // namespace memstand
