#include "scenario/durability_overload/durability_overload.h"

#include <algorithm>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "scenario/durability_overload/cell.h"
#include "scenario/durability_overload/report.h"
#include "scenario/kit/evidence.h"
#include "scenario/kit/runs.h"
#include "scenario/kit/scenario_server.h"
#include "util/parse.h"

namespace memstand {
namespace {

constexpr char kName[] = "durability-overload";
constexpr uint64_t kMaxKeys = 20000;
constexpr uint64_t kMaxValue = uint64_t{64} << 20;

// The words of a comma list (util/parse.h: none empty, none twice), each checked by `check`.
template <class Check>
Result<std::vector<std::string>> WordList(std::string_view text, const char* flag, Check check) {
  auto words = ParseWordList(text, flag);
  if (!words.ok()) return words;
  for (const std::string& w : *words) {
    if (Status s = check(w); !s.ok()) return s;
  }
  return words;
}

std::vector<std::pair<std::string, std::string>> ModeSettings(const std::string& mode, int node_timeout_ms) {
  std::vector<std::pair<std::string, std::string>> s = {{"cluster-node-timeout", std::to_string(node_timeout_ms)}};
  if (mode == "none") {
    s.push_back({"appendonly", "no"});
  } else {
    s.push_back({"appendonly", "yes"});
    s.push_back({"appendfsync", mode.substr(4)});  // "aof-everysec" -> everysec
  }
  return s;
}

// The settings each cluster reports, read back with CONFIG GET (printed as the server has them).
const std::vector<std::string> kShownSettings = {
    "appendonly", "appendfsync", "cluster-node-timeout", "save", "auto-aof-rewrite-percentage",
    "auto-aof-rewrite-min-size", "aof-use-rdb-preamble", "no-appendfsync-on-rewrite", "repl-backlog-size",
    "client-output-buffer-limit", "maxmemory"};

class Procedure {
 public:
  Procedure(const DurabilityOverloadOptions& o, const ScenarioContext& ctx, ScenarioReport* report)
      : o_(o), ctx_(ctx), report_(report) {
    m_.modes.push_back("none");
    for (const std::string& f : o.fsync) m_.modes.push_back("aof-" + f);
  }

  DurabilityMeasured Run() {
    ForEachRun(ctx_, report_, [this](int run) {
      std::vector<std::string> order = m_.modes;
      if (run % 2 == 0) std::reverse(order.begin(), order.end());  // docs/method.md rule 10
      for (const std::string& mode : order) {
        if (ctx_.interrupted()) break;
        RunMode(mode, run);
      }
    });
    return std::move(m_);
  }

 private:
  void RunMode(const std::string& mode, int run) {
    ctx_.Progress(kName, fmt::format("run {} {}: starting a cluster of {} masters{}", run, mode, o_.masters,
                                     Replicas(o_)));
    auto cluster =
        DurabilityCluster::Start(o_.masters, o_.replicas, ModeSettings(mode, o_.node_timeout_ms), ctx_.interrupt);
    if (!cluster.ok()) {
      if (ctx_.interrupted()) {  // a start cut short by the signal: interrupted, not failed
        ctx_.Progress(kName, fmt::format("run {} {}: the start was interrupted: {}", run, mode,
                                         cluster.status().message()));
        return;
      }
      m_.mode_failures.push_back(fmt::format("run {} {}: the cluster did not start: {}", run, mode,
                                             cluster.status().message()));
      return;
    }
    DurabilityCluster& c = **cluster;
    Describe(c, mode);
    if (!m_.probe && m_.probe_error.empty() && o_.probe_bytes > 0) Probe(c);
    std::string gone;
    int skipped = 0;
    for (uint64_t size : o_.sizes) {
      for (const std::string& payload : o_.payloads) {
        Cell(c, mode, "SET", size, payload, run, &gone, &skipped);
      }
      if (o_.gets) Cell(c, mode, "GET", size, o_.payloads.back(), run, &gone, &skipped);
    }
    if (o_.legacy && mode == "none" && run == 1 && gone.empty() && !ctx_.interrupted()) Legacy(c);
    if (!gone.empty()) {
      m_.mode_failures.push_back(fmt::format("run {} {}: {} is gone; {} cell(s) after it not run", run, mode,
                                             gone, skipped));
    }
    for (const NodeRecord& n : c.topology().nodes()) {
      KeepLogTail(mode, run, n.log, &report_->files, n.name);
    }
    Status s = c.Stop();
    if (!s.ok()) {  // the first line: the node's log tail is in the evidence
      const std::string& why = s.message();
      m_.mode_failures.push_back(fmt::format("run {} {}: stopping the cluster: {}", run, mode,
                                             why.substr(0, why.find('\n'))));
    }
  }

