#include "load/target.h"

#include <algorithm>
#include <charconv>

#include "core/socket.h"
#include "util/redact.h"

namespace memstand {

namespace {

// The URL is quoted without its password (util/redact.h), and cut if long.
Status Bad(std::string_view url, const std::string& what) {
  return Status::InvalidArgument("invalid target '" + Abbreviate(RedactUrl(url)) + "': " + what +
                                 " (expected redis://[user:pass@]host:port[/db], "
                                 "rediss:// (the same over TLS), "
                                 "memcache://host:port, etcd://host:port (each over TLS "
                                 "as memcache+tls://, etcd+tls://), "
                                 "tarantool://[user:pass@]host:port, unix:///path, "
                                 "redis+unix://[user:pass@]/path[?db=N], "
                                 "memcache+unix:///path or redis+sentinel://[user:pass@]"
                                 "host:port[,host:port...]/master-name[?db=N] or "
                                 "tarantool+rw://[user:pass@]host:port[,host:port...])");
}

struct Scheme {
  std::string_view name;
  int default_port;
};
constexpr Scheme kSchemes[] = {
    {"redis", 6379},      {"rediss", 6379},   {"memcache", 11211}, {"memcache+tls", 11211},
    {"etcd", 2379},       {"etcd+tls", 2379}, {"tarantool", 3301}};

// A Unix socket's URL scheme and the protocol scheme it stands for.
struct UnixScheme {
  std::string_view name;
  std::string_view scheme;
};
constexpr UnixScheme kUnixSchemes[] = {
    {"unix", "redis"}, {"redis+unix", "redis"}, {"memcache+unix", "memcache"}};

bool ParseInt(std::string_view s, int lo, int hi, int* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out >= lo && *out <= hi;
}

// The userinfo before '@': "user:pass", ":pass", or one word alone, which is the
// password (redis://pass@host, as redis-cli -u) or, when `alone_is_user`, the user
// (tarantool://user@host, as tarantoolctl).
void ReadCredentials(std::string_view cred, bool alone_is_user, RedisTarget* t) {
  const size_t colon = cred.find(':');
  if (colon == std::string_view::npos) {
    (alone_is_user ? t->user : t->password) = std::string(cred);
    return;
  }
  t->user = std::string(cred.substr(0, colon));
  t->password = std::string(cred.substr(colon + 1));
}

// "?db=N" after a path: the database number.
Status ReadDbQuery(std::string_view url, std::string_view query, int* db) {
  if (!query.starts_with("db=") || !ParseInt(query.substr(3), 0, 1 << 20, db)) {
    return Bad(url, "the query must be db=N (a database number)");
  }
  return Status::OK();
}

// "host[:port]" or "[v6][:port]"; `port` is left as it is when none is given.
Status ReadHostPort(std::string_view url, std::string_view rest, std::string* host, int* port) {
  std::string_view h, p;
  if (!rest.empty() && rest.front() == '[') {
    size_t close = rest.find(']');
    if (close == std::string_view::npos) return Bad(url, "unbalanced [ in host");
    h = rest.substr(1, close - 1);
    rest = rest.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return Bad(url, "junk after ]");
    p = rest.empty() ? "" : rest.substr(1);
  } else {
    size_t colon = rest.rfind(':');
    h = rest.substr(0, colon);
    p = colon == std::string_view::npos ? "" : rest.substr(colon + 1);
  }
  if (h.empty()) return Bad(url, "missing host");
  *host = std::string(h);
  if (!p.empty() && !ParseInt(p, 1, 65535, port)) return Bad(url, "port must be 1..65535");
  return Status::OK();
}

// "host:port", a v6 host in brackets.
void AppendHostPort(const std::string& host, int port, std::string* s) {
  // Built with append: g++ 12 warns (-Wrestrict, a false positive) on "[" + host + "]".
  const bool v6 = host.find(':') != std::string::npos;
  if (v6) s->append("[");
  s->append(host);
  if (v6) s->append("]");
  s->append(":").append(std::to_string(port));
}

constexpr int kSentinelPort = 26379;  // redis-sentinel's default
constexpr int kTarantoolPort = 3301;

// "host[:port][,host[:port]...]" into *out, each port `default_port` unless given;
// `what` names a member in the errors.
Status ReadHostList(std::string_view url, std::string_view hosts, int default_port, const std::string& what,
                    std::vector<std::pair<std::string, int>>* out) {
  for (size_t from = 0; from <= hosts.size();) {
    const size_t comma = std::min(hosts.find(',', from), hosts.size());
    std::pair<std::string, int> one{"", default_port};
    const std::string_view text = hosts.substr(from, comma - from);
    if (text.empty()) return Bad(url, "an empty " + what + " in the list (two commas, or one at an end)");
    Status s = ReadHostPort(url, text, &one.first, &one.second);
    if (!s.ok()) return s;
    out->push_back(std::move(one));
    from = comma + 1;
  }
  return Status::OK();
}

// The part after "tarantool+rw://": [user:pass@]host[:port][,host[:port]...].
Result<RedisTarget> ParseRwPoolUrl(std::string_view url, std::string_view rest) {
  RedisTarget t;
  t.scheme = "tarantool";
  t.host.clear();  // the writable member's, once the members are asked
  t.port = 0;
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) {
    ReadCredentials(rest.substr(0, at), true, &t);
    rest = rest.substr(at + 1);
  }
  if (rest.find('/') != std::string_view::npos || rest.find('?') != std::string_view::npos) {
    return Bad(url, "tarantool+rw:// takes host:port members and no path or query");
  }
  if (rest.empty()) return Bad(url, "no member: give host:port[,host:port...] after the scheme");
  Status s = ReadHostList(url, rest, kTarantoolPort, "member", &t.rw_members);
  if (!s.ok()) return s;
  return t;
}

// The part after "redis+sentinel://": [user:pass@]host[:port][,host[:port]...]/name
// [?db=N].
Result<RedisTarget> ParseSentinelUrl(std::string_view url, bool tls, std::string_view rest) {
  RedisTarget t;
  t.tls = tls;
  t.host.clear();  // the primary's, once the Sentinels are asked
  t.port = 0;
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) {
    ReadCredentials(rest.substr(0, at), false, &t);
    rest = rest.substr(at + 1);
  }
  const size_t slash = rest.find('/');
  std::string_view hosts = rest.substr(0, slash);
  std::string_view name = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
  if (size_t q = name.find('?'); q != std::string_view::npos) {
    Status s = ReadDbQuery(url, name.substr(q + 1), &t.db);
    if (!s.ok()) return s;
    name = name.substr(0, q);
  }
  if (hosts.empty()) return Bad(url, "no Sentinel: give host:port[,host:port...] after the scheme");
  if (name.empty()) return Bad(url, "missing the master name, as in .../mymaster after the Sentinels");
  if (name.find('/') != std::string_view::npos) {
    return Bad(url, "the master name is one path segment (a database goes in ?db=N)");
  }
  Status s = ReadHostList(url, hosts, kSentinelPort, "Sentinel", &t.sentinels);
  if (!s.ok()) return s;
  t.master_name = std::string(name);
  return t;
}

