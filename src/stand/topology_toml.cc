#include "stand/topology_toml.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <toml++/toml.h>

#include "relay/relay_options.h"
#include "util/parse.h"
#include "util/redact.h"

namespace memstand {
namespace {

constexpr const char* kKnownKeys =
    "kind, name, masters, replicas, sentinels, members, storages, routers, port, peer_port, binary, init_lua, "
    "ready_timeout, [settings], [relay]";
constexpr const char* kRelayKeys =
    "node, port, delay, delay_back, mode, jitter, seed, rate, nodelay, binary";

Status Bad(const std::string& source, const std::string& what) {
  return Status::InvalidArgument(source + ": " + what);
}

Status ReadInt(const toml::node& node, const std::string& source, const std::string& key,
               int* out) {
  auto v = node.value<int64_t>();
  if (!node.is_integer() || !v || *v < INT32_MIN || *v > INT32_MAX) {
    return Bad(source, "'" + key + "' must be an integer");
  }
  *out = static_cast<int>(*v);
  return Status::OK();
}

Status ReadString(const toml::node& node, const std::string& source, const std::string& key,
                  std::string* out) {
  if (!node.is_string()) return Bad(source, "'" + key + "' must be a string");
  *out = *node.value<std::string>();
  return Status::OK();
}

// "20s" or a number of seconds.
Status ReadTimeout(const toml::node& node, const std::string& source, int* out_ms) {
  double seconds = 0;
  if (node.is_string()) {
    auto d = ParseDurationSeconds(*node.value<std::string>());
    if (!d.ok()) return Bad(source, "ready_timeout: " + d.status().message());
    seconds = *d;
  } else if (node.is_number()) {
    seconds = *node.value<double>();
  } else {
    return Bad(source, "'ready_timeout' must be a duration such as \"20s\"");
  }
  *out_ms = static_cast<int>(std::llround(seconds * 1000));
  return Status::OK();
}

// A settings value as the server's text: booleans as the server spells them.
Status SettingText(const toml::node& node, bool redis, const std::string& source,
                   const std::string& key, std::string* out) {
  if (node.is_string()) {
    *out = *node.value<std::string>();
  } else if (node.is_integer()) {
    *out = std::to_string(*node.value<int64_t>());
  } else if (node.is_floating_point()) {
    std::ostringstream s;
    s << *node.value<double>();
    *out = s.str();
  } else if (node.is_boolean()) {
    bool b = *node.value<bool>();
    *out = redis ? (b ? "yes" : "no") : (b ? "true" : "false");
  } else {
    return Bad(source, "settings." + key + " must be a string, number or boolean");
  }
  return Status::OK();
}

Status ReadSettings(const toml::node& node, TopologySpec* spec, const std::string& source) {
  const toml::table* table = node.as_table();
  if (table == nullptr) return Bad(source, "'settings' must be a table ([settings])");
  const bool redis = spec->kind == TopologyKind::kRedis ||
                     spec->kind == TopologyKind::kRedisReplica ||
                     spec->kind == TopologyKind::kRedisCluster ||
                     spec->kind == TopologyKind::kRedisSentinel;
  for (const auto& [key, value] : *table) {
    std::string text;
    if (Status s = SettingText(value, redis, source, std::string(key.str()), &text); !s.ok()) return s;
    if (IsSecretKey(key.str())) RegisterSecret(text);  // no message shows it (util/redact.h)
    spec->settings.emplace_back(std::string(key.str()), text);
  }
  return Status::OK();
}

// relay.KEY = "20ms" (a duration), checked here so a bad value names the file.
Status ReadRelayDuration(const toml::node& node, const std::string& source, const std::string& key,
                         RelaySpec* relay) {
  std::string text;
  if (Status s = ReadString(node, source, "relay." + key, &text); !s.ok()) return s;
  auto d = ParseDurationSeconds(text);
  if (!d.ok()) return Bad(source, "relay." + key + ": " + d.status().message());
  std::string flag = "--" + key;
  std::replace(flag.begin(), flag.end(), '_', '-');
  relay->args.insert(relay->args.end(), {flag, text});
  return Status::OK();
}

Status ReadRelayKey(const std::string& key, const toml::node& node, const std::string& source,
                    RelaySpec* relay) {
  if (key == "node") return ReadString(node, source, "relay.node", &relay->node);
  if (key == "binary") return ReadString(node, source, "relay.binary", &relay->binary);
  if (key == "port") return ReadInt(node, source, "relay.port", &relay->port);
  if (key == "delay" || key == "delay_back" || key == "jitter") {
    return ReadRelayDuration(node, source, key, relay);
  }
  if (key == "mode" || key == "rate") {
    std::string text;
    if (Status s = ReadString(node, source, "relay." + key, &text); !s.ok()) return s;
    Status s = key == "mode" ? ParseRelayMode(text).status() : ParseRate(text).status();
    if (!s.ok()) return Bad(source, "relay." + key + ": " + s.message());
    relay->args.insert(relay->args.end(), {"--" + key, text});
    return Status::OK();
  }
  if (key == "seed") {
    auto v = node.value<int64_t>();
    if (!node.is_integer() || !v || *v < 0)
      return Bad(source, "'relay.seed' must be an integer >= 0");
    relay->args.insert(relay->args.end(), {"--seed", std::to_string(*v)});
    return Status::OK();
  }
  if (key == "nodelay") {
    if (!node.is_boolean()) return Bad(source, "'relay.nodelay' must be true or false");
    if (!*node.value<bool>()) relay->args.push_back("--no-nodelay");
    return Status::OK();
  }
  return Bad(source, "unknown key 'relay." + key + "'; known: " + kRelayKeys);
}

Status ReadRelay(const toml::node& node, TopologySpec* spec, const std::string& source) {
  const toml::table* table = node.as_table();
  if (table == nullptr) return Bad(source, "'relay' must be a table ([relay])");
  spec->relay.enabled = true;
  for (const auto& [key, value] : *table) {
    if (Status s = ReadRelayKey(std::string(key.str()), value, source, &spec->relay); !s.ok()) {
      return s;
    }
  }
  return Status::OK();
}

Status ReadKey(const std::string& key, const toml::node& node, TopologySpec* spec,
               const std::string& source, const std::string& base_dir) {
  if (key == "kind") return Status::OK();  // read first
  if (key == "name") return ReadString(node, source, key, &spec->name);
  if (key == "masters") {
    if (Status s = ReadInt(node, source, key, &spec->masters); !s.ok()) return s;
    if (spec->masters == 0) return Bad(source, "masters = 0: a cluster needs at least 1 master");
    return Status::OK();
  }
  if (key == "replicas") {
    if (Status s = ReadInt(node, source, key, &spec->replicas); !s.ok()) return s;
    if (spec->replicas < 0) return Bad(source, "replicas must be 0 or more");
    return Status::OK();
  }
  if (key == "members") {
    if (Status s = ReadInt(node, source, key, &spec->members); !s.ok()) return s;
    if (spec->members < 1) return Bad(source, "members must be 1 or more");
    return Status::OK();
  }
  if (key == "storages" || key == "routers") {
    int* count = key == "storages" ? &spec->storages : &spec->routers;
    if (Status s = ReadInt(node, source, key, count); !s.ok()) return s;
    if (*count < 1) return Bad(source, key + " must be 1 or more");
    return Status::OK();
  }
  if (key == "sentinels") {
    if (Status s = ReadInt(node, source, key, &spec->sentinels); !s.ok()) return s;
    if (spec->sentinels < 1) return Bad(source, "sentinels must be 1 or more");
    return Status::OK();
  }
  if (key == "port") return ReadInt(node, source, key, &spec->port);
  if (key == "peer_port") return ReadInt(node, source, key, &spec->peer_port);
  if (key == "binary") return ReadString(node, source, key, &spec->binary);
  if (key == "ready_timeout") return ReadTimeout(node, source, &spec->ready_timeout_ms);
  if (key == "settings") return ReadSettings(node, spec, source);
  if (key == "relay") return ReadRelay(node, spec, source);
  if (key == "init_lua") {
    if (Status s = ReadString(node, source, key, &spec->init_lua); !s.ok()) return s;
    std::filesystem::path p(spec->init_lua);
    if (p.is_relative() && !base_dir.empty()) spec->init_lua = (base_dir / p).string();
    return Status::OK();
  }
  return Bad(source, "unknown key '" + key + "'; known: " + kKnownKeys);
}

}  // namespace

Result<TopologySpec> ParseTopologyToml(std::string_view text, const std::string& source,
                                       const std::string& base_dir) {
  toml::table table;
  try {
    table = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return Bad(source + ":" + std::to_string(where.line) + ":" + std::to_string(where.column),
               std::string(e.description()));
  }
  TopologySpec spec;
  const toml::node* kind = table.get("kind");
  if (kind == nullptr) return Bad(source, "missing 'kind' (one of " + KnownTopologyKinds() + ")");
  std::string kind_name;
  if (Status s = ReadString(*kind, source, "kind", &kind_name); !s.ok()) return s;
  auto parsed = ParseTopologyKind(kind_name);
  if (!parsed.ok()) return parsed.status().WithContext(source);
  spec.kind = *parsed;
  for (const auto& [key, value] : table) {
    if (Status s = ReadKey(std::string(key.str()), value, &spec, source, base_dir); !s.ok()) return s;
  }
  return spec;
}

Result<TopologySpec> LoadTopologyFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument("--file '" + path + "': cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  std::error_code ec;
  std::string base = std::filesystem::absolute(path, ec).parent_path().string();
  return ParseTopologyToml(text.str(), path, base);
}

}  // namespace memstand
