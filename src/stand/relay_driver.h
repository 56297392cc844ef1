// `memstand relay` as a ServerDriver: a relay node in front of another node of a
// topology (TopologySpec::relay, docs/stand.md), started, recorded, listed and stopped
// like the servers, under the same ownership token.
#pragma once

#include <string>
#include <vector>

#include "stand/server_driver.h"

namespace memstand {

class RelayDriver : public ServerDriver {
 public:
  /// args: the relay's flags after --link (TOML-checked); target: the fronted node.
  RelayDriver(std::vector<std::string> args, std::string target_host, int target_port)
      : args_(std::move(args)), target_host_(std::move(target_host)), target_port_(target_port) {}

  /// This process's own program (/proc/self/exe): `memstand up` starts its own relay.
  std::string DefaultBinary() const override;
  std::string Package() const override { return "memstand (scripts/build.sh)"; }
  /// binary relay --link HOST:PORT=TARGET_HOST:TARGET_PORT args.
  Result<std::vector<std::string>> Prepare(const NodeLaunch& launch) const override;
  /// Ready once the log holds the start line and the port listens from our pid; it is
  /// not probed by connecting (a probe would be relayed to the node, and counted).
  Status Probe(const NodeLaunch& launch, pid_t pid, std::string* version,
               bool* port_taken) const override;
  std::string ProbeDescription() const override { return "print its start line"; }
  /// The relay exits during startup only on bad flags (exit 2, "memstand relay: ...").
  bool ConfigRejected(const std::string& log_tail) const override;
  std::string Complaint(const std::string& log_tail) const override;

 private:
  std::vector<std::string> args_;
  std::string target_host_;
  int target_port_;
};

}  // namespace memstand
