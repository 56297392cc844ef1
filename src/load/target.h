// Where the load goes: a Redis URL or host/port flags.
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"

namespace memstand {

struct RedisTarget {
  /// The URL's scheme: "redis", "memcache", "etcd" or "tarantool".
  std::string scheme = "redis";
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string user;      // empty: the default user
  std::string password;  // empty: no AUTH
  int db = 0;
  /// Non-empty: the load goes to this Unix stream socket, and host and port are unused.
  std::string unix_path;
  /// rediss://, memcache+tls://, etcd+tls:// (or --tls): over TLS (LoadOptions::tls says
  /// how it is checked).
  bool tls = false;

  /// "<scheme>://user@host:port[/db]" (rediss://, memcache+tls://, etcd+tls:// with TLS; a Unix socket: "<scheme>+unix://[user@]/path
  /// [?db=N]") without the password.
  std::string Display() const;
  /// Where the connection goes, for messages: "host:port" or the socket's path.
  std::string Address() const;
};

/// Parses redis://[user:pass@]host:port[/db] (host may be [v6]; user may be empty as in
/// redis://:pass@host). Every fault is an InvalidArgument naming the part and the URL.
Result<RedisTarget> ParseRedisUrl(std::string_view url);

/// Any target URL: redis://[user:pass@]host:port[/db] (rediss://: the same over TLS,
/// scheme "redis" and tls set), memcache://host:port (default
/// port 11211), etcd://host:port (2379, the JSON gateway), memcache+tls:// and
/// etcd+tls:// (scheme "memcache"/"etcd" and tls set), tarantool://[user:pass@]
/// host:port (3301); a Unix socket: unix:///path or redis+unix://[user:pass@]/path
/// [?db=N] (RESP), memcache+unix:///path. `scheme` is set from the URL ("redis" for
/// unix://), `unix_path` for a Unix socket.
Result<RedisTarget> ParseTargetUrl(std::string_view url);

/// A Unix socket path as -S/--unix-socket and the URLs take it: absolute, not a
/// directory, at most kMaxUnixPath bytes. InvalidArgument saying what is wrong.
Status CheckUnixPath(std::string_view path);

/// Connects to t's Unix socket if it has one, else to host:port (t's own, or a cluster
/// node's); the contract of ConnectTcp. Errors begin "connecting to <address>".
Result<int> ConnectNode(const RedisTarget& t, const std::string& host, int port, int timeout_ms,
                        bool blocking);

}  // namespace memstand