  void Describe(DurabilityCluster& c, const std::string& mode) {
    if (!described_.insert(mode).second) return;
    const NodeRecord& n = c.topology().nodes().at(0);
    std::vector<int> ports;
    for (const NodeRecord& node : c.topology().nodes()) ports.push_back(node.port);
    report_->configuration_lines.push_back(fmt::format("{} (run 1): {} masters{}, {} {} on 127.0.0.1 ports {} "
                                                       "(every run and mode a fresh cluster)", mode, o_.masters,
                                                       Replicas(o_), n.binary, n.version, fmt::join(ports, ",")));
    const std::vector<std::string> lines = c.ConfigLines(kShownSettings);
    report_->configuration_lines.push_back(fmt::format("  {} as the servers report them (CONFIG GET): {}", mode,
                                                       fmt::join(lines, "; ")));
    std::string text = fmt::format("# {}: redis-cluster of {} masters{}\n# command line of master-1:\n{}\n", mode,
                                   o_.masters, Replicas(o_), JoinCmdline(n.process.cmdline));
    for (const std::string& l : lines) text += l + "\n";
    report_->files["servers/" + mode + ".conf"] = text;
  }

  void Probe(DurabilityCluster& c) {
    StorageProbeOptions p;
    p.dir = c.topology().dir();
    p.bytes = o_.probe_bytes;
    p.warmup_bytes = o_.probe_bytes / 4;
    p.seed = ctx_.seed;
    p.cancel = ctx_.interrupt;
    ctx_.Progress(kName, fmt::format("storage probe: a {} MiB warm-up, then {} MiB random and {} MiB "
                                     "repeated bytes with fdatasync in {}",
                                     p.warmup_bytes >> 20, p.bytes >> 20, p.bytes >> 20, p.dir));
    auto r = RunStorageProbe(p);
    if (r.ok()) m_.probe = std::move(*r);
    else m_.probe_error = r.status().message();
  }

  CellPlan Plan(const std::string& mode, const std::string& op, uint64_t size, const std::string& payload,
                int run) const {
    CellPlan p;
    p.mode = mode;
    p.op = op;
    p.size = size;
    p.payload = payload;
    p.run = run;
    p.duration_s = o_.cell_duration_s;
    p.keys = o_.keys > 0 ? o_.keys : DurabilityKeys(size, o_.data_bytes);
    p.threads = o_.threads;
    p.clients = o_.clients;
    p.pipeline = o_.pipeline;
    p.compress_ratio = o_.compress_ratio;
    p.seed = ctx_.seed + static_cast<uint64_t>(run);
    p.aof = mode != "none";
    return p;
  }

  void Cell(DurabilityCluster& c, const std::string& mode, const std::string& op, uint64_t size,
            const std::string& payload, int run, std::string* gone, int* skipped) {
    if (ctx_.interrupted()) return;
    CellPlan plan = Plan(mode, op, size, payload, run);
    if (!gone->empty()) {
      ++*skipped;
      CellResult r;
      r.plan = plan;
      r.not_run = "not run: " + *gone + " is gone";
      m_.cells.push_back(std::move(r));
      return;
    }
    ctx_.Progress(kName, fmt::format("run {} {}: {} {} B {} for {:g} s", run, mode, op, size, payload,
                                     o_.cell_duration_s));
    m_.cells.push_back(RunCell(plan, c, ctx_.interrupt));
    *gone = c.Gone();
  }

  void Legacy(DurabilityCluster& c) {
    CellPlan plan = Plan("none", "SET", o_.sizes.front(), "random", 1);
    plan.cluster = false;
    ctx_.Progress(kName, fmt::format("legacy client: SET {} B to master-1 alone for {:g} s", plan.size,
                                     o_.cell_duration_s));
    m_.legacy = RunCell(plan, c, ctx_.interrupt);
    m_.legacy_slots = c.SlotsOfFirstMaster();
  }

