#include "load/target.h"

#include <charconv>

#include "util/redact.h"

namespace memstand {

namespace {

// The URL is quoted without its password (util/redact.h), and cut if long.
Status Bad(std::string_view url, const std::string& what) {
  return Status::InvalidArgument("invalid target '" + Abbreviate(RedactUrl(url)) + "': " + what +
                                 " (expected redis://[user:pass@]host:port[/db], "
                                 "memcache://host:port, etcd://host:port or "
                                 "tarantool://[user:pass@]host:port)");
}

struct Scheme {
  std::string_view name;
  int default_port;
};
constexpr Scheme kSchemes[] = {
    {"redis", 6379}, {"memcache", 11211}, {"etcd", 2379}, {"tarantool", 3301}};

bool ParseInt(std::string_view s, int lo, int hi, int* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out >= lo && *out <= hi;
}

}  // namespace

std::string RedisTarget::Display() const {
  // Built with append: g++ 12 warns (-Wrestrict, a false positive) on "[" + host + "]".
  std::string s = scheme + "://";
  if (!user.empty()) s.append(user).append("@");
  bool v6 = host.find(':') != std::string::npos;
  if (v6) s.append("[");
  s.append(host);
  if (v6) s.append("]");
  s.append(":").append(std::to_string(port));
  if (db != 0) s.append("/").append(std::to_string(db));
  return s;
}

Result<RedisTarget> ParseRedisUrl(std::string_view url) {
  if (!url.starts_with("redis://")) return Bad(url, "the scheme must be redis://");
  return ParseTargetUrl(url);
}

Result<RedisTarget> ParseTargetUrl(std::string_view url) {
  RedisTarget t;
  const Scheme* scheme = nullptr;
  for (const Scheme& s : kSchemes) {
    if (url.starts_with(s.name) && url.substr(s.name.size()).starts_with("://")) scheme = &s;
  }
  if (scheme == nullptr) return Bad(url, "unknown scheme");
  t.scheme = std::string(scheme->name);
  t.port = scheme->default_port;
  std::string_view rest = url.substr(scheme->name.size() + 3);
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view cred = rest.substr(0, at);
    rest = rest.substr(at + 1);
    size_t colon = cred.find(':');
    if (colon == std::string_view::npos) {
      // redis://pass@host, as redis-cli -u accepts; tarantool://user@host, as tarantoolctl.
      (t.scheme == "tarantool" ? t.user : t.password) = std::string(cred);
    } else {
      t.user = std::string(cred.substr(0, colon));
      t.password = std::string(cred.substr(colon + 1));
    }
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
  std::string_view host, port;
  if (!rest.empty() && rest.front() == '[') {
    size_t close = rest.find(']');
    if (close == std::string_view::npos) return Bad(url, "unbalanced [ in host");
    host = rest.substr(1, close - 1);
    rest = rest.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return Bad(url, "junk after ]");
    port = rest.empty() ? "" : rest.substr(1);
  } else {
    size_t colon = rest.rfind(':');
    host = rest.substr(0, colon);
    port = colon == std::string_view::npos ? "" : rest.substr(colon + 1);
  }
  if (host.empty()) return Bad(url, "missing host");
  t.host = std::string(host);
  if (!port.empty() && !ParseInt(port, 1, 65535, &t.port)) {
    return Bad(url, "port must be 1..65535");
  }
  return t;
}

}  // namespace memstand
