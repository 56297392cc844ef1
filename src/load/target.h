// Where the load goes: a Redis URL or host/port flags.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  /// redis+sentinel:// (rediss+sentinel://): the Sentinels (host, port) asked for the
  /// primary they know as `master_name`; host and port are then the primary's, once the
  /// engine asked. Empty: not a Sentinel target.
  std::vector<std::pair<std::string, int>> sentinels;
  std::string master_name;
  /// A Sentinel target: addresses the Sentinels name ("host:port") and where a client
  /// dials them instead, as clients behind a NAT or a relay map them (ioredis's natMap,
  /// Lettuce's MappingSocketAddressResolver): the partition scenario's clients reach the
  /// primary through a relay link of their own. Empty: dial what the Sentinels say.
  struct MappedAddress {
    std::string from;  // "host:port" as a Sentinel names it
    std::string host;
    int port = 0;
  };
  std::vector<MappedAddress> address_map;
  /// tarantool+rw://: the members (host, port) of a Tarantool replica set, of which the
  /// load writes to the one whose box.info.ro is false (go-tarantool's pool in RW mode);
  /// host and port are then that member's, once the engine asked (load/rw_pool.h).
  /// Empty: not such a target.
  std::vector<std::pair<std::string, int>> rw_members;

  bool sentinel() const { return !sentinels.empty(); }
  bool rw_pool() const { return !rw_members.empty(); }
  /// A target whose node is found, and found again after a loss (a Sentinel target or
  /// an RW pool): the engine follows its primary.
  bool follows_primary() const { return sentinel() || rw_pool(); }
  /// "<scheme>://user@host:port[/db]" (rediss://, memcache+tls://, etcd+tls:// with TLS; a Unix socket: "<scheme>+unix://[user@]/path
  /// [?db=N]"; a Sentinel target: "redis+sentinel://[user@]host:port,.../name[?db=N]")
  /// without the password.
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
/// [?db=N] (RESP), memcache+unix:///path; a Sentinel target: redis+sentinel://
/// [user:pass@]host[:port][,host[:port]...]/master-name[?db=N] (Sentinel port 26379 by
/// default; rediss+sentinel:// the same with TLS to the data nodes; the credentials are
/// the data nodes', as redis-py's). `scheme` is set from the URL ("redis" for unix:// and
/// the Sentinel forms), `unix_path` for a Unix socket, `sentinels` and `master_name` for
/// a Sentinel target; an RW pool of Tarantool members: tarantool+rw://[user:pass@]
/// host[:port][,host[:port]...] (port 3301 by default; scheme "tarantool", `rw_members`
/// set; the credentials are every member's).
Result<RedisTarget> ParseTargetUrl(std::string_view url);

/// A Unix socket path as -S/--unix-socket and the URLs take it: absolute, not a
/// directory, at most kMaxUnixPath bytes. InvalidArgument saying what is wrong.
Status CheckUnixPath(std::string_view path);

/// Connects to t's Unix socket if it has one, else to host:port (t's own, or a cluster
/// node's); the contract of ConnectTcp. Errors begin "connecting to <address>".
Result<int> ConnectNode(const RedisTarget& t, const std::string& host, int port, int timeout_ms,
                        bool blocking);

}  // namespace memstand
