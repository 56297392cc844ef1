#include "scenario/kit/scenario_server.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "client/redis_info.h"
#include "core/tls.h"
#include "scenario/kit/cpu_placement.h"
#include "scenario/kit/poll.h"
#include "stand/process.h"
#include "stand/run_root.h"
#include "stand/server_node.h"
#include "stand/temp_folder.h"

namespace memstand {
namespace {


// The space every Tarantool configuration stores records in: [id, record JSON].
constexpr char kTarantoolInit[] =
    "-- Written by memstand scenario: the products space and guest access on loopback.\n"
    "box.schema.user.grant('guest', 'super', nil, nil, {if_not_exists = true})\n"
    "local s = box.schema.space.create('products', {engine = '%ENGINE%', if_not_exists = true})\n"
    "s:create_index('primary', {type = 'tree', parts = {1, 'unsigned'}, if_not_exists = true})\n";

// One table of counters; vinyl's len() is approximate, count() is exact.
constexpr char kTarantoolCounters[] =
    "local s = box.space.products\n"
    "local slab = box.slab.info()\n"
    "local v = box.stat.vinyl()\n"
    "local present = s.engine == 'vinyl' and s:count() or s:len()\n"
    "return {present = present, quota_used = slab.quota_used, quota_size = slab.quota_size,\n"
    "        arena_used = slab.arena_used, items_used = slab.items_used,\n"
    "        vinyl_memory_level0 = v.memory.level0, vinyl_disk_data = v.disk.data,\n"
    "        vinyl_disk_index = v.disk.index}";

constexpr char kTarantoolWrite[] =
    "local id, record = ...\nbox.space.products:replace({id, record})";

// What differs between the systems a scenario stands up, one row each, by SystemKind.
struct SystemInfo {
  const char* name;     // in --config and reports
  const char* package;  // the Debian package, for the install hint
  const char* binary;   // its program
  TopologyKind topology;
  Protocol protocol;
  const char* write_template;  // one record's write, for the load engine
};

constexpr SystemInfo kSystems[] = {
    {"redis", "redis-server", "redis-server", TopologyKind::kRedis, Protocol::kResp, "SET __key__ __data__"},
    {"memcached", "memcached", "memcached", TopologyKind::kMemcached, Protocol::kMemcache,
     "set __key__ __data__"},
    {"tarantool", "tarantool", "tarantool", TopologyKind::kTarantool, Protocol::kIproto,
     "replace products [__keynum__, __data__]"},
    {"etcd", "etcd-server", "etcd", TopologyKind::kEtcd, Protocol::kEtcd, "put __key__ __data__"},
};

static_assert(std::size(kSystems) == static_cast<size_t>(SystemKind::kEtcd) + 1, "a row per SystemKind, in order");

const SystemInfo& Info(SystemKind kind) { return kSystems[static_cast<int>(kind)]; }

int64_t ToInt(const std::string& text) { return std::strtoll(text.c_str(), nullptr, 10); }

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace

std::string NextScenarioTopologyName() {
  static std::atomic<int> counter{0};
  return fmt::format("scenario-{}-{}", getpid(), ++counter);
}

void RemoveLeftoverScenarioFolders() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto listed = ListTopologies(DefaultRunRoot());
    if (!listed.ok()) return;
    for (const ListedTopology& t : *listed) {
      if (!t.record.ok()) continue;
      const TopologyRecord& r = *t.record;
      if (!r.name.starts_with("scenario-") || r.detached || r.memstand_pid <= 1 ||
          r.memstand_pid == getpid() || kill(r.memstand_pid, 0) == 0 || errno != ESRCH) {
        continue;
      }
      bool all_gone = true;
      for (const NodeRecord& n : r.nodes) all_gone &= NodeOwnership(r, n).verdict == Ownership::kGone;
      if (!all_gone) continue;
      std::vector<std::string> messages;
      if (StopRecordedTopology(r, &messages).ok()) {
        fmt::print(stderr, "memstand: removed leftover folder {} of a killed scenario (pid {})\n", t.dir,
                   r.memstand_pid);
      }
    }
  });
}

const char* SystemName(SystemKind kind) { return Info(kind).name; }
const char* SystemPackage(SystemKind kind) { return Info(kind).package; }
const char* SystemBinary(SystemKind kind) { return Info(kind).binary; }

bool SystemInstalled(SystemKind kind) { return FindExecutable(SystemBinary(kind)).ok(); }

