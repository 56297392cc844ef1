#include "stand/tarantool_driver.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "stand/probe_io.h"
#include "stand/proc_identity.h"
#include "stand/server_node.h"
#include "util/parse.h"

namespace memstand {
namespace {

constexpr size_t kGreetingBytes = 128;  // IPROTO: two 64-byte lines
constexpr char kReadyLine[] = "memstand: ready, pid ";

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

bool IsNumber(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// A setting as a Lua value (see the class comment).
Result<std::string> LuaValue(const std::string& key, const std::string& value) {
  if (value == "true" || value == "false" || IsNumber(value)) return value;
  if (key.ends_with("_memory")) {
    auto bytes = ParseByteSize(value);
    if (!bytes.ok()) return bytes.status().WithContext("--set " + key);
    return std::to_string(*bytes);
  }
  return LuaString(value);
}

}  // namespace

Result<std::string> TarantoolDriver::InitLua(const std::string& host, int port) const {
  std::string lua =
      "-- Written by memstand: box.cfg from the topology, then the user's init file.\n"
      "local log = require('log')\n"
      "local fiber = require('fiber')\n"
      "box.cfg{\n"
      "  listen = " + LuaString(host + ":" + std::to_string(port)) + ",\n";
  for (const auto& [key, value] : settings_) {
    auto lua_value = LuaValue(key, value);
    if (!lua_value.ok()) return lua_value.status();
    lua += "  " + key + " = " + *lua_value + ",\n";
  }
  lua += "}\n";
  if (!user_init_.empty()) {
    std::error_code ec;
    lua += "dofile(" + LuaString(std::filesystem::absolute(user_init_, ec).string()) + ")\n";
  }
  lua +=
      "fiber.create(function()\n"
      "  while box.info.status ~= 'running' do fiber.sleep(0.01) end\n"
      "  log.info('" + std::string(kReadyLine) + "%d, status %s', box.info.pid, box.info.status)\n"
      "end)\n";
  return lua;
}

Result<std::vector<std::string>> TarantoolDriver::Prepare(const NodeLaunch& launch) const {
  auto lua = InitLua(launch.host, launch.ports.at(0));
  if (!lua.ok()) return lua.status();
  std::string path = launch.dir + "/init.lua";
  std::ofstream out(path, std::ios::trunc);
  out << *lua;
  out.close();
  if (!out) return Status::IoError("cannot write " + path);
  std::vector<std::string> argv = {launch.binary_path, "init.lua"};
  argv.insert(argv.end(), launch.role_args.begin(), launch.role_args.end());
  return argv;
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
  for (const char* sign : {"ER_CFG", "Incorrect value for option", "LuajitError"}) {
    if (log_tail.find(sign) != std::string::npos) return true;
  }
  return false;
}

}  // namespace memstand