// The part after "<scheme>://" of a Unix socket URL: [user:pass@]/path[?db=N].
Result<RedisTarget> ParseUnixUrl(std::string_view url, std::string_view scheme,
                                 std::string_view rest) {
  RedisTarget t;
  t.scheme = std::string(scheme);
  const size_t slash = rest.find('/');
  std::string_view before = rest.substr(0, slash);
  if (!before.empty() && before.back() == '@') {
    if (t.scheme != "redis") return Bad(url, t.scheme + "+unix:// takes no user or password");
    before.remove_suffix(1);
    ReadCredentials(before, false, &t);
  } else if (!before.empty()) {
    return Bad(url, "a Unix socket URL has a path and no host ('" + std::string(before) +
                        "'): three slashes, as in unix:///run/redis.sock");
  }
  if (slash == std::string_view::npos) return Bad(url, "missing the socket's path");
  std::string_view path = rest.substr(slash);
  if (size_t q = path.rfind('?'); q != std::string_view::npos) {
    std::string_view query = path.substr(q + 1);
    path = path.substr(0, q);
    if (t.scheme != "redis") return Bad(url, t.scheme + "+unix:// takes no query");
    Status s = ReadDbQuery(url, query, &t.db);
    if (!s.ok()) return s;
  }
  Status s = CheckUnixPath(path);
  if (!s.ok()) return Bad(url, s.message());
  t.unix_path = std::string(path);
  return t;
}

}  // namespace

Status CheckUnixPath(std::string_view path) {
  if (path.empty()) return Status::InvalidArgument("empty socket path");
  if (path.front() != '/') {
    return Status::InvalidArgument("the socket path must be absolute (begin with /)");
  }
  if (path.back() == '/') return Status::InvalidArgument("the socket path names a directory");
  if (path.size() > kMaxUnixPath) {
    return Status::InvalidArgument("the socket path is " + std::to_string(path.size()) +
                                   " bytes; a Unix socket address holds at most " +
                                   std::to_string(kMaxUnixPath));
  }
  return Status::OK();
}

