// replication-cost's report: the tables per system, the knees, the ratios at equal
// concurrency, the invariants, the JSON and the evidence CSVs (docs/scenarios/replication-cost.md).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "report/repeat.h"
#include "scenario/kit/ranges.h"
#include "scenario/replication_cost/json.h"
#include "scenario/replication_cost/run.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = replication_cost_json;

// A comparison at equal concurrency: path a against path b of one system.
struct RatioSpec {
  const char* system;
  const char* a;
  const char* b;
  const char* reading;
};
constexpr RatioSpec kRatios[] = {
    {"tarantool", "sync-write", "async-write", "the price of a majority quorum (is_sync) over asynchronous replication"},
    {"tarantool", "sync-write-all", "async-write",
     "the price of a quorum of every member (is_sync; stricter than a majority) over asynchronous replication"},
    {"tarantool", "read-replicas", "read-master", "reads round robin over the replicas against reads from the master"},
    {"redis", "set+wait1", "set", "SET + WAIT 1 against SET alone"},
    {"redis", "set+wait2", "set", "SET + WAIT 2 against SET alone"},
};

struct Ratio {
  int run = 1;
  std::string system, a, b;
  uint64_t concurrency = 0;
  double throughput = 0;  // ops/s a / ops/s b
  double p50 = 0, p99 = 0, mean = 0;
  bool flagged = false;  // either cell's client was the bottleneck
};

struct Knee {
  int run = 1;
  std::string system, path;
  std::optional<size_t> index;  // into cells
  std::vector<const ReplicationCell*> cells;
  std::string text;
};

std::string Fixed(double v, int digits = 0) { return fmt::format("{:.{}f}", v, digits); }

std::string Latency(const ReplicationCell& c, double ReplicationCell::*field, double ReplicationCommand::*part) {
  if (c.commands.size() < 2) return Fixed(c.*field);
  std::string out;
  for (const ReplicationCommand& k : c.commands) out += (out.empty() ? "" : "+") + Fixed(k.*part);
  return out;
}

std::string ServersText(const ReplicationCell& c) {
  std::string out;
  for (const ReplicationNodeCpu& n : c.servers) out += fmt::format("{}{} {:.2f}", out.empty() ? "" : ", ", n.node, n.core_share);
  return out;
}

std::string CellRow(const ReplicationCell& c) {
  if (!c.failure.empty()) {
    return fmt::format("    {:<14} {:>5}  FAILED: {}\n", c.path, c.concurrency, c.failure);
  }
  return fmt::format("    {:<14} {:>5} {:>9} {:>11} {:>11} {:>9} {:>7} {:>6} {:<2} {}\n", c.path, c.concurrency,
                     Fixed(c.ops_per_sec), Latency(c, &ReplicationCell::p50_us, &ReplicationCommand::p50_us),
                     Latency(c, &ReplicationCell::p99_us, &ReplicationCommand::p99_us), Fixed(c.mean_us), c.errors,
                     fmt::format("{:.2f}", c.client_core_share), c.client_bottleneck ? "!" : "", ServersText(c));
}

std::string TableText(const ReplicationSystemRun& r) {
  std::string out = fmt::format("    {:<14} {:>5} {:>9} {:>11} {:>11} {:>9} {:>7} {:>6} {:<2} {}\n", "PATH", "CONN",
                                "OPS/S", "P50 µs", "P99 µs", "MEAN µs", "ERRORS", "CLIENT", "", "SERVERS (core share)");
  for (const ReplicationCell& c : r.cells) out += CellRow(c);
  for (const ReplicationCell& c : r.cells) {
    if (c.stalled) {
      const std::string what =
          c.measured_s <= 0 ? "no reply after the warm-up: every connection was still waiting for a request sent before"
                            : fmt::format("{} request(s) unanswered by the end of the cell and its 2 s drain",
                                          c.unanswered);
      out += fmt::format("      {} at {}: {}{}\n", c.path, c.concurrency, what,
                         c.queue_wait_ms > 0 ? fmt::format("; waited {} ms (replication_synchro_timeout + 0.5 s) "
                                                           "for the master's queue before counting",
                                                           c.queue_wait_ms)
                                             : "");
    }
    for (const auto& [kind, count_text] : c.error_kinds) {
      out += fmt::format("      {} at {}: {} x {}, first: {}\n", c.path, c.concurrency, count_text.first, kind,
                         count_text.second);
    }
  }
  return out;
}