  const DurabilityOverloadOptions& o_;
  const ScenarioContext& ctx_;
  ScenarioReport* report_;
  DurabilityMeasured m_;
  std::set<std::string> described_;
};

}  // namespace

Result<std::vector<uint64_t>> ParseSizeList(std::string_view text) {
  std::vector<uint64_t> sizes;
  auto words = WordList(text, "--sizes", [&](const std::string& w) -> Status {
    auto n = ParseByteSize(w);
    if (!n.ok()) return n.status().WithContext("--sizes");
    if (*n > kMaxValue) return Status::InvalidArgument(fmt::format("--sizes: {} is above 64 MiB", w));
    if (std::find(sizes.begin(), sizes.end(), *n) != sizes.end()) {
      return Status::InvalidArgument(fmt::format("--sizes: {} B given twice", *n));
    }
    sizes.push_back(*n);
    return Status::OK();
  });
  if (!words.ok()) return words.status();
  return sizes;
}

Result<std::vector<std::string>> ParsePayloadList(std::string_view text) {
  return ParseWordList(text, "--payload", {"random", "compressible", "pattern"});
}

Result<std::vector<std::string>> ParseFsyncList(std::string_view text) {
  return ParseWordList(text, "--fsync", {"always", "everysec", "no"});
}

uint64_t DurabilityKeys(uint64_t size, uint64_t data_bytes) {
  return std::clamp<uint64_t>(data_bytes / std::max<uint64_t>(size, 1), 1, kMaxKeys);
}

std::string Replicas(const DurabilityOverloadOptions& o) {
  if (o.replicas == 0) return " (no replicas)";
  return fmt::format(" with {} replica{} each", o.replicas, o.replicas > 1 ? "s" : "");
}

double PlannedCellSeconds(const DurabilityOverloadOptions& o, int runs) {
  const double per_mode = static_cast<double>(o.sizes.size() * (o.payloads.size() + (o.gets ? 1 : 0)));
  return runs * static_cast<double>(o.fsync.size() + 1) * per_mode * o.cell_duration_s +
         (o.legacy ? o.cell_duration_s : 0);
}

Status ValidateDurabilityOverload(const DurabilityOverloadOptions& o) {
  if (o.masters < 3 || o.masters > 32) {
    return Status::InvalidArgument(fmt::format("--masters must be 3..32 (Redis Cluster needs 3), got {}", o.masters));
  }
  if (o.replicas < 0 || o.replicas > 3) {
    return Status::InvalidArgument(fmt::format("--replicas must be 0..3 (per master), got {}", o.replicas));
  }
  if (o.sizes.empty() || o.payloads.empty()) return Status::InvalidArgument("--sizes and --payload need an item each");
  if (!(o.cell_duration_s >= 0.2 && o.cell_duration_s <= 3600)) {
    return Status::InvalidArgument(fmt::format("--cell-duration must be 0.2 s .. 1 h, got {}", o.cell_duration_s));
  }
  if (o.node_timeout_ms < 100 || o.node_timeout_ms > 600000) {
    return Status::InvalidArgument(fmt::format("--node-timeout must be 100 ms .. 10 min, got {} ms", o.node_timeout_ms));
  }
  if (o.clients < 1 || o.clients > 256) return Status::InvalidArgument(fmt::format("--clients must be 1..256, got {}", o.clients));
  if (o.pipeline < 1 || o.pipeline > 256) return Status::InvalidArgument(fmt::format("--pipeline must be 1..256, got {}", o.pipeline));
  if (o.threads < 1 || o.threads > 64 || o.threads > o.clients) {
    return Status::InvalidArgument(fmt::format("--threads must be 1..64 and at most --clients ({}), got {}", o.clients,
                                               o.threads));
  }
  if (!(o.compress_ratio >= 1 && o.compress_ratio <= 1000)) {
    return Status::InvalidArgument(fmt::format("--compress-ratio must be 1 .. 1000, got {}", o.compress_ratio));
  }
  if (o.keys > 100'000'000) return Status::InvalidArgument(fmt::format("--keys must be at most 100000000, got {}", o.keys));
  if (o.data_bytes < 1 || o.data_bytes > (uint64_t{64} << 30)) {
    return Status::InvalidArgument("--data-bytes must be 1 B .. 64 GiB");
  }
  if (o.probe_bytes != 0 && (o.probe_bytes < (uint64_t{2} << 20) || o.probe_bytes > (uint64_t{4} << 30))) {
    return Status::InvalidArgument("--probe-size must be 0 (no probe) or 2 MiB .. 4 GiB");
  }
  return Status::OK();
}

Result<ScenarioReport> RunDurabilityOverload(const DurabilityOverloadOptions& o, const ScenarioContext& ctx) {
  if (Status s = ValidateDurabilityOverload(o); !s.ok()) return s;
  ScenarioReport report;
  report.scenario = kName;
  report.runs_requested = ctx.runs;
  if (std::string missing = NotInstalledLine(SystemKind::kRedis); !missing.empty()) {
    report.Mark(ScenarioVerdict::kPartial, missing);
    report.configuration_lines = report.verdict_lines;
    report.blocks.push_back({"Results", "    nothing ran: the scenario needs redis-server\n"});
    return report;
  }
  ctx.Progress(kName, fmt::format("{} cells of {:g} s: {} s of load in all, plus a cluster start per mode and run",
                                  PlannedCellSeconds(o, ctx.runs) / o.cell_duration_s, o.cell_duration_s,
                                  ApproxSeconds(PlannedCellSeconds(o, ctx.runs))));
  DurabilityMeasured m = Procedure(o, ctx, &report).Run();
  FillDurabilityReport(o, m, &report);
  if (ctx.interrupted()) report.Mark(ScenarioVerdict::kInterrupted, "interrupted: the cells so far, marked partial");
  return report;
}

}  // namespace memstand
