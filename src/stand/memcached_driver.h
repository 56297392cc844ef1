// memcached as a ServerDriver: TCP on loopback only (UDP off), settings as long
// options (memory-limit=MB, threads=N, conn-limit=N, ...).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "stand/server_driver.h"

namespace memstand {

class MemcachedDriver : public ServerDriver {
 public:
  /// settings: `--key=value` (`--key` alone when the value is empty), after ours.
  explicit MemcachedDriver(std::vector<std::pair<std::string, std::string>> settings)
      : settings_(std::move(settings)) {}

  std::string DefaultBinary() const override { return "memcached"; }
  std::string Package() const override { return "memcached"; }
  /// binary --port=P --listen=127.0.0.1 --udp-port=0 [--user=root] settings.
  /// memcached refuses to start as root without --user; as root we pass --user=root
  /// (not nobody: a change of user would clear PR_SET_PDEATHSIG), unless the settings
  /// name a user.
  Result<std::vector<std::string>> Prepare(const NodeLaunch& launch) const override;
  /// "version" and "stats": ready once the stats name our pid.
  Status Probe(const NodeLaunch& launch, pid_t pid, std::string* version,
               bool* port_taken) const override;
  std::string ProbeDescription() const override { return "answer version"; }
  /// memcached exits during startup only on bad options (a lost port is told apart
  /// before this is asked).
  bool ConfigRejected(const std::string&) const override { return true; }

 private:
  std::vector<std::pair<std::string, std::string>> settings_;
};

}  // namespace memstand