// Knees of every path of every system run, in path order of first appearance.
std::vector<Knee> KneesOf(const std::vector<ReplicationSystemRun>& runs) {
  std::vector<Knee> knees;
  for (const ReplicationSystemRun& r : runs) {
    std::vector<std::string> paths;
    for (const ReplicationCell& c : r.cells) {
      if (std::find(paths.begin(), paths.end(), c.path) == paths.end()) paths.push_back(c.path);
    }
    for (const std::string& path : paths) {
      Knee k{r.run, r.system, path, std::nullopt, {}, ""};
      std::vector<KneePoint> points;
      for (const ReplicationCell& c : r.cells) {
        if (c.path != path || !c.ok() || c.stalled) continue;
        k.cells.push_back(&c);
        points.push_back({c.concurrency, c.ops_per_sec, c.p99_us});
      }
      k.index = ReplicationKnee(points);
      if (k.index) {
        const ReplicationCell& at = *k.cells[*k.index];
        const ReplicationCell& next = *k.cells[*k.index + 1];
        k.text = fmt::format("knee at concurrency {}: {:.0f} ops/s, p50 {:.0f} µs, p99 {:.0f} µs (to {}: {:.0f} "
                             "ops/s, p99 {:.0f} µs){}",
                             at.concurrency, at.ops_per_sec, at.p50_us, at.p99_us, next.concurrency,
                             next.ops_per_sec, next.p99_us, at.client_bottleneck ? "; client-bound (!)" : "");
      } else if (!k.cells.empty()) {
        const ReplicationCell& last = *k.cells.back();
        const std::string why =
            k.cells.size() < 3 ? fmt::format("{} step(s), a knee needs 3", k.cells.size())
                               : fmt::format("throughput kept rising by {:.0f}% or more, or p99 did not rise where it "
                                             "stopped", kReplicationKneeMinGain * 100);
        k.text = fmt::format("no knee within the range: {}; at the highest concurrency {}: {:.0f} ops/s, p50 {:.0f} "
                             "µs, p99 {:.0f} µs{}",
                             why, last.concurrency, last.ops_per_sec, last.p50_us, last.p99_us,
                             last.client_bottleneck ? "; client-bound (!)" : "");
      } else {
        k.text = "no cell of this path held without stalling";
      }
      knees.push_back(std::move(k));
    }
  }
  return knees;
}

const ReplicationCell* Find(const ReplicationSystemRun& r, const std::string& path, uint64_t concurrency) {
  for (const ReplicationCell& c : r.cells) {
    if (c.path == path && c.concurrency == concurrency && c.ok() && c.ops_per_sec > 0) return &c;
  }
  return nullptr;
}

double Div(double a, double b) { return b > 0 ? a / b : 0; }

std::vector<Ratio> RatiosOf(const ReplicationCostOptions& o, const std::vector<ReplicationSystemRun>& runs) {
  std::vector<Ratio> out;
  for (const ReplicationSystemRun& r : runs) {
    for (const RatioSpec& spec : kRatios) {
      if (r.system != spec.system) continue;
      for (uint64_t c : o.concurrency) {
        const ReplicationCell* a = Find(r, spec.a, c);
        const ReplicationCell* b = Find(r, spec.b, c);
        if (a == nullptr || b == nullptr) continue;
        out.push_back({r.run, r.system, spec.a, spec.b, c, Div(a->ops_per_sec, b->ops_per_sec),
                       Div(a->p50_us, b->p50_us), Div(a->p99_us, b->p99_us), Div(a->mean_us, b->mean_us),
                       a->client_bottleneck || b->client_bottleneck});
      }
    }
  }
  return out;
}

std::vector<Invariant> InvariantsOf(const ReplicationCell& c) {
  std::vector<Invariant> out;
  for (const auto& [node, count] : c.replica_counts) {
    out.push_back(MakeInvariant(node + " count", count, "master count", c.master_count));
  }
  return out;
}

std::string CellName(const ReplicationCell& c) {
  return fmt::format("run {} {} {} at {}", c.run, c.system, c.path, c.concurrency);
}

