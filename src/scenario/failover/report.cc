// failover's report: the blocks, the tables, the JSON and the findings from its cells.
#include <algorithm>

#include <fmt/format.h>

#include "history/check_result.h"
#include "scenario/failover/cell.h"
#include "scenario/failover/json.h"
#include "scenario/kit/check_findings.h"
#include "scenario/kit/ops_seconds.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = failover_json;

std::string Seconds(double s) { return s < 0 ? "-" : fmt::format("{:.3f}", s); }
json SecondsJson(double s) { return s < 0 ? json(nullptr) : json(s); }

uint64_t Count(const FailoverCell& cell, const char* check, const char* kind) { return CheckCount(cell.checks, check, kind); }
std::string VerdictOf(const FailoverCell& cell, const char* check) { return CheckVerdict(cell.checks, check); }

json CellJson(const FailoverCell& c) {
  const WriteOutage& o = c.outage;
  auto rel = [&](int64_t ns) { return ns < 0 ? json(nullptr) : json(static_cast<double>(ns) / 1e9); };
  return {{key::kRun, c.run},
          {key::kConfiguration, c.configuration},
          {key::kFault, c.fault},
          {key::kNotRun, c.not_run.empty() ? json(nullptr) : json(c.not_run)},
          {key::kFailure, c.failure.empty() ? json(nullptr) : json(c.failure)},
          {key::kVersion, c.version},
          {key::kVictim, c.victim},
          {key::kVictimAddress, c.victim_address},
          {key::kSuccessor, c.successor},
          {key::kNewPrimary, c.new_primary},
          {key::kFaultS, SecondsJson(c.fault_s)},
          {key::kDetectS, SecondsJson(c.detect_s)},
          {key::kPromoteS, SecondsJson(c.promote_s)},
          {key::kOutageS, SecondsJson(o.outage_s)},
          {key::kFirstOkS, rel(o.first_ok_ns)},
          {key::kFirstOkNode, o.first_ok_node},
          {key::kFirstOkElsewhereS, rel(o.first_ok_elsewhere_ns)},
          {key::kFirstOkElsewhereNode, o.first_ok_elsewhere_node},
          {key::kOutageWrites, {{key::kOk, o.writes_ok}, {key::kFail, o.writes_fail}, {key::kUnknown, o.writes_unknown}}},
          {key::kOutageReads, {{key::kOk, o.reads_ok}, {key::kFail, o.reads_fail}}},
          {key::kWrites,
           {{key::kOk, o.all_writes_ok}, {key::kFail, o.all_writes_fail}, {key::kUnknown, o.all_writes_unknown}}},
          {key::kRecords, c.records},
          {key::kConnectionsLost, c.reconnects},
          {key::kLost, Count(c, "lost-writes", "lost")},
          {key::kRecovered, Count(c, "lost-writes", "recovered")},
          {key::kUnexpected, Count(c, "lost-writes", "unexpected")},
          {key::kNotLinearizable, Count(c, "linearizable", "not linearizable")},
          {key::kChecks, ChecksJson(c.checks)},
          {key::kSchedule, c.schedule},
          {key::kSeconds, OpsSecondsJson(c.seconds)},
          {key::kHistoryFile, c.history_file}};
}

// The seconds are relative to the history's start; the outage from the fault.
std::string ResultsBlock(const std::vector<FailoverCell>& cells) {
  std::string out = fmt::format("    {:<19} {:<6} {:>3} {:>8} {:>8} {:>8} {:>8} {:>10}  {:>20}  {:>5} {:>9} {:>10}  {}\n",
                                "configuration", "fault", "run", "fault s", "detect", "promote", "outage",
                                "elsewhere", "writes ok/fail/unkn.", "lost", "recovered", "unexpected",
                                "linearizable");
  for (const FailoverCell& c : cells) {
    if (!c.ok()) {
      out += fmt::format("    {:<19} {:<6} {:>3} {}\n", c.configuration, c.fault, c.run,
                         c.not_run.empty() ? "FAILED: " + c.failure : c.not_run);
      continue;
    }
    const WriteOutage& o = c.outage;
    const double elsewhere = o.first_ok_elsewhere_ns < 0 ? -1 : static_cast<double>(o.first_ok_elsewhere_ns) / 1e9;
    out += fmt::format("    {:<19} {:<6} {:>3} {:>8} {:>8} {:>8} {:>8} {:>10}  {:>20}  {:>5} {:>9} {:>10}  {}\n",
                       c.configuration, c.fault, c.run, Seconds(c.fault_s), Seconds(c.detect_s),
                       Seconds(c.promote_s), Seconds(o.outage_s), Seconds(elsewhere),
                       fmt::format("{}/{}/{}", o.writes_ok, o.writes_fail, o.writes_unknown),
                       Count(c, "lost-writes", "lost"), Count(c, "lost-writes", "recovered"),
                       Count(c, "lost-writes", "unexpected"), VerdictOf(c, "linearizable"));
  }
  out +=
      "    (seconds since the history's start; detect: a surviving node marks the primary failed (a Sentinel: o_down; etcd: none, "
      "the election is the detection; tarantool: memstand's orchestrator declares the master dead, its pings unanswered "
      "for the node timeout); promote: the successor says it is primary; outage: from the fault to the "
      "first acknowledged write sent after it; elsewhere: the first acknowledged write from another node than the "
      "one faulted; writes: those that ended during the outage)\n";
  return out;
}

