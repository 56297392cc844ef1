// etcd as a ServerDriver: a single-member cluster on a client port and a peer port, or
// one member of a larger cluster (its name and the initial cluster in role_args), data
// under the node's folder; settings as flags (quota-backend-bytes=N, ...).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "stand/server_driver.h"

namespace memstand {

class EtcdDriver : public ServerDriver {
 public:
  /// settings: `--key=value` after ours.
  /// member: one of several (etcd-cluster): role_args name it and list the initial
  /// cluster, and it is ready once its process listens on both ports (etcd answers no
  /// HTTP request, /version included, before a quorum of members has formed the
  /// cluster; the topology waits for that, and reads the version then).
  explicit EtcdDriver(std::vector<std::pair<std::string, std::string>> settings, bool member = false)
      : settings_(std::move(settings)), member_(member) {}

  std::string DefaultBinary() const override { return "etcd"; }
  std::string Package() const override { return "etcd-server"; }
  /// ports[0]: client, ports[1]: peer.
  int PortCount() const override { return 2; }
  /// binary --name memstand --data-dir D/data --listen-client-urls http://H:C
  /// --advertise-client-urls http://H:C --listen-peer-urls http://H:P
  /// --initial-advertise-peer-urls http://H:P --initial-cluster memstand=http://H:P
  /// role_args settings (role_args' --name and --initial-cluster win: etcd keeps the
  /// last value of a flag).
  Result<std::vector<std::string>> Prepare(const NodeLaunch& launch) const override;
  /// GET /health answers {"health":"true"} from our process; then GET /version. A
  /// member: our process listens on the client and the peer port (version left empty).
  Status Probe(const NodeLaunch& launch, pid_t pid, std::string* version,
               bool* port_taken) const override;
  std::string ProbeDescription() const override {
    return member_ ? "listen on its client and peer ports" : "answer GET /health with health true";
  }
  bool ConfigRejected(const std::string& log_tail) const override;
  std::string Complaint(const std::string& log_tail) const override;

 private:
  std::vector<std::pair<std::string, std::string>> settings_;
  bool member_;
};

/// GET /health on an etcd client port: OK when it answers {"health":"true"}.
Status EtcdHealthy(const std::string& host, int port);
/// GET /version on an etcd client port: the server's version ("3.4.23").
Result<std::string> EtcdVersion(const std::string& host, int port);

}  // namespace memstand