json CellJson(const ReplicationCell& c) {
  json commands = json::array();
  for (const ReplicationCommand& k : c.commands) {
    commands.push_back({{"label", k.label}, {"ops", k.ops}, {"errors", k.errors}, {"p50_us", k.p50_us},
                        {"p99_us", k.p99_us}, {"mean_us", k.mean_us}});
  }
  json servers = json::array();
  for (const ReplicationNodeCpu& n : c.servers) servers.push_back({{"node", n.node}, {"pid", n.pid}, {"core_share", n.core_share}});
  json j = {{key::kRun, c.run}, {key::kSystem, c.system}, {key::kPath, c.path}, {key::kConcurrency, c.concurrency},
            {"write", c.write}, {key::kOk, c.ok()}, {"failure", c.failure.empty() ? json(nullptr) : json(c.failure)},
            {"measured_s", c.measured_s}, {"ops", c.ops}, {key::kOpsPerSec, c.ops_per_sec}, {"p50_us", c.p50_us},
            {key::kP99Us, c.p99_us}, {"mean_us", c.mean_us}, {"errors", c.errors}, {"unanswered", c.unanswered},
            {key::kStalled, c.stalled}, {"queue_wait_ms", c.queue_wait_ms},
            {"first_error", c.first_error.empty() ? json(nullptr) : json(c.first_error)},
            {"errors_by_kind", [&] {
               json k = json::array();
               for (const auto& [kind, n] : c.error_kinds) k.push_back({{"kind", kind}, {"count", n.first}, {"first", n.second}});
               return k;
             }()},
            {"hits", c.hits},
            {"misses", c.misses}, {"commands", commands}, {"client_core_share", c.client_core_share},
            {"client_bottleneck", c.client_bottleneck}, {"servers", servers}};
  if (c.counted) {
    json replicas = json::object();
    for (const auto& [node, count] : c.replica_counts) replicas[node] = count;
    j["replication"] = {{"master_count", c.master_count}, {"replica_counts", replicas}, {"settle_ms", c.settle_ms},
                        {"settled", c.settled}};
  }
  return j;
}

std::vector<std::string> CellCsv(const ReplicationCell& c) {
  std::string replicas;
  for (const auto& [node, count] : c.replica_counts) replicas += (replicas.empty() ? "" : " ") + node + "=" + std::to_string(count);
  std::string servers;
  for (const ReplicationNodeCpu& n : c.servers) servers += (servers.empty() ? "" : " ") + n.node + "=" + fmt::format("{:.4f}", n.core_share);
  std::string parts;
  for (const ReplicationCommand& k : c.commands) {
    parts += fmt::format("{}{}:ops={}:p50={:.1f}:p99={:.1f}:mean={:.1f}", parts.empty() ? "" : " ", k.label, k.ops,
                         k.p50_us, k.p99_us, k.mean_us);
  }
  return {std::to_string(c.run), c.system, c.path, std::to_string(c.concurrency), c.ok() ? "true" : "false",
          c.failure, fmt::format("{:.6f}", c.measured_s), std::to_string(c.ops), fmt::format("{:.1f}", c.ops_per_sec),
          fmt::format("{:.1f}", c.p50_us), fmt::format("{:.1f}", c.p99_us), fmt::format("{:.1f}", c.mean_us),
          std::to_string(c.errors), std::to_string(c.unanswered), [&] {
            std::string kinds;
            for (const auto& [kind, n] : c.error_kinds) kinds += (kinds.empty() ? "" : " | ") + kind + "=" + std::to_string(n.first);
            return kinds;
          }(), std::to_string(c.hits), std::to_string(c.misses), parts,
          fmt::format("{:.4f}", c.client_core_share), c.client_bottleneck ? "true" : "false", servers,
          c.counted ? std::to_string(c.master_count) : "", replicas, c.counted ? std::to_string(c.settle_ms) : "",
          c.counted ? (c.settled ? "true" : "false") : ""};
}

std::string SystemTitle(const std::string& system) {
  return system == "tarantool" ? fmt::format("Tarantool replica set (1 master, {} replicas)", kTarantoolReplicas)
                               : fmt::format("Redis primary + {} replicas", kRedisReplicas);
}

bool QuorumTimedOut(const ReplicationSystemRun& r) {
  for (const ReplicationCell& c : r.cells) {
    for (const auto& [kind, n] : c.error_kinds) {
      if (n.second.find("Quorum collection") != std::string::npos) return true;
    }
  }
  return false;
}

