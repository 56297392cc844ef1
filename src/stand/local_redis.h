// A redis-server that memstand starts itself on a free loopback port, with
// persistence off, and tears down (process and directory) when done. A ServerNode
// with the RedisDriver, plus a temporary directory of its own.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "stand/server_node.h"
#include "util/status.h"

namespace memstand {

struct LocalRedisOptions {
  /// Program name (searched in PATH) or path. Default: the Debian package's binary.
  std::string binary = "redis-server";
  /// Extra directives, passed as `--key value` after ours (so they win), e.g.
  /// {"maxmemory", "8mb"}. The value is one argument: multi-word values are not split.
  std::vector<std::pair<std::string, std::string>> config;
  /// How long to wait for the first +PONG. An empty redis starts in milliseconds;
  /// 10 s covers a loaded CI machine.
  int ready_timeout_ms = 10000;
  /// Working directory (--dir, redis.log). Empty: a new folder
  /// $TMPDIR/memstand-redis-XXXXXX (MakeTempFolder: marked with this process, after
  /// removing the folders of killed runs), removed by Stop. A given directory is
  /// created if missing and never removed.
  std::string base_dir;
};

/// One running redis-server started by memstand. Not thread-safe: one owner.
/// Command line: --port P --bind 127.0.0.1 --save "" --appendonly no --dir D
/// --logfile "" --daemonize no, then the extra directives; stdout and stderr go to
/// D/redis.log.
class LocalRedis {
 public:
  /// Finds the binary (NotFound with an apt-get hint if it is missing), starts it on
  /// a free port and returns once it answers PING and INFO names its pid (so the
  /// answer is not from another server on the same port). If the port was taken
  /// meanwhile, retries with another one (3 attempts). Errors on early exit or
  /// timeout carry the last lines of the log; a config redis rejects is
  /// InvalidArgument.
  static Result<std::unique_ptr<LocalRedis>> Start(const LocalRedisOptions& options);

  /// Calls Stop().
  ~LocalRedis();
  LocalRedis(const LocalRedis&) = delete;
  LocalRedis& operator=(const LocalRedis&) = delete;

  /// SIGTERM (then SIGKILL after 5 s), reap, remove the directory if we made it.
  /// Idempotent. Failed if redis had already died before Stop (with its exit and
  /// log tail): the run it served is suspect. Cleanup happens in every case.
  Status Stop();

  const std::string& host() const { return node_->host(); }
  int port() const { return node_->port(); }
  pid_t pid() const { return node_->pid(); }
  const std::string& dir() const { return dir_; }
  /// The last `lines` lines of redis.log (stdout + stderr), "" if unreadable.
  std::string LogTail(int lines) const { return node_->LogTail(lines); }
  /// `redis_version` from INFO server, e.g. "7.0.15".
  std::string version() const { return node_->version(); }
  /// One line naming the server and its exact configuration, for reports:
  /// "redis-server 7.0.15 on 127.0.0.1:PORT (pid N), started by memstand,
  /// persistence off, dir D[, config: k=v ...]".
  std::string Describe() const;
  /// The server's process, for faults (Kill, Pause, Resume, Restart on the same port).
  ServerNode& node() { return *node_; }

 private:
  LocalRedis() = default;
  Status MakeDir();

  LocalRedisOptions options_;
  std::string dir_;
  bool owns_dir_ = false;
  std::unique_ptr<ServerNode> node_;
};

}  // namespace memstand
