// A memcached, tarantool or etcd server that `memstand run` starts itself when no
// target is given (as LocalRedis for Redis): a ServerNode with the kind's driver on
// free loopback ports, in a temporary folder (temp_folder.h: $TMPDIR/memstand-<kind>-
// XXXXXX, marked with this process) removed when it stops.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "stand/server_node.h"
#include "util/status.h"

namespace memstand {

/// The space the Tarantool init creates for the default IPROTO commands: string
/// primary key (hash index), guest allowed to read, write and execute.
constexpr const char* kTarantoolSpace = "memstand";

class LocalServer {
 public:
  /// kind: "memcached", "tarantool" or "etcd". binary: empty for the driver's default.
  /// Tarantool gets an init that creates space `memstand` and grants guest access.
  static Result<std::unique_ptr<LocalServer>> Start(const std::string& kind, const std::string& binary);
  /// Calls Stop().
  ~LocalServer();
  LocalServer(const LocalServer&) = delete;
  LocalServer& operator=(const LocalServer&) = delete;

  /// Stops the process and removes the directory. Idempotent.
  Status Stop();
  const std::string& host() const { return node_->host(); }
  int port() const { return node_->port(); }
  pid_t pid() const { return node_->pid(); }
  /// The program's name, e.g. "memcached" (for resource sampling labels).
  std::string program() const;
  /// "memcached 1.6.18 on 127.0.0.1:PORT (pid N), started by memstand, dir D".
  std::string Describe() const;

 private:
  LocalServer() = default;
  std::string kind_;
  std::string dir_;
  std::unique_ptr<ServerNode> node_;
};

}  // namespace memstand