void SystemBlocks(const std::vector<ReplicationSystemRun>& runs, ScenarioReport* report) {
  const bool many = std::any_of(runs.begin(), runs.end(), [](const ReplicationSystemRun& r) { return r.run > 1; });
  for (const char* system : {"tarantool", "redis"}) {
    std::string body;
    bool any = false;
    for (const ReplicationSystemRun& r : runs) {
      if (r.system != system) continue;
      any = true;
      if (many) body += fmt::format("    run {}:\n", r.run);
      if (!r.not_run.empty()) {
        body += "    " + r.not_run + "\n";
        continue;
      }
      for (const std::string& n : r.notes) body += "    " + n + "\n";
      if (!r.cells.empty()) body += TableText(r);
      if (QuorumTimedOut(r)) {
        body += fmt::format(
            "    sync-write: a synchronous transaction whose quorum was not collected within\n"
            "    replication_synchro_timeout was rolled back, and with it every transaction queued behind it\n"
            "    (Tarantool {} answers those 'Failed to write to disk'), while every replica was up and following;\n"
            "    seen here, not investigated further. The errors are the cells' results "
            "(docs/method.md rule 16).\n"
            "    sync-write-all (a quorum of every member, {} of {}) is the same write with the stricter quorum:\n"
            "    it did not lose a quorum in any run here (docs/scenarios.md).\n",
            r.version, 1 + kTarantoolReplicas, 1 + kTarantoolReplicas);
      }
      if (r.failure == "interrupted") {
        body += "    interrupted\n";
      } else if (!r.failure.empty()) {
        body += "    FAILED: " + r.failure + "\n";
      }
    }
    if (any) report->blocks.push_back({SystemTitle(system), body});
  }
}

void CpuLine(const std::vector<ReplicationSystemRun>& runs, ScenarioReport* report) {
  int flagged = 0, cells = 0;
  for (const ReplicationSystemRun& r : runs) {
    for (const ReplicationCell& c : r.cells) {
      cells += c.failure.empty();
      flagged += c.client_bottleneck;
    }
  }
  std::string body = fmt::format(
      "    CLIENT: memstand's load thread's CPU seconds / measured seconds (1.00 = one core); SERVERS: each\n"
      "    process's utime + stime over the cell's wall time (10 ms clock ticks). '!' marks a cell whose client\n"
      "    was above {:.0f}% of a core: it measures the load generator (docs/method.md rule 13). "
      "{} of {} cells marked.\n",
      kClientBottleneckShare * 100, flagged, cells);
  report->blocks.push_back({"Client and server CPU", body});
}

void Summary(const std::vector<Knee>& knees, const std::vector<Ratio>& ratios, int runs, ScenarioReport* report) {
  std::map<int, RunFigures> by_run;
  for (int k = 1; k <= runs; ++k) by_run[k];
  for (const Knee& k : knees) {
    if (k.index) by_run[k.run].figures.push_back({k.system + " " + k.path, "knee_ops_per_sec", "ops/s at the knee",
                                                  k.cells[*k.index]->ops_per_sec});
  }
  for (const Ratio& r : ratios) {
    by_run[r.run].figures.push_back({fmt::format("{} {}/{} at {}", r.system, r.a, r.b, r.concurrency),
                                     "throughput_ratio", "throughput ratio", r.throughput});
  }
  std::vector<RunFigures> figures;
  for (auto& [run, f] : by_run) figures.push_back(f);
  RepeatSummary sum = Summarize(figures, runs);
  std::string body;
  json summary = json::object();
  for (const FigureRange& f : sum.ranges) {
    body += fmt::format("    {} {}: {}\n", f.row, f.label, RangeText(f.range, "{:.3g}"));
    summary[f.row + " " + f.key] = RangeJson(f.range);
  }
  if (runs > 1) report->blocks.push_back({fmt::format("Over the {} runs", runs), body});
  report->json["summary"] = summary;
}