std::string ServerConfig::Describe() const {
  std::string out = SystemName(system);
  if (system == SystemKind::kTarantool) out += " engine=" + engine;
  for (const auto& [key, value] : settings) out += " " + key + "=" + value;
  return out;
}

Result<ServerConfig> ParseServerConfig(std::string_view text, int index) {
  std::vector<std::string> words;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string_view::npos) end = text.size();
    if (end > at) words.emplace_back(text.substr(at, end - at));
    at = end + 1;
  }
  if (words.empty()) return Status::InvalidArgument("--config: empty; e.g. \"redis maxmemory=16mb\"");
  ServerConfig c;
  const std::string& system = words[0];
  if (system == "redis") c.system = SystemKind::kRedis;
  else if (system == "memcached") c.system = SystemKind::kMemcached;
  else if (system == "tarantool") c.system = SystemKind::kTarantool;
  else return Status::InvalidArgument("--config '" + std::string(text.substr(0, 80)) + "': unknown system '" +
                                      system.substr(0, 40) + "'; known: redis, memcached, tarantool");
  c.name = fmt::format("{}-{}", system, index);
  for (size_t i = 1; i < words.size(); ++i) {
    auto setting = ParseSetting(words[i]);
    if (!setting.ok()) return setting.status().WithContext("--config");
    if (setting->first == "name") {
      c.name = setting->second;
    } else if (setting->first == "engine" && c.system == SystemKind::kTarantool) {
      if (setting->second != "memtx" && setting->second != "vinyl") {
        return Status::InvalidArgument("--config: engine must be memtx or vinyl, got '" +
                                       setting->second.substr(0, 40) + "'");
      }
      c.engine = setting->second;
    } else {
      c.settings.push_back(*setting);
    }
  }
  return c;
}

Result<std::unique_ptr<Topology>> StartScenarioTopology(TopologySpec spec, const std::atomic<bool>* cancel) {
  RemoveLeftoverScenarioFolders();
  spec.name = NextScenarioTopologyName();
  TopologyOptions options;
  options.cancel = cancel;
  options.cpus = ScenarioServerCpus();
  auto topology = Topology::Start(std::move(spec), options);
  if (!topology.ok()) return topology.status();
  for (const NodeRecord& n : (*topology)->nodes()) {
    NoteServerCpus(n.name + " (" + std::filesystem::path(n.binary).filename().string() + ")", n.process.pid);
  }
  return topology;
}

Result<std::unique_ptr<ServerUnderTest>> ServerUnderTest::Start(const ServerConfig& config,
                                                                const std::atomic<bool>* cancel,
                                                                std::string init_lua) {
  std::unique_ptr<ServerUnderTest> s(new ServerUnderTest());
  s->config_ = config;
  s->init_lua_ = init_lua.empty() ? ReplaceAll(kTarantoolInit, "%ENGINE%", config.engine) : std::move(init_lua);
  if (!SystemInstalled(config.system)) {
    return MissingBinary(SystemBinary(config.system), SystemPackage(config.system));
  }
  RemoveLeftoverScenarioFolders();
  TopologySpec spec;
  spec.kind = Info(config.system).topology;
  spec.name = NextScenarioTopologyName();
  spec.settings = config.settings;
  if (config.system == SystemKind::kTarantool) {
    auto folder = MakeTempFolder("tarantool");  // marked: a killed run's is removed later
    if (!folder.ok()) return folder.status().WithContext("a folder for the init file");
    s->init_dir_ = *folder;
    spec.init_lua = s->init_dir_ + "/products.lua";
    std::ofstream out(spec.init_lua);
    out << s->init_lua_;
    out.close();
    if (!out) return Status::IoError("cannot write " + spec.init_lua);
  }
  TopologyOptions options;
  options.cancel = cancel;
  options.cpus = ScenarioServerCpus();
  auto topology = Topology::Start(spec, options);
  if (!topology.ok()) return topology.status();
  s->topology_ = std::move(*topology);
  NoteServerCpus(config.name, s->pid());
  Status c = s->Connect();
  if (!c.ok()) return c;
  return s;
}

ServerUnderTest::~ServerUnderTest() { Stop(); }

Status ServerUnderTest::Stop() {
  redis_.reset();
  control_.reset();
  Status s;
  if (topology_ != nullptr) {
    s = topology_->Stop();
    topology_.reset();
  }
  if (!init_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(init_dir_, ec);
    init_dir_.clear();
  }
  return s;
}

