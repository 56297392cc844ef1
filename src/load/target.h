// Where the load goes: a Redis URL or host/port flags.
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"

namespace memstand {

struct RedisTarget {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string user;      // empty: the default user
  std::string password;  // empty: no AUTH
  int db = 0;

  /// "redis://user@host:port/db" without the password.
  std::string Display() const;
};

/// Parses redis://[user:pass@]host:port[/db] (host may be [v6]; user may be empty as in
/// redis://:pass@host). Every fault is an InvalidArgument naming the part and the URL.
Result<RedisTarget> ParseRedisUrl(std::string_view url);

}  // namespace memstand