void KneeAndRatioBlocks(const std::vector<Knee>& knees, const std::vector<Ratio>& ratios, ScenarioReport* report) {
  std::string body = fmt::format(
      "    rule: the step after which the next adds less than {:.0f}% throughput while p99 rises, and no later\n"
      "    step gains it back (stats/knee.h); the WAIT paths' p99 is SET's + WAIT's\n",
      kReplicationKneeMinGain * 100);
  Table table{"knees", {"run", "system", "path", "found", "concurrency", "ops_per_sec", "p50_us", "p99_us", "text"}, {}};
  json kj = json::array();
  for (const Knee& k : knees) {
    body += fmt::format("    {}{} {}: {}\n", k.run > 1 || knees.back().run > 1 ? fmt::format("run {} ", k.run) : "",
                        k.system, k.path, k.text);
    const ReplicationCell* at = k.index ? k.cells[*k.index] : nullptr;
    table.rows.push_back({std::to_string(k.run), k.system, k.path, at ? "true" : "false",
                          at ? std::to_string(at->concurrency) : "", at ? Fixed(at->ops_per_sec, 1) : "",
                          at ? Fixed(at->p50_us, 1) : "", at ? Fixed(at->p99_us, 1) : "", k.text});
    kj.push_back({{"run", k.run}, {"system", k.system}, {"path", k.path}, {"found", at != nullptr},
                  {"concurrency", at ? json(at->concurrency) : json(nullptr)},
                  {"ops_per_sec", at ? json(at->ops_per_sec) : json(nullptr)},
                  {"p50_us", at ? json(at->p50_us) : json(nullptr)}, {"p99_us", at ? json(at->p99_us) : json(nullptr)},
                  {"client_bottleneck", at ? json(at->client_bottleneck) : json(nullptr)}, {"text", k.text}});
  }
  report->blocks.push_back({"Knees (docs/method.md rule 14)", body});
  report->tables.push_back(table);
  report->json["knees"] = kj;

  std::string rb;
  Table rt{"ratios", {"run", "system", "a", "b", "concurrency", "throughput_ratio", "p50_ratio", "p99_ratio",
                      "mean_ratio", "client_bottleneck"}, {}};
  json rj = json::array();
  std::string last;
  for (const Ratio& r : ratios) {
    std::string head = fmt::format("{} {} / {}", r.system, r.a, r.b);
    if (head != last) {
      for (const RatioSpec& s : kRatios) {
        if (r.system == s.system && r.a == s.a) rb += fmt::format("    {} ({}):\n", head, s.reading);
      }
      last = head;
    }
    rb += fmt::format("      {}at {:>4}: throughput {:.3f}x, p50 {:.3f}x, p99 {:.3f}x, mean {:.3f}x{}\n",
                      ratios.back().run > 1 ? fmt::format("run {} ", r.run) : "", r.concurrency, r.throughput, r.p50,
                      r.p99, r.mean, r.flagged ? "  (!: a client-bound cell)" : "");
    rt.rows.push_back({std::to_string(r.run), r.system, r.a, r.b, std::to_string(r.concurrency),
                       fmt::format("{:.4f}", r.throughput), fmt::format("{:.4f}", r.p50), fmt::format("{:.4f}", r.p99),
                       fmt::format("{:.4f}", r.mean), r.flagged ? "true" : "false"});
    rj.push_back({{key::kRun, r.run}, {key::kSystem, r.system}, {key::kA, r.a}, {key::kB, r.b},
                  {key::kConcurrency, r.concurrency}, {key::kThroughputRatio, r.throughput}, {"p50_ratio", r.p50},
                  {"p99_ratio", r.p99},
                  {"mean_ratio", r.mean}, {"client_bottleneck", r.flagged}});
  }
  report->blocks.push_back({"Ratios at equal concurrency (a / b, measured in the same run)",
                            rb.empty() ? "    none: no pair of cells completed\n" : rb});
  report->tables.push_back(rt);
  report->json[key::kRatios] = rj;
}

