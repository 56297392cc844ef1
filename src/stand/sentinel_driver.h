// redis-sentinel as a ServerDriver: one Sentinel watching one primary, from a
// configuration file in its folder (Sentinel rewrites that file as it learns the
// replicas, the other Sentinels and each failover, so a restart keeps what it knew).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "stand/redis_driver.h"

namespace memstand {

/// The name the Sentinels know the watched primary by, as clients ask for it
/// (SENTINEL GET-MASTER-ADDR-BY-NAME mymaster).
inline constexpr const char* kSentinelMasterName = "mymaster";

struct SentinelWatch {
  std::string primary_host;
  int primary_port = 0;
  int quorum = 2;
  /// Per-primary directives ("down-after-milliseconds", "1000"), after memstand's defaults.
  std::vector<std::pair<std::string, std::string>> directives;
};

class SentinelDriver : public RedisDriver {
 public:
  explicit SentinelDriver(SentinelWatch watch) : RedisDriver({}, false), watch_(std::move(watch)) {}

  std::string DefaultBinary() const override { return "redis-sentinel"; }
  std::string Package() const override { return "redis-sentinel"; }
  /// Writes <dir>/sentinel.conf unless it exists (a restart keeps the file Sentinel
  /// rewrote): port, bind, dir, no daemon, the log to stdout, `sentinel monitor
  /// mymaster host port quorum`, down-after-milliseconds 1000 (Sentinel's default is
  /// 30 s: an experiment wants a failover in seconds), failover-timeout 10000,
  /// parallel-syncs 1, then the directives. argv: binary sentinel.conf.
  Result<std::vector<std::string>> Prepare(const NodeLaunch& launch) const override;
  // Probe: RedisDriver's (PING, INFO server: a Sentinel answers both).

 private:
  SentinelWatch watch_;
};

}  // namespace memstand