Result<int> ConnectNode(const RedisTarget& t, const std::string& host, int port, int timeout_ms,
                        bool blocking) {
  const bool unix_socket = !t.unix_path.empty();
  auto fd = unix_socket ? ConnectUnix(t.unix_path, timeout_ms, blocking)
                        : ConnectTcp(host, port, timeout_ms, blocking);
  if (fd.ok()) return fd;
  // ConnectUnix's error begins with the path, ConnectTcp's with host:port.
  return fd.status().WithContext(unix_socket ? "connecting to Unix socket"
                                             : "connecting to " + host + ":" + std::to_string(port));
}

std::string RedisTarget::Address() const {
  return unix_path.empty() ? host + ":" + std::to_string(port) : unix_path;
}

std::string RedisTarget::Display() const {
  if (!unix_path.empty()) {
    std::string s = scheme + "+unix://";
    if (!user.empty()) s.append(user).append("@");
    s.append(unix_path);
    if (db != 0) s.append("?db=").append(std::to_string(db));
    return s;
  }
  if (sentinel()) {
    std::string s = tls ? "rediss+sentinel://" : "redis+sentinel://";
    if (!user.empty()) s.append(user).append("@");
    for (size_t i = 0; i < sentinels.size(); ++i) {
      if (i > 0) s.append(",");
      AppendHostPort(sentinels[i].first, sentinels[i].second, &s);
    }
    s.append("/").append(master_name);
    if (db != 0) s.append("?db=").append(std::to_string(db));
    return s;
  }
  if (rw_pool()) {
    std::string s = "tarantool+rw://";
    if (!user.empty()) s.append(user).append("@");
    for (size_t i = 0; i < rw_members.size(); ++i) {
      if (i > 0) s.append(",");
      AppendHostPort(rw_members[i].first, rw_members[i].second, &s);
    }
    return s;
  }
  std::string s = scheme + (!tls ? "://" : scheme == "redis" ? "s://" : "+tls://");
  if (!user.empty()) s.append(user).append("@");
  AppendHostPort(host, port, &s);
  if (db != 0) s.append("/").append(std::to_string(db));
  return s;
}

Result<RedisTarget> ParseRedisUrl(std::string_view url) {
  if (!url.starts_with("redis://")) return Bad(url, "the scheme must be redis://");
  return ParseTargetUrl(url);
}

Result<RedisTarget> ParseTargetUrl(std::string_view url) {
  for (const UnixScheme& u : kUnixSchemes) {
    if (url.starts_with(u.name) && url.substr(u.name.size()).starts_with("://")) {
      return ParseUnixUrl(url, u.scheme, url.substr(u.name.size() + 3));
    }
  }
  for (std::string_view tls_unix : {"rediss+unix://", "memcache+tls+unix://", "memcache+unix+tls://"}) {
    if (url.starts_with(tls_unix)) {
      return Bad(url, "TLS is for TCP targets (rediss://, memcache+tls://host:port), not Unix sockets");
    }
  }
  for (const bool tls : {false, true}) {
    const std::string_view sentinel = tls ? "rediss+sentinel://" : "redis+sentinel://";
    if (url.starts_with(sentinel)) return ParseSentinelUrl(url, tls, url.substr(sentinel.size()));
  }
  if (url.starts_with("tarantool+rw://")) return ParseRwPoolUrl(url, url.substr(std::string_view("tarantool+rw://").size()));
  if (url.starts_with("etcd+unix://") || url.starts_with("tarantool+unix://")) {
    return Bad(url, "Unix sockets are for Redis (RESP) and memcached targets");
  }
  RedisTarget t;
  const Scheme* scheme = nullptr;
  for (const Scheme& s : kSchemes) {
    if (url.starts_with(s.name) && url.substr(s.name.size()).starts_with("://")) scheme = &s;
  }
  if (scheme == nullptr) return Bad(url, "unknown scheme");
  t.scheme = std::string(scheme->name);
  if (t.scheme == "rediss") t.scheme = "redis+tls";
  if (t.scheme.ends_with("+tls")) {
    t.scheme.resize(t.scheme.size() - 4);
    t.tls = true;
  }
  t.port = scheme->default_port;
  std::string_view rest = url.substr(scheme->name.size() + 3);
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) {
    ReadCredentials(rest.substr(0, at), t.scheme == "tarantool", &t);
    rest = rest.substr(at + 1);
  }
  if ((t.scheme == "memcache" || t.scheme == "etcd") && url.find('@') != std::string_view::npos) {
    return Bad(url, t.scheme + ":// takes no user or password");
  }
  if (size_t slash = rest.find('/'); slash != std::string_view::npos) {
    if (t.scheme != "redis" && rest.substr(slash) != "/") return Bad(url, "a path is for redis:// only");
    std::string_view db = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
    if (!db.empty() && !ParseInt(db, 0, 1 << 20, &t.db)) return Bad(url, "bad database number");
  }
  Status s = ReadHostPort(url, rest, &t.host, &t.port);
  if (!s.ok()) return s;
  return t;
}

}  // namespace memstand