void InvariantBlock(const std::vector<ReplicationSystemRun>& runs, ScenarioReport* report) {
  std::string body;
  Table table{"invariants", {"cell", "invariant", "lhs_value", "rhs_value", "settle_ms", "ok"}, {}};
  for (const ReplicationSystemRun& r : runs) {
    for (const ReplicationCell& c : r.cells) {
      if (!c.counted) continue;
      body += fmt::format("    {}: {} after {} ms{}\n", CellName(c), c.settled ? "settled" : "NOT settled",
                          c.settle_ms, c.settled ? "" : " (the wait's bound)");
      Anomaly diverged{CellName(c), "tuples on replicas that the master does not have", 0, {}};
      for (const Invariant& i : InvariantsOf(c)) {
        body += "      " + i.Describe() + "\n";
        table.rows.push_back({CellName(c), i.name, std::to_string(i.lhs_value), std::to_string(i.rhs_value),
                              std::to_string(c.settle_ms), i.ok() ? "true" : "false"});
        if (i.ok()) continue;
        if (i.lhs_value > i.rhs_value) {
          // More on a replica than on the master is no lag: the replica kept what the
          // master rolled back (Tarantool 2.6's timed-out synchronous transactions). The
          // replicas diverged: the system's finding, not the instrument's failure.
          diverged.count += static_cast<uint64_t>(i.lhs_value - i.rhs_value);
          diverged.examples.push_back(fmt::format("{} after the {} ms wait", i.Describe(), c.settle_ms));
        } else {
          report->Mark(ScenarioVerdict::kFailed, CellName(c) + ": invariant broken: " + i.Describe());
        }
      }
      if (diverged.count > 0) {
        report->Mark(ScenarioVerdict::kFinding,
                     fmt::format("{}: the replicas diverged from the master: {} tuple(s) more on replicas than on it",
                                 CellName(c), diverged.count));
        report->anomalies.push_back(std::move(diverged));
      }
    }
  }
  report->blocks.push_back({"Invariants (after each write cell, every replica's count reaches the master's)",
                            body.empty() ? "    none checked: no write cell completed\n" : body});
  report->tables.push_back(table);
}

void Verdict(const std::vector<ReplicationSystemRun>& runs, bool interrupted, ScenarioReport* report) {
  for (const ReplicationSystemRun& r : runs) {
    if (!r.not_run.empty()) report->Mark(ScenarioVerdict::kPartial, r.system + ": " + r.not_run);
    if (!r.failure.empty() && r.failure != "interrupted") {
      report->Mark(ScenarioVerdict::kFailed, fmt::format("run {} {}: {}", r.run, r.system, r.failure));
    }
    for (const ReplicationCell& c : r.cells) {
      if (!c.failure.empty() && c.failure != "interrupted") {
        report->Mark(ScenarioVerdict::kFailed, CellName(c) + ": " + c.failure);
      }
    }
  }
  if (interrupted) report->Mark(ScenarioVerdict::kInterrupted, "interrupted: the cells so far, marked partial");
}

void Describe(const ReplicationCostOptions& o, const std::vector<ReplicationSystemRun>& runs, ScenarioReport* report) {
  for (const char* system : {"tarantool", "redis"}) {
    for (const ReplicationSystemRun& r : runs) {
      if (r.system != system || !r.not_run.empty() || r.description.empty()) continue;
      report->configuration_lines.push_back(
          std::string(system) + " " + r.version + ": " + r.description +
          (r.system == "tarantool"
               ? fmt::format("; box.cfg replication_synchro_quorum={} replication_synchro_timeout={:g} on every member "
                             "(the master's quorum set to {} before each sync-write-all cell, back to {} before each "
                             "sync-write cell)",
                             MajorityQuorum(1 + kTarantoolReplicas), o.synchro_timeout_s, 1 + kTarantoolReplicas,
                             MajorityQuorum(1 + kTarantoolReplicas))
               : "; replicas started with --replicaof, repl-diskless-sync-delay 0, no persistence"));
      break;
    }
  }
  std::string levels = fmt::format("{}", fmt::join(o.concurrency, ", "));
  report->procedure = {
      "fresh servers each run, through the stand: tarantool-replicaset (master + 3 read-only replicas, full mesh) "
      "and redis-replica (primary + 2 replicas)",
      "Tarantool spaces async, sync and sync_all (both is_sync = true), format id unsigned, bucket_id unsigned "
      "nullable, value string; primary index on id",
      fmt::format("paths: tarantool async-write / sync-write (majority quorum) / sync-write-all (every member) = "
                  "replace [__seq__, nil, {} random chars] into async / sync / sync_all on the master; "
                  "read-master / read-replicas = select by a uniform id among those written, from the master or round "
                  "robin over the 3 replicas; redis set = SET of {} random bytes, set+wait1 / set+wait2 = each "
                  "connection alternates SET and WAIT N 0",
                  kReplicationValueSize, kReplicationValueSize),
      fmt::format("each path at concurrency {} (connections of one load thread, one request in flight each), {:g} s "
                  "measured after {:g} s of warm-up per cell; at each level the paths alternate order (A B, then B A)",
                  levels, o.step_s, o.warmup_s),
      fmt::format("after each write cell: every node's count (space:len(), DBSIZE) polled until each replica's equals "
                  "the master's, at most {} ms", o.settle_timeout_ms),
      fmt::format("expected duration: about {:.0f} s (more when a settle wait runs to its bound)",
                  ExpectedSeconds(o, report->runs_requested))};
  report->limits = {
      "one machine: every node shares its 2 cores and its disk with the others and with the client, so "
      "replicas compete with the master they replicate; a real replica set has a machine per node",
      "loopback: no network round trip between nodes, so the price of waiting for a replica here is mostly CPU "
      "and scheduling, not distance (see stretched-cache for distance)",
      "absolute throughput and latency describe this platform; the ratios at equal concurrency are the figures "
      "that travel (docs/method.md rule 1)",
      "the WAIT paths' latency is SET's + WAIT's: p50 and p99 of the two commands added (the mean is exact); a "
      "connection whose cycle starts with WAIT sends one WAIT that acknowledges nothing",
      "one load thread: past about one core the client is the limit (cells marked '!')"};
}

}  // namespace

