// redis-server as a ServerDriver: persistence off unless the settings turn it on,
// optionally a cluster node (cluster-enabled, a second port for the cluster bus).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "stand/server_driver.h"

namespace memstand {

class RedisDriver : public ServerDriver {
 public:
  /// settings: directives passed as `--key value` after memstand's own (so they win).
  /// cluster: each node is a cluster node (ports[1] is its bus port).
  RedisDriver(std::vector<std::pair<std::string, std::string>> settings, bool cluster)
      : settings_(std::move(settings)), cluster_(cluster) {}

  std::string DefaultBinary() const override { return "redis-server"; }
  std::string Package() const override { return "redis-server"; }
  int PortCount() const override { return cluster_ ? 2 : 1; }
  /// binary --port P --bind 127.0.0.1 --save "" --appendonly no --dir D --logfile ""
  /// --daemonize no [--cluster-enabled yes --cluster-config-file nodes.conf
  /// --cluster-port B] role_args settings.
  Result<std::vector<std::string>> Prepare(const NodeLaunch& launch) const override;
  /// PING + INFO server on a fresh connection; ready once INFO names our pid. An
  /// error reply a starting redis cannot outgrow (-NOAUTH from requirepass, -NOPERM,
  /// -ERR unknown command; anything but -LOADING, -BUSY, -MASTERDOWN, -TRYAGAIN) is
  /// Status::Server at once, naming the reply.
  Status Probe(const NodeLaunch& launch, pid_t pid, std::string* version,
               bool* port_taken) const override;
  std::string ProbeDescription() const override { return "answer PING"; }
  bool ConfigRejected(const std::string& log_tail) const override;

 private:
  std::vector<std::pair<std::string, std::string>> settings_;
  bool cluster_;
};

}  // namespace memstand
