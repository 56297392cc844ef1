#include "scenario/recovery/recovery.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/clock.h"
#include "history/history_reader.h"
#include "load/command_spec.h"
#include "load/engine.h"
#include "load/history_checks.h"
#include "load/history_events.h"
#include "scenario/kit/evidence.h"
#include "scenario/kit/nemesis.h"
#include "scenario/kit/poll.h"
#include "scenario/kit/register_load.h"
#include "scenario/kit/runs.h"
#include "scenario/kit/scenario_server.h"
#include "scenario/kit/topology_nodes.h"
#include "scenario/recovery/cell.h"
#include "scenario/recovery/configurations.h"
#include "scenario/recovery/system.h"
#include "stand/proc_stats.h"
#include "stand/temp_folder.h"
#include "stand/topology.h"

namespace memstand {
namespace {

constexpr const char* kScenario = "recovery";
constexpr const char* kFillPrefix = "fill-";
constexpr const char* kLoadPrefix = "rec-";
// The restart comes this long after the kill.
constexpr double kRestartAfterS = 0.1;

// Fills the server to the share of its memory: `count` keys fill-0 .. fill-(count-1),
// each written once, closed loop.
Status Fill(const RecoverySystem& sys, const NodeRecord& n, uint64_t count, const RecoveryOptions& o,
            const ScenarioContext& ctx, uint64_t seed) {
  LoadOptions load;
  load.protocol = sys.protocol();
  load.target = TargetOfNode(n, sys.protocol());
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
  auto spec = MakeCommandSpec(sys.protocol(), sys.FillCommand(), kFillPrefix, partitioned, 1, limits);
  if (!spec.ok()) return spec.status();
  load.commands.push_back(*spec);
  auto run = RunLoad(load, ctx.interrupt);
  if (!run.ok()) return run.status();
  if (run->interrupted) return Status::Failed("interrupted");
  if (!run->failure.ok()) return run->failure;
  const CommandStats& s = run->totals.commands.at(0);
  if (s.errors > 0) return Status::Failed(fmt::format("{} of the fill's {} writes were refused", s.errors, s.ops));
  return Status::OK();
}

Status HistoryLoad(const RecoverySystem& sys, const NodeRecord& n, const RecoveryOptions& o, const std::string& path,
                   uint64_t seed, LoadOptions* load) {
  load->protocol = sys.protocol();
  load->target = TargetOfNode(n, sys.protocol());
  RegisterLoad spec;
  spec.commands = sys.LoadCommands();
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

void FirstOk(const history::History& h, int64_t after_ns, RecoveryCell* cell) {
  int64_t w = -1, r = -1;
  for (const history::Record& x : h.records) {
    if (x.outcome != history::Outcome::kOk) continue;
    if (x.writes()) ++cell->writes_ok;
    if (x.invoke_ns < after_ns) continue;
    int64_t& first = x.writes() ? w : r;
    if (first < 0 || x.complete_ns < first) first = x.complete_ns;
  }
  cell->first_write_s = w < 0 ? -1 : static_cast<double>(w) / 1e9;
  cell->first_read_s = r < 0 ? -1 : static_cast<double>(r) / 1e9;
}

std::string CellFileName(const RecoveryCell& c) {
  return fmt::format("{}-{}mib-run{}", c.configuration, c.memory >> 20, c.run);
}

// The fill, and what comes after it (a snapshot); false with cell->failure set when it
// failed.
bool FillServer(const RecoverySystem& sys, const NodeRecord& node, const RecoveryOptions& o,
                const ScenarioContext& ctx, uint64_t seed, RecoveryCell* cell) {
  // The share of the memory, less what the empty server uses already.
  auto baseline = sys.DataSize(node);
  cell->fill_keys = FillKeyCount(o.fill, cell->memory, baseline.ok() ? *baseline : -1, o.value_size + sys.PerKeyOverhead());
  if (cell->fill_keys == 0) {
    cell->failure = fmt::format("no room to fill: the empty server uses {} B, the share is {:.0f} B",
                                baseline.ok() ? *baseline : -1, o.fill * static_cast<double>(cell->memory));
    return false;
  }
  ctx.Progress(kScenario, fmt::format("run {}: {} at {} MiB: filling {} keys of {} B", cell->run, cell->configuration,
                                      cell->memory >> 20, cell->fill_keys, o.value_size));
  if (Status s = Fill(sys, node, cell->fill_keys, o, ctx, seed); !s.ok()) {
    cell->failure = s.message() == "interrupted" ? "interrupted" : "the fill: " + s.message();
    return false;
  }
  if (Status s = sys.AfterFill(node, cell->configuration, ctx); !s.ok()) {
    cell->failure = "the snapshot: " + s.message();
    return false;
  }
  return true;
}

void RunCell(const RecoveryOptions& o, const ScenarioContext& ctx, const std::string& folder, uint64_t seed,
             RecoveryCell* cell, std::map<std::string, std::string>* files) {
  const RecoverySystem& sys = RecoverySystemFor(cell->configuration);
  const std::string mib = fmt::format("{} MiB", cell->memory >> 20);
  ctx.Progress(kScenario, fmt::format("run {}: {} at {}: starting", cell->run, cell->configuration, mib));
  auto spec = sys.Spec(cell->configuration, cell->memory, folder);
  if (!spec.ok()) {
    cell->failure = spec.status().message();
    return;
  }
  auto started = StartScenarioTopology(*spec, ctx.interrupt);
  if (!started.ok()) {
    cell->failure = StartFailure(ctx, kScenario, cell->Label(), "did not start: ", started.status());
    return;
  }
  Topology& t = **started;
  const NodeRecord node = t.nodes()[0];
  cell->version = node.version;
  if (!FillServer(sys, node, o, ctx, seed, cell)) return;
  const std::string history_path = fmt::format("{}/{}.hist", folder, CellFileName(*cell));
  LoadOptions load;
  if (Status made = HistoryLoad(sys, node, o, history_path, seed + 1, &load); !made.ok()) {
    cell->failure = made.message();
    return;
  }
  ctx.Progress(kScenario, fmt::format("run {}: {} at {}: load, kill at {} s, restart", cell->run, cell->configuration,
                                      mib, ApproxSeconds(o.kill_at_s)));
  std::atomic<bool> restarting{false}, stop{false};
  RecoveryWatch seen;
  std::thread watcher([&] { sys.Watch(node, restarting, stop, &seen); });
  Result<RunResult> result = Status::Failed("not run");
  const int64_t start_ns = NowNs();
  const int64_t load_start_unix_ns = UnixNowNs();
  auto nemesis = std::make_shared<HistoryEvents>();  // the kill and the restart, in the history too
  load.history_events = nemesis;
  std::thread runner([&] { result = RunLoad(load, ctx.interrupt); });
  const std::vector<FaultStep> steps = {{FaultAction::kKill, node.name, o.kill_at_s},
                                        {FaultAction::kRestart, node.name, o.kill_at_s + kRestartAfterS}};
  // The size of the data and the files on disk, half a second before the kill.
  const int64_t measure_at = start_ns + static_cast<int64_t>((o.kill_at_s - 0.5) * 1e9);
  PollUntil(measure_at, 10'000'000, []() -> Result<bool> { return false; }, ctx.interrupt);
  if (auto size = sys.DataSize(node); size.ok()) cell->used_memory = *size;
  sys.FilesOnDisk(node.dir, cell);
  const std::vector<FaultEvent> events = RunFaults(
      t, steps, start_ns, ctx.interrupt,
      [&](const FaultEvent& e) {
        if (e.step.action == FaultAction::kKill) restarting = true;
      },
      nullptr, nemesis.get());
  runner.join();
  stop = true;  // the load is over: the watcher has seen what it could
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
  cell->loaded_s = rel(sys.WatchesLoaded() ? seen.loaded_unix_ns : restart.end_unix_ns);
  cell->accept_s = rel(seen.accept_unix_ns);
  FirstOk(*h, kill.start_unix_ns - start_unix_ns, cell);
  if (auto sample = ReadProcSample(restart.pid_after); sample.ok()) cell->read_bytes = sample->read_bytes;
  sys.CountAfter(t.nodes()[0], cell);
  cell->checks = {CheckLostWritesAt(*h, TargetOfNode(t.nodes()[0], sys.protocol()))};
  const history::CheckResult& lw = cell->checks[0];
  cell->lost = lw.Count("lost");
  cell->recovered = lw.Count("recovered");
  cell->unexpected = lw.Count("unexpected");
  std::ifstream in(history_path, std::ios::binary);
  (*files)["histories/" + CellFileName(*cell) + ".hist"] = std::string(std::istreambuf_iterator<char>(in), {});
  KeepLogTail(fmt::format("{}-{}-{}mib", sys.name(), cell->configuration, cell->memory >> 20), cell->run, node.log,
              files);
  if (cell->loaded_s < 0) {
    cell->failure = "loading done was not seen: box.info.status never answered 'running' over IPROTO";
    return;
  }
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

const RecoverySystem& RecoverySystemFor(const std::string& configuration) {
  return RecoverySystemOf(configuration) == SystemKind::kTarantool ? TarantoolRecoverySystem() : RedisRecoverySystem();
}

Status ValidateRecovery(const RecoveryOptions& o) {
  const auto& known = RecoveryConfigurations();
  if (o.configurations.empty()) return Status::InvalidArgument("--only: no configuration");
  std::set<std::string> seen;
  for (const std::string& c : o.configurations) {
    if (std::find(known.begin(), known.end(), c) == known.end()) {
      return Status::InvalidArgument(
          fmt::format("--only: '{}' is not a configuration ({})", c, fmt::join(known, ", ")));
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
  std::set<std::string> not_installed;  // a line per system whose program is missing
  uint64_t seed = ctx.seed;
  ForEachRun(ctx, &report, [&](int run) {
    for (const std::string& configuration : o.configurations) {
      const std::string missing = NotInstalledLine(RecoverySystemOf(configuration));
      if (!missing.empty()) {
        not_installed.insert(missing);
        continue;
      }
      for (uint64_t memory : o.memories) {
        if (ctx.interrupted()) return;
        RecoveryCell& cell = cells.emplace_back();
        cell.run = run;
        cell.configuration = configuration;
        cell.memory = memory;
        seed += 2;
        RunCell(o, ctx, *folder, seed, &cell, &report.files);
      }
    }
  });
  for (const std::string& line : not_installed) report.Mark(ScenarioVerdict::kPartial, line);
  FillRecoveryReport(o, cells, ctx.interrupted(), &report);
  return report;
}

}  // namespace memstand