std::string DetailBlock(const std::vector<FailoverCell>& cells) {
  std::string out;
  for (const FailoverCell& c : cells) {
    if (!c.ok()) {
      if (c.schedule.empty()) continue;
      out += fmt::format("    {}: not measured: {}\n", c.Label(), c.not_run.empty() ? c.failure : c.not_run);
      for (const std::string& s : c.schedule) out += "      nemesis: " + s + "\n";
      continue;
    }
    out += fmt::format("    {}: {} {} (address {}), successor {}, new primary {}; {} operations recorded, {} "
                       "connection(s) lost; writes in the run ok {}, fail {}, unknown {}\n",
                       c.Label(), c.fault, c.victim, c.victim_address, c.successor.empty() ? "-" : c.successor,
                       c.new_primary.empty() ? "not seen" : c.new_primary, c.records, c.reconnects,
                       c.outage.all_writes_ok, c.outage.all_writes_fail, c.outage.all_writes_unknown);
    for (const std::string& s : c.schedule) out += "      nemesis: " + s + "\n";
    for (const history::CheckResult& r : c.checks) {
      out += fmt::format("      {}: {}: {}\n", r.check, history::VerdictName(r.verdict), r.summary);
    }
  }
  return out.empty() ? "    none measured\n" : out;
}

// A WAIT configuration's promise: WAIT blocks until replicas acknowledged the write, and
// Redis documents that this does not make it strongly consistent.
std::string WaitContract(const std::string& configuration) {
  return fmt::format("{} with WAIT 1 after every write: Redis documents that WAIT does not make it strongly "
                     "consistent; a failover may still lose an acknowledged write",
                     configuration.starts_with("redis-cluster") ? "Redis Cluster" : "Redis + Sentinel");
}

// What each configuration promises about acknowledged writes (docs/exit-codes.md).
std::string Contract(const std::string& configuration) {
  if (configuration.ends_with("-wait")) return WaitContract(configuration);
  if (configuration == "etcd") return "etcd promises linearizable reads and writes: none may be lost";
  if (configuration == "tarantool") {
    return "Tarantool 2.6 replicates asynchronously (synchronous replication is per space and not used here): a "
           "master's death may lose the acknowledged writes no replica had yet";
  }
  if (configuration == "redis-sentinel") {
    return "Redis replicates asynchronously: Sentinel documents that a failover may lose acknowledged writes";
  }
  return "Redis Cluster replicates asynchronously: it documents that a failover may lose acknowledged writes";
}

std::string WaitProcedure(const FailoverOptions& o) {
  return fmt::format("redis-cluster-wait and redis-sentinel-wait: the same topologies, faults and load, every write "
                     "followed by WAIT 1 {0} on its connection, one operation with it: ok when WAIT says a replica "
                     "acknowledged the write, unknown when none did within {0} ms (the primary applied it: a "
                     "failover may or may not keep it)",
                     o.wait_timeout_ms);
}

}  // namespace

