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

  /// "<scheme>://user@host:port[/db]" without the password.
  std::string Display() const;
};

/// Parses redis://[user:pass@]host:port[/db] (host may be [v6]; user may be empty as in
/// redis://:pass@host). Every fault is an InvalidArgument naming the part and the URL.
Result<RedisTarget> ParseRedisUrl(std::string_view url);

/// Any target URL: redis://[user:pass@]host:port[/db], memcache://host:port (default
/// port 11211), etcd://host:port (2379, the JSON gateway), tarantool://[user:pass@]
/// host:port (3301). `scheme` is set from the URL.
Result<RedisTarget> ParseTargetUrl(std::string_view url);

}  // namespace memstand