bool ServerUnderTest::Alive() {
  if (topology_ == nullptr || topology_->nodes().empty()) return false;
  return NodeOwnership(topology_->record(), topology_->nodes()[0]).verdict == Ownership::kOurs;
}

pid_t ServerUnderTest::pid() const {
  return topology_ == nullptr || topology_->nodes().empty() ? 0 : topology_->nodes()[0].process.pid;
}

std::string ServerUnderTest::Died() {
  if (topology_ == nullptr || topology_->nodes().empty()) return "";
  const std::string ended = topology_->NodeEnded(0);
  if (ended.empty()) return "";
  return fmt::format("{} (pid {}) died: {}", config_.name, topology_->nodes()[0].process.pid, ended);
}

namespace {

// A failure that a server's death would cause: its connections closed or reset, or
// refused once it was gone.
bool LostConnection(const std::string& failure) {
  for (const char* part : {"closed", "reset", "refused", "Broken pipe", "EOF"}) {
    if (failure.find(part) != std::string::npos) return true;
  }
  return false;
}

// How long a lost connection waits for its server's death to show: the kernel closes a
// killed process's sockets before the process can be reaped, so the client may see the
// close first (a CI run did).
constexpr int kDeathShowsWithinMs = 500;
constexpr int64_t kDeathPollNs = 10'000'000;

}  // namespace

std::string ServerUnderTest::ExplainFailure(const std::string& failure) {
  std::string died = Died();
  if (died.empty() && LostConnection(failure)) {
    PollUntil(DeadlineInMs(kDeathShowsWithinMs), kDeathPollNs, [&]() -> Result<bool> {
      died = Died();
      return !died.empty();
    });
  }
  if (died.empty()) return failure;
  std::string said = failure;
  const std::string hint = std::string("; ") + kExpectsTlsHint;
  if (size_t at = said.find(hint); at != std::string::npos) said.erase(at, hint.size());
  return died + " (" + said + ")";
}

Status ServerUnderTest::Connect() {
  const RedisTarget t = target();
  if (config_.system == SystemKind::kRedis) {
    auto c = RedisClient::Connect(t.host, t.port, kControlTimeoutMs);
    if (!c.ok()) return c.status();
    redis_ = std::move(*c);
    return Status::OK();
  }
  auto c = ProtoControl::Connect(protocol(), t, kControlTimeoutMs);
  if (!c.ok()) return c.status();
  control_ = std::move(*c);
  return Status::OK();
}

RedisTarget ServerUnderTest::target() const {
  RedisTarget t;
  const NodeRecord& n = topology_->nodes().at(0);
  t.host = n.host;
  t.port = n.port;
  t.scheme = ProtocolScheme(protocol());
  return t;
}

Protocol ServerUnderTest::protocol() const { return Info(config_.system).protocol; }

std::string ServerUnderTest::WriteTemplate() const { return Info(config_.system).write_template; }

Result<ServerCounters> ServerUnderTest::Read() {
  if (redis_ == nullptr && control_ == nullptr) {
    Status c = Connect();
    if (!c.ok()) return c;
  }
  Result<ServerCounters> r = Status::Failed("no control connection");
  switch (config_.system) {
    case SystemKind::kRedis: r = ReadRedis(); break;
    case SystemKind::kMemcached: r = ReadMemcached(); break;
    case SystemKind::kTarantool: r = ReadTarantool(); break;
    case SystemKind::kEtcd: r = ReadEtcd(); break;
  }
  if (!r.ok()) {  // a broken control connection is never reused
    redis_.reset();
    control_.reset();
  }
  return r;
}

Result<ServerCounters> ServerUnderTest::ReadRedis() {
  auto info = redis_->Command({"INFO"});
  if (!info.ok()) return info.status();
  if (info->is_error()) return Status::Server("INFO: " + info->str);
  auto dbsize = redis_->Command({"DBSIZE"});
  if (!dbsize.ok()) return dbsize.status();
  if (dbsize->is_error()) return Status::Server("DBSIZE: " + dbsize->str);
  auto fields = ParseInfo(info->str);
  ServerCounters c;
  for (const char* name : {"evicted_keys", "used_memory", "used_memory_dataset", "maxmemory",
                           "expired_keys", "rejected_calls", "total_commands_processed"}) {
    auto it = fields.find(name);
    if (it != fields.end()) c.raw[name] = ToInt(it->second);
  }
  c.raw["dbsize"] = dbsize->integer;
  c.present = dbsize->integer;
  c.evicted = c.raw["evicted_keys"];
  c.memory = c.raw["used_memory"];
  return c;
}

