// etcd as a ServerDriver: a single-member cluster on a client port and a peer port,
// data under the node's folder; settings as flags (quota-backend-bytes=N, ...).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "stand/server_driver.h"

namespace memstand {

class EtcdDriver : public ServerDriver {
 public:
  /// settings: `--key=value` after ours.
  explicit EtcdDriver(std::vector<std::pair<std::string, std::string>> settings)
      : settings_(std::move(settings)) {}

  std::string DefaultBinary() const override { return "etcd"; }
  std::string Package() const override { return "etcd-server"; }
  /// ports[0]: client, ports[1]: peer.
  int PortCount() const override { return 2; }
  /// binary --name memstand --data-dir D/data --listen-client-urls http://H:C
  /// --advertise-client-urls http://H:C --listen-peer-urls http://H:P
  /// --initial-advertise-peer-urls http://H:P --initial-cluster memstand=http://H:P
  /// settings.
  Result<std::vector<std::string>> Prepare(const NodeLaunch& launch) const override;
  /// GET /health answers {"health":"true"} from our process; then GET /version.
  Status Probe(const NodeLaunch& launch, pid_t pid, std::string* version,
               bool* port_taken) const override;
  std::string ProbeDescription() const override { return "answer GET /health with health true"; }
  bool ConfigRejected(const std::string& log_tail) const override;
  std::string Complaint(const std::string& log_tail) const override;

 private:
  std::vector<std::pair<std::string, std::string>> settings_;
};

}  // namespace memstand
