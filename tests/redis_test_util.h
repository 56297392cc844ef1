// Test helper: a real redis-server child process on a free loopback port.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "client/redis_client.h"
#include "util/status.h"

namespace memstand::testutil {

/// A redis-server started with `--port P --bind 127.0.0.1 --save "" --appendonly no
/// --dir <fresh tmp dir>` plus extra arguments. Stopped (SIGTERM, then SIGKILL) and
/// its directory removed on destruction.
class RedisServerProcess {
 public:
  /// Starts the server and waits (up to 10 s) until it answers PING. Retries on a
  /// new port when another process took the picked one first.
  static Result<std::unique_ptr<RedisServerProcess>> Start(
      const std::vector<std::string>& extra_args = {});
  ~RedisServerProcess();
  RedisServerProcess(const RedisServerProcess&) = delete;
  RedisServerProcess& operator=(const RedisServerProcess&) = delete;

  int port() const { return port_; }
  const std::string& dir() const { return dir_; }
  /// Options that reach this server (resp 2, no auth, db 0).
  RedisClientOptions ClientOptions() const;

 private:
  RedisServerProcess(pid_t pid, int port, std::string dir)
      : pid_(pid), port_(port), dir_(std::move(dir)) {}
  pid_t pid_;
  int port_;
  std::string dir_;
};

}  // namespace memstand::testutil
