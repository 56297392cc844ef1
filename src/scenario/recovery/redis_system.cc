// recovery's Redis side (system.h): maxmemory and the persistence of each configuration,
// SET/GET over RESP, BGSAVE for rdb, INFO for the data's size, a connection tried every
// 2 ms for the accept; loading done is the restart's readiness wait (PING answered, not
// LOADING).
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "core/clock.h"
#include "scenario/kit/poll.h"
#include "scenario/recovery/system.h"

namespace memstand {
namespace {

constexpr int kRedisControlMs = 1000;
constexpr int kBgsaveTimeoutMs = 120'000;
constexpr int64_t kRedisWatchPollNs = 2'000'000;  // the accept's resolution: 2 ms
// Redis's memory per key beyond the value: the key, its dict entry, object headers and
// the allocator's rounding (a 1000 B value takes a 1024 B block).
constexpr uint64_t kRedisPerKeyOverhead = 120;
constexpr char kRedisLoadPrefix[] = "rec-";

Result<std::unique_ptr<RedisClient>> RedisControl(const NodeRecord& n) {
  return RedisClient::Connect(n.host, n.port, kRedisControlMs);
}

Result<std::string> RedisInfo(RedisClient& c, const std::string& section) {
  auto r = c.Command({"INFO", section});
  if (!r.ok()) return r.status();
  if (r->is_error()) return Status::Server("INFO " + section + ": " + r->str);
  return r->str;
}

int64_t RedisInfoNumber(const std::string& info, const std::string& field) {
  auto fields = ParseInfo(info);
  const auto it = fields.find(field);
  return it == fields.end() ? -1 : std::atoll(it->second.c_str());
}

class RedisSide : public RecoverySystem {
 public:
  Protocol protocol() const override { return Protocol::kResp; }
  const char* name() const override { return "redis"; }

  Result<TopologySpec> Spec(const std::string& configuration, uint64_t memory, const std::string&) const override {
    TopologySpec spec;
    spec.kind = TopologyKind::kRedis;
    spec.settings = {{"maxmemory", std::to_string(memory)}, {"maxmemory-policy", "noeviction"}, {"save", ""}};
    if (configuration == "aof-everysec" || configuration == "aof-always") {
      spec.settings.push_back({"appendonly", "yes"});
      spec.settings.push_back({"appendfsync", configuration == "aof-always" ? "always" : "everysec"});
    } else {
      spec.settings.push_back({"appendonly", "no"});
    }
    return spec;
  }

  std::string FillCommand() const override { return "SET __key__ __data__"; }
  std::vector<std::string> LoadCommands() const override { return {"SET __key__ __data__", "GET __key__"}; }
  uint64_t PerKeyOverhead() const override { return kRedisPerKeyOverhead; }

  Result<int64_t> DataSize(const NodeRecord& n) const override {
    auto c = RedisControl(n);
    if (!c.ok()) return c.status();
    auto info = RedisInfo(**c, "memory");
    if (!info.ok()) return info.status();
    return RedisInfoNumber(*info, "used_memory");
  }

  // rdb: a snapshot of the fill (BGSAVE), waited for.
  Status AfterFill(const NodeRecord& n, const std::string& configuration, const ScenarioContext& ctx) const override {
    if (configuration != "rdb") return Status::OK();
    auto c = RedisControl(n);
    if (!c.ok()) return c.status();
    auto r = (*c)->Command({"BGSAVE"});
    if (!r.ok()) return r.status();
    if (r->is_error()) return Status::Server("BGSAVE: " + r->str);
    const PollResult poll = PollUntil(DeadlineInMs(kBgsaveTimeoutMs), 20'000'000, [&]() -> Result<bool> {
      auto info = RedisInfo(**c, "persistence");
      if (!info.ok()) return info.status();
      return RedisInfoNumber(*info, "rdb_bgsave_in_progress") == 0;
    }, ctx.interrupt);
    if (!poll.failure.ok()) return poll.failure;
    if (!poll.met) return Status::Failed("BGSAVE did not finish within 120 s");
    return Status::OK();
  }

  void FilesOnDisk(const std::string& dir, RecoveryCell* cell) const override {
    cell->aof_bytes = FilesBytes(dir + "/appendonlydir");
    cell->rdb_bytes = FilesBytes(dir + "/dump.rdb");
  }

  bool WatchesLoaded() const override { return false; }

  void Watch(const NodeRecord& n, const std::atomic<bool>& restarting, const std::atomic<bool>& stop,
             RecoveryWatch* seen) const override {
    while (!stop.load() && !restarting.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    while (!stop.load()) {
      auto c = RedisClient::Connect(n.host, n.port, 50);
      // A connection refused fails at once; one accepted during loading is still accepted
      // (its first command answers LOADING, or the readiness probe's PING waits).
      if (c.ok() || c.status().message().find("LOADING") != std::string::npos) {
        seen->accept_unix_ns = UnixNowNs();
        return;
      }
      std::this_thread::sleep_for(std::chrono::nanoseconds(kRedisWatchPollNs));
    }
  }

  void CountAfter(const NodeRecord& n, RecoveryCell* cell) const override {
    auto c = RedisControl(n);
    if (!c.ok()) return;
    auto size = (*c)->Command({"DBSIZE"});
    if (size.ok() && !size->is_error()) cell->keys_after = size->integer;
    // The fill keys still there: every key but the load's (rec-*) ones.
    auto load_keys =
        (*c)->Command({"EVAL", "return #redis.call('KEYS', ARGV[1])", "0", std::string(kRedisLoadPrefix) + "*"});
    if (size.ok() && load_keys.ok() && !load_keys->is_error()) cell->fill_present = size->integer - load_keys->integer;
  }
};

}  // namespace

const RecoverySystem& RedisRecoverySystem() {
  static const RedisSide kSide;
  return kSide;
}

int64_t FilesBytes(const std::string& path, const std::string& suffix) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (!fs::exists(p, ec)) return -1;
  if (fs::is_regular_file(p, ec)) return static_cast<int64_t>(fs::file_size(p, ec));
  int64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(p, ec)) {
    if (e.is_regular_file(ec) && e.path().filename().string().ends_with(suffix)) {
      n += static_cast<int64_t>(e.file_size(ec));
    }
  }
  return n;
}

}  // namespace memstand
