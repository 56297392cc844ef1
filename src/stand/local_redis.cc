#include "stand/local_redis.h"

#include <filesystem>

#include "stand/redis_driver.h"
#include "stand/temp_folder.h"

namespace memstand {
namespace {

namespace fs = std::filesystem;

}  // namespace

Result<std::unique_ptr<LocalRedis>> LocalRedis::Start(const LocalRedisOptions& options) {
  std::unique_ptr<LocalRedis> redis(new LocalRedis());
  redis->options_ = options;
  if (!FindExecutable(options.binary).ok()) {  // before making a directory
    return MissingBinary(options.binary, "redis-server");
  }
  if (Status s = redis->MakeDir(); !s.ok()) return s;
  ServerNodeOptions node_options;
  node_options.binary = options.binary;
  node_options.dir = redis->dir_;
  node_options.log_name = "redis.log";
  node_options.ready_timeout_ms = options.ready_timeout_ms;
  auto node = ServerNode::Start(std::make_shared<RedisDriver>(options.config, /*cluster=*/false),
                                node_options);
  if (!node.ok()) return node.status();  // ~LocalRedis removes the directory
  redis->node_ = std::move(node).value();
  return redis;
}

LocalRedis::~LocalRedis() { Stop(); }

Status LocalRedis::MakeDir() {
  std::error_code ec;
  if (options_.base_dir.empty()) {
    auto dir = MakeTempFolder("redis");
    if (!dir.ok()) return dir.status();
    dir_ = *dir;
    owns_dir_ = true;
    return Status::OK();
  }
  fs::create_directories(options_.base_dir, ec);
  if (ec) return Status::IoError("cannot create " + options_.base_dir + ": " + ec.message());
  dir_ = fs::absolute(options_.base_dir, ec).string();
  return Status::OK();
}

Status LocalRedis::Stop() {
  Status result = node_ != nullptr ? node_->Stop() : Status::OK();
  if (owns_dir_) {
    owns_dir_ = false;
    std::error_code ec;
    fs::remove_all(dir_, ec);
    if (ec && result.ok()) result = Status::IoError("cannot remove " + dir_ + ": " + ec.message());
  }
  return result;
}

std::string LocalRedis::Describe() const {
  std::string s = fs::path(options_.binary).filename().string() + " " + version() + " on " +
                  host() + ":" + std::to_string(port()) + " (pid " + std::to_string(pid()) +
                  "), started by memstand, persistence off, dir " + dir_;
  if (!options_.config.empty()) {
    s += ", config:";
    for (const auto& [key, value] : options_.config) s += " " + key + "=" + value;
  }
  return s;
}

}  // namespace memstand
