#include "stand/local_server.h"

#include <filesystem>
#include <fstream>

#include "stand/etcd_driver.h"
#include "stand/memcached_driver.h"
#include "stand/tarantool_driver.h"
#include "stand/temp_folder.h"

namespace memstand {

namespace {

namespace fs = std::filesystem;

constexpr const char* kTarantoolInit =
    "box.schema.user.grant('guest', 'read,write,execute', 'universe', nil, {if_not_exists = true})\n"
    "local s = box.schema.space.create('memstand', {if_not_exists = true})\n"
    "s:create_index('primary', {type = 'hash', parts = {1, 'string'}, if_not_exists = true})\n";

}  // namespace

Result<std::unique_ptr<LocalServer>> LocalServer::Start(const std::string& kind,
                                                         const std::string& binary) {
  std::unique_ptr<LocalServer> server(new LocalServer());
  server->kind_ = kind;
  std::shared_ptr<const ServerDriver> driver;
  auto dir = MakeTempFolder(kind);
  if (!dir.ok()) return dir.status();
  server->dir_ = *dir;
  if (kind == "memcached") {
    driver = std::make_shared<MemcachedDriver>(std::vector<std::pair<std::string, std::string>>{});
  } else if (kind == "etcd") {
    driver = std::make_shared<EtcdDriver>(std::vector<std::pair<std::string, std::string>>{});
  } else {
    const std::string init = server->dir_ + "/memstand_init.lua";
    std::ofstream(init) << kTarantoolInit;
    driver = std::make_shared<TarantoolDriver>(std::vector<std::pair<std::string, std::string>>{}, init);
  }
  if (!FindExecutable(binary.empty() ? driver->DefaultBinary() : binary).ok()) {
    return MissingBinary(binary.empty() ? driver->DefaultBinary() : binary, driver->Package());
  }
  ServerNodeOptions o;
  o.binary = binary;
  o.dir = server->dir_ + "/node";
  auto node = ServerNode::Start(driver, o);
  if (!node.ok()) return node.status();  // ~LocalServer removes the directory
  server->node_ = std::move(node).value();
  return server;
}

LocalServer::~LocalServer() { Stop(); }

Status LocalServer::Stop() {
  Status result = node_ != nullptr ? node_->Stop() : Status::OK();
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    if (ec && result.ok()) result = Status::IoError("cannot remove " + dir_ + ": " + ec.message());
    dir_.clear();
  }
  return result;
}

std::string LocalServer::program() const {
  return fs::path(node_->binary().empty() ? kind_ : node_->binary()).filename().string();
}

std::string LocalServer::Describe() const {
  std::string s = program() + " " + node_->version() + " on " + host() + ":" +
                  std::to_string(port()) + " (pid " + std::to_string(pid()) +
                  "), started by memstand, dir " + node_->dir();
  if (kind_ == "tarantool") s += ", space memstand (string hash key) created by memstand";
  return s;
}

}  // namespace memstand