void FillFailoverReport(const FailoverOptions& o, const std::vector<FailoverCell>& cells, bool interrupted,
                        ScenarioReport* report) {
  report->procedure = {
      fmt::format("each configuration on a fresh topology: redis-cluster (3 masters with a replica each, "
                  "cluster-node-timeout {0} ms; every key in the slot of hash tag {{fo}}, so on one master), "
                  "redis-sentinel (a primary, 2 replicas, 3 Sentinels, down-after-milliseconds {0}; the load "
                  "through the Sentinel target redis+sentinel://), etcd (3 members), tarantool (a master and 2 replicas, "
                  "asynchronous; Tarantool 2.6 elects no one, so memstand is the orchestrator: it pings the master "
                  "every 10 ms, declares it dead after {0} ms unanswered, promotes the replica with the highest "
                  "vclock component of the master's id (box.cfg{{read_only = false}}), points the other at it, and "
                  "fences the old master when it answers again; the load through the RW pool tarantool+rw://, which "
                  "writes to the member whose box.info.ro is false)",
                  o.node_timeout_ms),
      WaitProcedure(o),
      fmt::format("load: open loop at {:g} operations/s over {} connections, SET and GET (etcd: put and get; tarantool: replace "
                  "and select) "
                  "half each over {} keys, values of 32 B each tagged with its write; every operation in a history; "
                  "a lost connection is opened again (20-200 ms), a reply later than 1 s is a lost connection",
                  o.rate, o.clients, o.keys),
      fmt::format("the fault at {} s of {} s: kill (SIGKILL) the primary (the slot's master, etcd's leader), or "
                  "pause it (SIGSTOP) for {} s and resume it",
                  ApproxSeconds(o.fault_at_s), ApproxSeconds(o.duration_s), ApproxSeconds(o.pause_s)),
      "the failure detector and the promotion are polled every 10 ms from the fault on (their resolution)",
      "after the load: every written key read once from the new primary (lost-writes), and the history searched "
      "for a linearizable order (linearizable)"};
  report->limits = {
      "one machine, loopback: no network latency, loss or partition between the nodes (a stream relay could not "
      "emulate packet loss or TCP's reaction to it either)",
      "a run that loses no acknowledged write does not show that the system cannot lose one: asynchronous "
      "replication on loopback usually has the replica caught up when the master dies",
      "the outage is measured from the client's side, with the client's timeouts: another client's would differ"};
  json jcells = json::array();
  Table table{"cells",
              {"run", "configuration", "fault", "fault_s", "detect_s", "promote_s", "outage_s", "writes_ok",
               "writes_fail", "writes_unknown", "lost", "recovered", "unexpected", "linearizable", "failure"},
              {}};
  for (const FailoverCell& c : cells) {
    jcells.push_back(CellJson(c));
    table.rows.push_back({std::to_string(c.run), c.configuration, c.fault, Seconds(c.fault_s), Seconds(c.detect_s),
                          Seconds(c.promote_s), Seconds(c.outage.outage_s), std::to_string(c.outage.writes_ok),
                          std::to_string(c.outage.writes_fail), std::to_string(c.outage.writes_unknown),
                          std::to_string(Count(c, "lost-writes", "lost")),
                          std::to_string(Count(c, "lost-writes", "recovered")),
                          std::to_string(Count(c, "lost-writes", "unexpected")), VerdictOf(c, "linearizable"),
                          c.ok() ? "" : (c.not_run.empty() ? c.failure : c.not_run)});
    if (c.run == 1 && c.ok()) {
      const std::string line = fmt::format("{}: {}", c.configuration, c.version);
      if (std::find(report->configuration_lines.begin(), report->configuration_lines.end(), line) ==
          report->configuration_lines.end()) {
        report->configuration_lines.push_back(line);
      }
    }
    if (!c.not_run.empty()) {
      report->Mark(ScenarioVerdict::kPartial, fmt::format("{}: {}", c.Label(), c.not_run));
      continue;
    }
    if (!c.failure.empty()) {
      report->Mark(c.failure == "interrupted" ? ScenarioVerdict::kInterrupted : ScenarioVerdict::kFailed,
                   fmt::format("{}: {}", c.Label(), c.failure));
      continue;
    }
    MarkChecks(c.Label(), c.checks, Contract(c.configuration), report);
    if (Count(c, "lost-writes", "lost") == 0 && c.configuration != "etcd") {
      report->verdict_lines.push_back(
          c.new_primary.empty()
              ? fmt::format("{}: no acknowledged write lost in this run: no replica was promoted while it was "
                            "watched (the primary came back first)",
                            c.Label())
              : fmt::format("{}: no acknowledged write lost in this run: the replica had every acknowledged write "
                            "when it was promoted (the contract allows a loss; this run did not show one)",
                            c.Label()));
    }
  }
  if (interrupted) report->Mark(ScenarioVerdict::kInterrupted, "interrupted");
  report->blocks.push_back({"Results: the fault, its detection, the outage and what the checks found",
                            ResultsBlock(cells)});
  report->blocks.push_back({"Each cell: the nemesis's steps and the checks' summaries", DetailBlock(cells)});
  report->tables.push_back(std::move(table));
  report->json[key::kCells] = std::move(jcells);
}

}  // namespace memstand