void FillReplicationReport(const ReplicationCostOptions& o, const std::vector<ReplicationSystemRun>& runs, bool interrupted,
                           ScenarioReport* report) {
  Describe(o, runs, report);
  SystemBlocks(runs, report);
  CpuLine(runs, report);
  std::vector<Knee> knees = KneesOf(runs);
  std::vector<Ratio> ratios = RatiosOf(o, runs);
  KneeAndRatioBlocks(knees, ratios, report);
  InvariantBlock(runs, report);
  Summary(knees, ratios, report->runs_requested, report);
  Verdict(runs, interrupted, report);
  for (const ReplicationSystemRun& r : runs) {
    for (const ReplicationCell& c : r.cells) {
      if (c.validity) {
        report->judged.push_back(
            {fmt::format("run {} {} {} at concurrency {}", c.run, c.system, c.path, c.concurrency), *c.validity});
      }
    }
  }
  Table cells{"cells", {"run", "system", "path", "concurrency", "ok", "failure", "measured_s", "ops", "ops_per_sec",
                        "p50_us", "p99_us", "mean_us", "errors", "unanswered", "error_kinds", "hits", "misses", "commands", "client_core_share",
                        "client_bottleneck", "servers_core_share", "master_count", "replica_counts", "settle_ms",
                        "settled"}, {}};
  json cj = json::array();
  json systems = json::array();
  for (const ReplicationSystemRun& r : runs) {
    report->files.insert(r.files.begin(), r.files.end());
    for (const ReplicationCell& c : r.cells) {
      cells.rows.push_back(CellCsv(c));
      cj.push_back(CellJson(c));
    }
    systems.push_back({{"run", r.run}, {"system", r.system}, {"version", r.version},
                       {"not_run", r.not_run.empty() ? json(nullptr) : json(r.not_run)},
                       {"failure", r.failure.empty() ? json(nullptr) : json(r.failure)}, {"servers", r.description},
                       {"notes", r.notes}});
  }
  report->tables.insert(report->tables.begin(), cells);
  report->json[key::kCells] = cj;
  report->json["systems"] = systems;
  report->json["concurrency"] = o.concurrency;
  report->json["step_seconds"] = o.step_s;
  report->json["warmup_seconds"] = o.warmup_s;
  report->json["value_size"] = kReplicationValueSize;
  report->json["knee_min_gain"] = kReplicationKneeMinGain;
  report->json["client_bottleneck_share"] = kClientBottleneckShare;
  report->json["tarantool_synchro_quorum"] = MajorityQuorum(1 + kTarantoolReplicas);
  report->json["tarantool_sync_quorums"] = o.sync_quorums;
  report->json["tarantool_synchro_timeout_s"] = o.synchro_timeout_s;
  report->json["settle_timeout_ms"] = o.settle_timeout_ms;
}

}  // namespace memstand
