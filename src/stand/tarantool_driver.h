// tarantool as a ServerDriver: memstand writes an init.lua that calls box.cfg{...}
// with the listen port and the user's box.cfg settings, then runs the user's own
// init file, then logs a ready line once box.info.status is "running".
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "stand/server_driver.h"

namespace memstand {

class TarantoolDriver : public ServerDriver {
 public:
  /// settings: box.cfg keys (memtx_memory, wal_mode, ...). A value that is a number
  /// or true/false goes to Lua as is; a *_memory value may carry a size suffix
  /// ("256m"); anything else is a Lua string. user_init: a Lua file to dofile()
  /// after box.cfg, or empty.
  TarantoolDriver(std::vector<std::pair<std::string, std::string>> settings, std::string user_init)
      : settings_(std::move(settings)), user_init_(std::move(user_init)) {}

  std::string DefaultBinary() const override { return "tarantool"; }
  std::string Package() const override { return "tarantool"; }
  /// Writes <dir>/init.lua; argv: binary init.lua (run in dir, where the WAL and
  /// snapshots go).
  Result<std::vector<std::string>> Prepare(const NodeLaunch& launch) const override;
  /// Ready once the port sends the IPROTO greeting, the listening socket is our
  /// process's, and the log holds init.lua's ready line for our pid.
  Status Probe(const NodeLaunch& launch, pid_t pid, std::string* version,
               bool* port_taken) const override;
  std::string ProbeDescription() const override {
    return "send its greeting and reach box.info.status running";
  }
  bool ConfigRejected(const std::string& log_tail) const override;

  /// The init.lua text for a node listening on host:port. Exposed for tests.
  Result<std::string> InitLua(const std::string& host, int port) const;

 private:
  std::vector<std::pair<std::string, std::string>> settings_;
  std::string user_init_;
};

}  // namespace memstand