Result<ServerCounters> ServerUnderTest::ReadMemcached() {
  auto stats = control_->MemcacheStats();
  if (!stats.ok()) return stats.status();
  ServerCounters c;
  for (const char* name : {"curr_items", "evictions", "bytes", "limit_maxbytes", "total_items",
                           "reclaimed", "expired_unfetched", "evicted_unfetched",
                           "slab_reassign_evictions_nomem", "total_malloced"}) {
    auto it = stats->find(name);
    if (it != stats->end()) c.raw[name] = ToInt(it->second);
  }
  c.present = c.raw["curr_items"];
  c.evicted = c.raw["evictions"];
  c.memory = c.raw["bytes"];
  return c;
}

Result<ServerCounters> ServerUnderTest::ReadTarantool() {
  auto counters = control_->EvalCounters(kTarantoolCounters, "the counters of space products");
  if (!counters.ok()) return counters.status();
  ServerCounters c;
  c.raw = std::move(*counters);
  c.present = c.raw["present"];
  c.memory = config_.engine == "vinyl" ? c.raw["vinyl_memory_level0"] : c.raw["quota_used"];
  return c;
}

Result<ServerCounters> ServerUnderTest::ReadEtcd() {
  auto status = control_->EtcdRequest(etcd::AppendStatus);
  if (!status.ok()) return status.status();
  if (!status->ok) return Status::Server("maintenance/status: " + status->error);
  ServerCounters c;
  c.raw["db_size"] = status->db_size;
  c.raw["db_size_in_use"] = status->db_size_in_use;
  c.raw["revision"] = status->revision;
  c.memory = status->db_size;
  return c;
}

Status ServerUnderTest::Write(uint64_t id, std::string_view key, std::string_view value,
                              std::string* error) {
  error->clear();
  if (redis_ == nullptr && control_ == nullptr) {
    Status c = Connect();
    if (!c.ok()) return c;
  }
  switch (config_.system) {
    case SystemKind::kRedis: {
      auto r = redis_->Command({"SET", std::string(key), std::string(value)});
      if (!r.ok()) return r.status();
      if (r->is_error()) *error = r->str;
      return Status::OK();
    }
    case SystemKind::kMemcached: {
      auto r = control_->MemcacheSet(key, value);
      if (!r.ok()) return r.status();
      if (r->kind != memcache::Kind::kStored) *error = r->text.empty() ? "not stored" : r->text;
      return Status::OK();
    }
    case SystemKind::kTarantool: {
      auto r = control_->Eval(kTarantoolWrite, iproto::Value::Array({iproto::Value::Uint(id),
                                                                     iproto::Value::String(std::string(value))}));
      if (!r.ok() && r.status().code() == Status::Code::kServer) {
        *error = r.status().message();
        return Status::OK();
      }
      return r.status();
    }
    case SystemKind::kEtcd: {
      auto r = control_->EtcdRequest([&](Buffer* out, const etcd::Target& t) {
        etcd::AppendPut(out, t, key, value);
      });
      if (!r.ok()) return r.status();
      if (!r->ok) *error = r->error;
      return Status::OK();
    }
  }
  return Status::OK();
}

std::string ServerUnderTest::Describe() const {
  const NodeRecord& n = topology_->nodes().at(0);
  return fmt::format("{} {} on {}:{} (pid {}), {}", n.binary, n.version, n.host, n.port,
                     n.process.pid, config_.Describe());
}

std::string ServerUnderTest::ConfigText() const {
  const NodeRecord& n = topology_->nodes().at(0);
  std::string out = "# " + config_.name + ": " + config_.Describe() + "\n# command line:\n" +
                    JoinCmdline(n.process.cmdline) + "\n";
  if (config_.system == SystemKind::kTarantool) {
    std::ifstream in(n.dir + "/init.lua");
    out += "# init.lua:\n" + std::string(std::istreambuf_iterator<char>(in), {});
    out += "# products.lua:\n" + init_lua_;
  }
  return out;
}

const std::string& ServerUnderTest::log_path() const { return topology_->nodes().at(0).log; }

const std::string& ServerUnderTest::version() const { return topology_->nodes().at(0).version; }

}  // namespace memstand
