#include "scenario/recovery/recovery.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "core/clock.h"
#include "history/history_reader.h"
#include "load/command_spec.h"
#include "load/engine.h"
#include "load/history_checks.h"
#include "scenario/kit/evidence.h"
#include "scenario/kit/nemesis.h"
#include "scenario/kit/poll.h"
#include "scenario/kit/register_load.h"
#include "scenario/kit/runs.h"
#include "scenario/kit/scenario_server.h"
#include "scenario/kit/topology_nodes.h"
#include "scenario/recovery/cell.h"
#include "stand/proc_stats.h"
#include "stand/temp_folder.h"
#include "stand/topology.h"

namespace memstand {
namespace {

namespace fs = std::filesystem;

constexpr const char* kScenario = "recovery";
constexpr int kControlTimeoutMs = 1000;
constexpr int64_t kWatchPollNs = 2'000'000;  // the accept's resolution: 2 ms
constexpr const char* kFillPrefix = "fill-";
constexpr const char* kLoadPrefix = "rec-";
// Redis's memory per key beyond the value: the key, its dict entry, object headers and
// the allocator's rounding (a 1000 B value takes a 1024 B block).
constexpr uint64_t kPerKeyOverhead = 120;
// The restart comes this long after the kill.
constexpr double kRestartAfterS = 0.1;
constexpr int kBgsaveTimeoutMs = 120'000;

std::vector<std::pair<std::string, std::string>> SettingsOf(const std::string& configuration, uint64_t memory) {
  std::vector<std::pair<std::string, std::string>> s = {
      {"maxmemory", std::to_string(memory)}, {"maxmemory-policy", "noeviction"}, {"save", ""}};
  if (configuration == "aof-everysec" || configuration == "aof-always") {
    s.push_back({"appendonly", "yes"});
    s.push_back({"appendfsync", configuration == "aof-always" ? "always" : "everysec"});
  } else {
    s.push_back({"appendonly", "no"});
  }
  return s;
}

Result<std::unique_ptr<RedisClient>> Control(const NodeRecord& n) {
  return RedisClient::Connect(n.host, n.port, kControlTimeoutMs);
}

Result<std::string> Info(RedisClient& c, const std::string& section) {
  auto r = c.Command({"INFO", section});
  if (!r.ok()) return r.status();
  if (r->is_error()) return Status::Server("INFO " + section + ": " + r->str);
  return r->str;
}

int64_t InfoNumber(const std::string& info, const std::string& field) {
  auto fields = ParseInfo(info);
  const auto it = fields.find(field);
  return it == fields.end() ? -1 : std::atoll(it->second.c_str());
}

int64_t FolderBytes(const fs::path& p) {
  std::error_code ec;
  if (!fs::exists(p, ec)) return -1;
  if (fs::is_regular_file(p, ec)) return static_cast<int64_t>(fs::file_size(p, ec));
  int64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(p, ec)) {
    if (e.is_regular_file(ec)) n += static_cast<int64_t>(e.file_size(ec));
  }
  return n;
}

// Fills the server to the share of its memory: `count` keys fill-0 .. fill-(count-1),
// each written once, closed loop.
Status Fill(const NodeRecord& n, uint64_t count, const RecoveryOptions& o, const ScenarioContext& ctx, uint64_t seed) {
  LoadOptions load;
  load.target = TargetOfNode(n, Protocol::kResp);
  load.threads = 1;
  load.clients = 8;
  load.pipeline = 32;
  load.requests = count;
  load.key_prefix = kFillPrefix;
  load.key_min = 0;
  load.key_max = count - 1;
  load.value.min_size = load.value.max_size = o.value_size;
  load.value.content = ValueSpec::Content::kRandom;
  load.seed = seed;
  KeyPatternSpec partitioned;
  partitioned.kind = KeyPatternSpec::Kind::kPartitioned;
  CommandLimits limits;
  limits.key_max = load.key_max;
  limits.value_max = o.value_size;
  auto spec = MakeCommandSpec(Protocol::kResp, "SET __key__ __data__", kFillPrefix, partitioned, 1, limits);
  if (!spec.ok()) return spec.status();
  load.commands.push_back(*spec);
  auto run = RunLoad(load, ctx.interrupt);
  if (!run.ok()) return run.status();
  if (run->interrupted) return Status::Failed("interrupted");
  if (!run->failure.ok()) return run->failure;
  const CommandStats& s = run->totals.commands.at(0);
  if (s.errors > 0) return Status::Failed(fmt::format("{} of the fill's {} SETs were refused", s.errors, s.ops));
  return Status::OK();
}

// rdb: a snapshot of the fill (BGSAVE), waited for.
Status Snapshot(const NodeRecord& n, const ScenarioContext& ctx) {
  auto c = Control(n);
  if (!c.ok()) return c.status();
  auto r = (*c)->Command({"BGSAVE"});
  if (!r.ok()) return r.status();
  if (r->is_error()) return Status::Server("BGSAVE: " + r->str);
  const PollResult poll = PollUntil(DeadlineInMs(kBgsaveTimeoutMs), 20'000'000, [&]() -> Result<bool> {
    auto info = Info(**c, "persistence");
    if (!info.ok()) return info.status();
    return InfoNumber(*info, "rdb_bgsave_in_progress") == 0;
  }, ctx.interrupt);
  if (!poll.failure.ok()) return poll.failure;
  if (!poll.met) return Status::Failed("BGSAVE did not finish within 120 s");
  return Status::OK();
}

Status HistoryLoad(const NodeRecord& n, const RecoveryOptions& o, const std::string& path, uint64_t seed,
                   LoadOptions* load) {
  load->target = TargetOfNode(n, Protocol::kResp);
  RegisterLoad spec;
  spec.commands = {"SET __key__ __data__", "GET __key__"};
  spec.key_prefix = kLoadPrefix;
  spec.keys = o.keys;
  spec.clients = o.clients;
  spec.rate = o.rate;
  spec.duration_s = o.kill_at_s + o.after_s;
  spec.seed = seed;
  spec.history_path = path;
  spec.backoff_min_ms = 10;
  spec.backoff_max_ms = 100;
  return MakeRegisterLoad(spec, load);
}

// From the restart on: when a TCP connection is first accepted (Unix ns).
void WatchAccept(const std::string& host, int port, const std::atomic<bool>& restarting,
                 const std::atomic<bool>& stop, int64_t* accept_unix_ns) {
  while (!stop.load() && !restarting.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  while (!stop.load() && *accept_unix_ns == 0) {
    auto c = RedisClient::Connect(host, port, 50);
    // A connection refused fails at once; one accepted during loading is still accepted
    // (its first command answers LOADING, or the readiness probe's PING waits).
    if (c.ok() || c.status().message().find("LOADING") != std::string::npos) {
      *accept_unix_ns = UnixNowNs();
      break;
    }
    std::this_thread::sleep_for(std::chrono::nanoseconds(kWatchPollNs));
  }
}

void FirstOk(const history::History& h, int64_t after_ns, RecoveryCell* cell) {
  int64_t w = -1, r = -1;
  for (const history::Record& x : h.records) {
    if (x.outcome != history::Outcome::kOk || x.invoke_ns < after_ns) continue;
    int64_t& first = x.writes() ? w : r;
    if (first < 0 || x.complete_ns < first) first = x.complete_ns;
  }
  cell->first_write_s = w < 0 ? -1 : static_cast<double>(w) / 1e9;
  cell->first_read_s = r < 0 ? -1 : static_cast<double>(r) / 1e9;
}

void RunCell(const RecoveryOptions& o, const ScenarioContext& ctx, const std::string& folder, uint64_t seed,
             RecoveryCell* cell, std::map<std::string, std::string>* files) {
  const std::string mib = fmt::format("{} MiB", cell->memory >> 20);
  ctx.Progress(kScenario, fmt::format("run {}: {} at {}: starting", cell->run, cell->configuration, mib));
  TopologySpec spec;
  spec.kind = TopologyKind::kRedis;
  spec.settings = SettingsOf(cell->configuration, cell->memory);
  auto started = StartScenarioTopology(spec, ctx.interrupt);
  if (!started.ok()) {
    cell->failure = StartFailure(ctx, kScenario, cell->Label(), "did not start: ", started.status());
    return;
  }
  Topology& t = **started;
  const NodeRecord& node = t.nodes()[0];
  cell->version = node.version;
  // The fill: the share of maxmemory, less what the empty server uses already.
  int64_t baseline = -1;
  if (auto c = Control(node); c.ok()) {
    if (auto info = Info(**c, "memory"); info.ok()) baseline = InfoNumber(*info, "used_memory");
  }
  const double room = o.fill * static_cast<double>(cell->memory) - static_cast<double>(baseline);
  if (baseline < 0 || room < static_cast<double>(o.value_size + kPerKeyOverhead)) {
    cell->failure = fmt::format("no room to fill: the empty server uses {} B of maxmemory {} B", baseline, cell->memory);
    return;
  }
  cell->fill_keys = static_cast<uint64_t>(room) / (o.value_size + kPerKeyOverhead);
  ctx.Progress(kScenario, fmt::format("run {}: {} at {}: filling {} keys of {} B", cell->run, cell->configuration, mib,
                                      cell->fill_keys, o.value_size));
  if (Status s = Fill(node, cell->fill_keys, o, ctx, seed); !s.ok()) {
    cell->failure = s.message() == "interrupted" ? "interrupted" : "the fill: " + s.message();
    return;
  }
  if (cell->configuration == "rdb") {
    if (Status s = Snapshot(node, ctx); !s.ok()) {
      cell->failure = "the snapshot: " + s.message();
      return;
    }
  }
  const std::string history_path =
      fmt::format("{}/{}-{}mib-run{}.hist", folder, cell->configuration, cell->memory >> 20, cell->run);
  LoadOptions load;
  if (Status made = HistoryLoad(node, o, history_path, seed + 1, &load); !made.ok()) {
    cell->failure = made.message();
    return;
  }
  ctx.Progress(kScenario, fmt::format("run {}: {} at {}: load, kill at {} s, restart", cell->run, cell->configuration,
                                      mib, ApproxSeconds(o.kill_at_s)));
  // Just before the kill: the data size, and the files on disk.
  std::atomic<bool> restarting{false}, stop{false};
  int64_t accept_unix_ns = 0;
  const std::string host = node.host;
  const int port = node.port;
  const std::string dir = node.dir;
  std::thread watcher([&] { WatchAccept(host, port, restarting, stop, &accept_unix_ns); });
  Result<RunResult> result = Status::Failed("not run");
  const int64_t start_ns = NowNs();
  const int64_t load_start_unix_ns = UnixNowNs();
  std::thread runner([&] { result = RunLoad(load, ctx.interrupt); });
  const std::vector<FaultStep> steps = {{FaultAction::kKill, node.name, o.kill_at_s},
                                        {FaultAction::kRestart, node.name, o.kill_at_s + kRestartAfterS}};
  // The size of the data just before the kill, read half a second before it.
  const int64_t measure_at = start_ns + static_cast<int64_t>((o.kill_at_s - 0.5) * 1e9);
  PollUntil(measure_at, 10'000'000, []() -> Result<bool> { return false; }, ctx.interrupt);
  if (auto c = Control(node); c.ok()) {
    if (auto info = Info(**c, "memory"); info.ok()) cell->used_memory = InfoNumber(*info, "used_memory");
  }
  cell->aof_bytes = FolderBytes(fs::path(dir) / "appendonlydir");
  cell->rdb_bytes = FolderBytes(fs::path(dir) / "dump.rdb");
  const std::vector<FaultEvent> events = RunFaults(t, steps, start_ns, ctx.interrupt, [&](const FaultEvent& e) {
    if (e.step.action == FaultAction::kKill) restarting = true;
  });
  stop = true;  // the restart returned: ready, or failed
  runner.join();
  watcher.join();
  auto h = history::ReadHistoryFile(history_path);
  const int64_t start_unix_ns = h.ok() ? h->header.start_unix_ns : load_start_unix_ns;
  auto rel = [&](int64_t unix_ns) { return unix_ns > 0 ? static_cast<double>(unix_ns - start_unix_ns) / 1e9 : -1.0; };
  for (const FaultEvent& e : events) {
    cell->schedule.push_back(fmt::format("{} {} at {:.3f} s (pid {} -> {}){}", FaultActionName(e.step.action),
                                         e.step.node, rel(e.start_unix_ns), e.pid_before, e.pid_after,
                                         e.error.empty() ? "" : ": " + e.error));
  }
  if (!result.ok() || result->interrupted) {
    cell->failure = !result.ok() ? result.status().message() : "interrupted";
    return;
  }
  for (const FaultEvent& e : events) {
    if (!e.error.empty()) {
      cell->failure = fmt::format("the {}: {}", FaultActionName(e.step.action), e.error);
      return;
    }
  }
  if (!h.ok()) {
    cell->failure = "the history: " + h.status().message();
    return;
  }
  const FaultEvent& kill = events[0];
  const FaultEvent& restart = events[1];
  cell->kill_s = rel(kill.start_unix_ns);
  cell->restart_s = rel(restart.start_unix_ns);
  cell->loaded_s = rel(restart.end_unix_ns);
  cell->accept_s = rel(accept_unix_ns);
  FirstOk(*h, kill.start_unix_ns - start_unix_ns, cell);
  if (auto sample = ReadProcSample(restart.pid_after); sample.ok()) cell->read_bytes = sample->read_bytes;
  if (auto c = Control(t.nodes()[0]); c.ok()) {
    auto size = (*c)->Command({"DBSIZE"});
    if (size.ok() && !size->is_error()) cell->keys_after = size->integer;
    // The fill keys still there: every key but the load's (rec-*) ones.
    auto load_keys = (*c)->Command({"EVAL", "return #redis.call('KEYS', ARGV[1])", "0", std::string(kLoadPrefix) + "*"});
    if (size.ok() && load_keys.ok() && !load_keys->is_error()) cell->fill_present = size->integer - load_keys->integer;
  }
  const RedisTarget target = TargetOfNode(t.nodes()[0], Protocol::kResp);
  cell->checks = {CheckLostWritesAt(*h, target)};
  const history::CheckResult& lw = cell->checks[0];
  cell->lost = lw.Count("lost");
  cell->recovered = lw.Count("recovered");
  cell->unexpected = lw.Count("unexpected");
  std::ifstream in(history_path, std::ios::binary);
  (*files)[fmt::format("histories/{}-{}mib-run{}.hist", cell->configuration, cell->memory >> 20, cell->run)] =
      std::string(std::istreambuf_iterator<char>(in), {});
  KeepLogTail(fmt::format("redis-{}-{}mib", cell->configuration, cell->memory >> 20), cell->run, node.log, files);
  if (Status s = t.Stop(); !s.ok()) cell->failure = "stopping the server: " + s.message();
}

}  // namespace

std::string RecoveryCell::Label() const {
  return fmt::format("{} at {} MiB run {}", configuration, memory >> 20, run);
}

double RecoveryCell::SecondsPerGb() const {
  if (loaded_s < 0 || restart_s < 0 || used_memory <= 0) return -1;
  return (loaded_s - restart_s) / (static_cast<double>(used_memory) / 1e9);
}

const std::vector<std::string>& RecoveryConfigurations() {
  static const std::vector<std::string> kNames = {"none", "rdb", "aof-everysec", "aof-always"};
  return kNames;
}

Status ValidateRecovery(const RecoveryOptions& o) {
  const auto& known = RecoveryConfigurations();
  if (o.configurations.empty()) return Status::InvalidArgument("--only: no configuration");
  std::set<std::string> seen;
  for (const std::string& c : o.configurations) {
    if (std::find(known.begin(), known.end(), c) == known.end()) {
      return Status::InvalidArgument(
          fmt::format("--only: '{}' is not a configuration (none, rdb, aof-everysec, aof-always)", c));
    }
    if (!seen.insert(c).second) return Status::InvalidArgument(fmt::format("--only: '{}' given twice", c));
  }
  if (o.memories.empty()) return Status::InvalidArgument("--memory: no size");
  for (uint64_t m : o.memories) {
    if (m < (4ull << 20) || m > (64ull << 30)) return Status::InvalidArgument("--memory: each size in 4 MiB .. 64 GiB");
  }
  if (o.fill <= 0 || o.fill > 0.95) return Status::InvalidArgument("--fill: a share in (0, 95%]");
  if (o.value_size < 1 || o.value_size > (1u << 20)) return Status::InvalidArgument("--value-size: 1 .. 1 MiB");
  if (o.kill_at_s < 1 || o.kill_at_s > 3600) return Status::InvalidArgument("--kill-at: 1 s .. 1 h");
  if (o.after_s <= 0 || o.after_s > 3600) return Status::InvalidArgument("--after: (0, 1 h]");
  if (o.rate <= 0 || o.rate > 1e6) return Status::InvalidArgument("--rate: must be in (0, 1000000]");
  if (o.clients < 1 || o.clients > 1000) return Status::InvalidArgument("--clients: must be 1..1000");
  if (o.keys < 1 || o.keys > 1'000'000) return Status::InvalidArgument("--keys: must be 1..1000000");
  return Status::OK();
}

Result<ScenarioReport> RunRecovery(const RecoveryOptions& o, const ScenarioContext& ctx) {
  if (Status s = ValidateRecovery(o); !s.ok()) return s;
  ScenarioReport report;
  report.scenario = kScenario;
  auto folder = MakeTempFolder("recovery");  // the histories, until the evidence keeps them
  if (!folder.ok()) return folder.status();
  RemovedOnExit remove(*folder);
  std::vector<RecoveryCell> cells;
  const std::string not_installed = NotInstalledLine(SystemKind::kRedis);
  uint64_t seed = ctx.seed;
  ForEachRun(ctx, &report, [&](int run) {
    for (const std::string& configuration : o.configurations) {
      for (uint64_t memory : o.memories) {
        if (ctx.interrupted() || !not_installed.empty()) return;
        RecoveryCell& cell = cells.emplace_back();
        cell.run = run;
        cell.configuration = configuration;
        cell.memory = memory;
        seed += 2;
        RunCell(o, ctx, *folder, seed, &cell, &report.files);
      }
    }
  });
  if (!not_installed.empty()) report.Mark(ScenarioVerdict::kPartial, not_installed);
  FillRecoveryReport(o, cells, ctx.interrupted(), &report);
  return report;
}

}  // namespace memstand
