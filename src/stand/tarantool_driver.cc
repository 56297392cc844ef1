#include "stand/tarantool_driver.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "stand/probe_io.h"
#include "stand/proc_identity.h"
#include "stand/server_node.h"
#include "stand/shard_lua.h"
#include "util/parse.h"

namespace memstand {
namespace {

constexpr size_t kGreetingBytes = 128;  // IPROTO: two 64-byte lines
constexpr char kReadyLine[] = "memstand: ready, pid ";
constexpr char kReplicationLine[] = "memstand: replication ready, pid ";
constexpr char kMasterRole[] = "replicaset-master";
constexpr char kReplicaRole[] = "replicaset-replica";

bool IsNumber(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// A setting as a Lua value (see the class comment).
Result<std::string> LuaValue(const std::string& key, const std::string& value) {
  if (value == "true" || value == "false" || IsNumber(value)) return value;
  if (key.ends_with("_memory") || key == "vinyl_cache") {
    auto bytes = ParseByteSize(value);
    if (!bytes.ok()) return bytes.status().WithContext("--set " + key);
    return std::to_string(*bytes);
  }
  return LuaString(value);
}

// The replica set members in role_args (ReplicaSetRoleArgs) as Lua strings, up to and
// including `self` (all of them if it is not among them).
std::string LuaUris(const std::vector<std::string>& role_args, const std::string& self) {
  std::string uris;
  for (size_t i = 1; i < role_args.size(); ++i) {
    if (i > 1) uris += ", ";
    uris += LuaString(role_args[i]);
    if (role_args[i] == self) break;
  }
  return "{" + uris + "}";
}

// The fiber that puts every member in box.cfg.replication once all have joined, then
// logs kReplicationLine once this member's replication is in place.
std::string ReplicationWait(const std::vector<std::string>& role_args, bool master) {
  const size_t peers = role_args.size() - 2;
  const std::string check =
      master ? "      local d = r.downstream\n"
               "      if r.upstream ~= nil and r.upstream.status == 'follow' and d ~= nil and\n"
               "         d.status == 'follow' and d.vclock ~= nil and\n"
               "         (d.vclock[box.info.id] or 0) >= (box.info.vclock[box.info.id] or 0) then\n"
               "        n = n + 1\n"
               "      end\n"
             : "      if r.upstream ~= nil and r.upstream.status == 'follow' then n = n + 1 end\n";
  return "fiber.create(function()\n"
         "  local function members()\n"
         "    local n = 0\n"
         "    for _ in pairs(box.info.replication) do n = n + 1 end\n"
         "    return n\n"
         "  end\n"
         "  local function following()\n"
         "    local n = 0\n"
         "    for id, r in pairs(box.info.replication) do\n"
         "      if id ~= box.info.id then\n" + check +
         "      end\n"
         "    end\n"
         "    return n\n"
         "  end\n"
         "  while members() < " + std::to_string(peers + 1) + " do fiber.sleep(0.01) end\n"
         "  local ok, err = pcall(box.cfg, {replication = " + LuaUris(role_args, "") + "})\n"
         "  if not ok then log.error('memstand: box.cfg{replication = every member} failed: %s', err) return end\n"
         "  while following() < " + std::to_string(peers) + " do fiber.sleep(0.01) end\n"
         "  log.info('" + std::string(kReplicationLine) + "%d, %d peers follow, vclock %s', box.info.pid, " +
         std::to_string(peers) + ", require('json').encode(box.info.vclock))\n"
         "end)\n";
}

// Logs kReadyLine once box.info.status is running (TarantoolDriver::Probe waits for it).
std::string ReadyFiber() {
  return "fiber.create(function()\n"
         "  while box.info.status ~= 'running' do fiber.sleep(0.01) end\n"
         "  log.info('" + std::string(kReadyLine) + "%d, status %s', box.info.pid, box.info.status)\n"
         "end)\n";
}

}  // namespace

std::string LuaString(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\\' || c == '\'') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "'";
}

std::vector<std::string> ReplicaSetRoleArgs(bool master, const std::vector<std::string>& uris) {
  std::vector<std::string> args = {master ? kMasterRole : kReplicaRole};
  args.insert(args.end(), uris.begin(), uris.end());
  return args;
}

std::string ReplicationReadyLine(pid_t pid) { return kReplicationLine + std::to_string(pid) + ","; }

Result<std::string> TarantoolDriver::BoxCfg(const std::string& host, int port,
                                             const std::vector<std::string>& member_args) const {
  const bool member = !member_args.empty();
  std::string lua =
      "-- Written by memstand: box.cfg from the topology, then the user's init file.\n"
      "local log = require('log')\n"
      "local fiber = require('fiber')\n"
      "box.cfg{\n"
      "  listen = " + LuaString(host + ":" + std::to_string(port)) + ",\n";
  if (member) {
    lua += "  replication = " + LuaUris(member_args, host + ":" + std::to_string(port)) + ",\n";
    if (member_args[0] != kMasterRole) lua += "  read_only = true,\n";
  }
  for (const auto& [key, value] : settings_) {
    auto lua_value = LuaValue(key, value);
    if (!lua_value.ok()) return lua_value.status();
    lua += "  " + key + " = " + *lua_value + ",\n";
  }
  return lua + "}\n";
}

Result<std::string> TarantoolDriver::InitLua(const std::string& host, int port,
                                             const std::vector<std::string>& role_args) const {
  const ShardRole shard = ShardRoleOf(role_args);
  // A router is no replica set member: its own box.cfg, guest access, the router.
  if (shard == ShardRole::kRouter) {
    auto router = ShardRouterLua(role_args);
    auto cfg = BoxCfg(host, port, {});
    if (!router.ok() || !cfg.ok()) return !cfg.ok() ? cfg.status() : router.status();
    return *cfg + "box.schema.user.grant('guest', 'super', nil, nil, {if_not_exists = true})\n" + *router +
           ReadyFiber();
  }
  // A storage is a replica set member with the storage layer on top.
  const std::vector<std::string> member_args = shard == ShardRole::kNone ? role_args : StorageAsMember(role_args);
  const bool member = !member_args.empty();
  if (member && ((member_args[0] != kMasterRole && member_args[0] != kReplicaRole) || member_args.size() < 2)) {
    return Status::InvalidArgument("tarantool: role arguments are not a replica set member's");
  }
  const bool master = !member || member_args[0] == kMasterRole;
  auto cfg = BoxCfg(host, port, member_args);
  if (!cfg.ok()) return cfg.status();
  std::string lua = *cfg;
  if (member && master) {
    lua += "box.schema.user.grant('guest', 'super', nil, nil, {if_not_exists = true})\n";
  }
  if (shard != ShardRole::kNone) lua += ShardStorageLua(master);
  if (!user_init_.empty() && master) {
    std::error_code ec;
    lua += "dofile(" + LuaString(std::filesystem::absolute(user_init_, ec).string()) + ")\n";
  }
  lua += ReadyFiber();
  if (member) lua += ReplicationWait(member_args, master);
  return lua;
}

Result<std::vector<std::string>> TarantoolDriver::Prepare(const NodeLaunch& launch) const {
  auto lua = InitLua(launch.host, launch.ports.at(0), launch.role_args);
  if (!lua.ok()) return lua.status();
  std::string path = launch.dir + "/init.lua";
  std::ofstream out(path, std::ios::trunc);
  out << *lua;
  out.close();
  if (!out) return Status::IoError("cannot write " + path);
  return std::vector<std::string>{launch.binary_path, "init.lua"};
}

Status TarantoolDriver::Probe(const NodeLaunch& launch, pid_t pid, std::string* version,
                              bool* port_taken) const {
  auto greeting = Exchange(
      launch.host, launch.ports.at(0), "",
      [](const std::string& g) { return g.size() >= kGreetingBytes; }, kProbeTimeoutMs);
  if (!greeting.ok()) return greeting.status();
  if (!greeting->starts_with("Tarantool ")) {
    return Status::Protocol("not an IPROTO greeting: " + greeting->substr(0, 64));
  }
  if (!ListensOn(pid, launch.ports[0])) {
    *port_taken = true;
    return Status::IoError(launch.host + ":" + std::to_string(launch.ports[0]) +
                           " is served by another process");
  }
  std::string ready = kReadyLine + std::to_string(pid) + ", status running";
  if (FileTail(launch.log_path, 1000).find(ready) == std::string::npos) {
    return Status::IoError("greeting received, box.info.status not running yet");
  }
  size_t space = greeting->find(' ', 10);
  *version = greeting->substr(10, space == std::string::npos ? 0 : space - 10);
  return Status::OK();
}

bool TarantoolDriver::ConfigRejected(const std::string& log_tail) const {
  // "can't initialize storage: Failed to allocate": a memtx_memory too small to start
  // (1k); a fresh folder leaves no other cause.
  for (const char* sign : {"ER_CFG", "Incorrect value for option", "LuajitError",
                           "can't initialize storage: Failed to allocate"}) {
    if (log_tail.find(sign) != std::string::npos) return true;
  }
  return false;
}

}  // namespace memstand
