// partition's report: the blocks, the tables, the JSON from its cells.
#include <algorithm>

#include <fmt/format.h>

#include "history/check_result.h"
#include "scenario/kit/check_findings.h"
#include "scenario/kit/ops_seconds.h"
#include "scenario/partition/cell.h"
#include "scenario/partition/json.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = partition_json;

std::string Seconds(double s) { return s < 0 ? "-" : fmt::format("{:.3f}", s); }
json SecondsJson(double s) { return s < 0 ? json(nullptr) : json(s); }

uint64_t Count(const PartitionCell& cell, const char* check, const char* kind) { return CheckCount(cell.checks, check, kind); }
std::string VerdictOf(const PartitionCell& cell, const char* check) { return CheckVerdict(cell.checks, check); }

json CellJson(const PartitionCell& c) {
  const WriteOutage& o = c.outage;
  return {{key::kRun, c.run},
          {key::kSide, c.side},
          {key::kMinReplicas, c.min_replicas},
          {key::kNotRun, c.not_run.empty() ? json(nullptr) : json(c.not_run)},
          {key::kFailure, c.failure.empty() ? json(nullptr) : json(c.failure)},
          {key::kVersion, c.version},
          {key::kOldPrimary, c.old_primary},
          {key::kOldPrimaryAddress, c.old_primary_address},
          {key::kNewPrimary, c.new_primary},
          {key::kCutS, SecondsJson(c.cut_s)},
          {key::kHealS, SecondsJson(c.heal_s)},
          {key::kDetectS, SecondsJson(c.detect_s)},
          {key::kPromoteS, SecondsJson(c.promote_s)},
          {key::kDemoteS, SecondsJson(c.demote_s)},
          {key::kOutageS, SecondsJson(o.outage_s)},
          {key::kOldPrimaryWritesOk, c.old_primary_writes_ok},
          {key::kWritesAfterCut, {{key::kOk, c.writes_ok_after_cut}, {key::kFail, c.writes_fail_after_cut}}},
          {key::kWrites,
           {{key::kOk, o.all_writes_ok}, {key::kFail, o.all_writes_fail}, {key::kUnknown, o.all_writes_unknown}}},
          {key::kRecords, c.records},
          {key::kConnectionsLost, c.reconnects},
          {key::kSettled, c.settled.empty() ? json(nullptr) : json(c.settled)},
          {key::kLost, Count(c, "lost-writes", "lost")},
          {key::kRecovered, Count(c, "lost-writes", "recovered")},
          {key::kUnexpected, Count(c, "lost-writes", "unexpected")},
          {key::kNotLinearizable, Count(c, "linearizable", "not linearizable")},
          {key::kChecks, ChecksJson(c.checks)},
          {key::kSchedule, c.schedule},
          {key::kSeconds, OpsSecondsJson(c.seconds)},
          {key::kHistoryFile, c.history_file}};
}

std::string ResultsBlock(const std::vector<PartitionCell>& cells) {
  std::string out = fmt::format("    {:<13} {:>4} {:>3} {:>7} {:>7} {:>8} {:>8} {:>7} {:>8}  {:>14} {:>14}  {:>5} {:>6}  {}\n",
                                "clients", "min", "run", "cut", "heal", "promote", "demote", "outage", "old ok",
                                "writes ok/fail", "lost", "recov.", "unexp.", "linearizable");
  for (const PartitionCell& c : cells) {
    if (!c.ok()) {
      out += fmt::format("    {:<13} {:>4} {:>3} {}\n", c.side, c.min_replicas, c.run,
                         c.not_run.empty() ? "FAILED: " + c.failure : c.not_run);
      continue;
    }
    out += fmt::format("    {:<13} {:>4} {:>3} {:>7} {:>7} {:>8} {:>8} {:>7} {:>8}  {:>14} {:>14}  {:>5} {:>6}  {}\n",
                       c.side, c.min_replicas, c.run, Seconds(c.cut_s), Seconds(c.heal_s), Seconds(c.promote_s),
                       Seconds(c.demote_s), Seconds(c.outage.outage_s), c.old_primary_writes_ok,
                       fmt::format("{}/{}", c.writes_ok_after_cut, c.writes_fail_after_cut),
                       Count(c, "lost-writes", "lost"), Count(c, "lost-writes", "recovered"),
                       Count(c, "lost-writes", "unexpected"), VerdictOf(c, "linearizable"));
  }
  out +=
      "    (seconds since the history's start; min: min-replicas-to-write; cut and heal: the partition's first and "
      "last link step; promote: a Sentinel names a replica primary; demote: the old primary says it is a replica; "
      "outage: from the cut to the first acknowledged write sent after it; old ok: writes the old primary "
      "acknowledged from the cut on; writes: every write sent from the cut on, acknowledged / refused; lost: "
      "keys whose acknowledged write is gone from the new primary after the heal)\n";
  return out;
}

std::string DetailBlock(const std::vector<PartitionCell>& cells) {
  std::string out;
  for (const PartitionCell& c : cells) {
    if (!c.ok()) {
      if (c.schedule.empty()) continue;
      out += fmt::format("    {}: not measured: {}\n", c.Label(), c.not_run.empty() ? c.failure : c.not_run);
      for (const std::string& s : c.schedule) out += "      nemesis: " + s + "\n";
      continue;
    }
    out += fmt::format("    {}: old primary {} (the clients' link {}), new primary {}; {} operations recorded, {} "
                       "connection(s) lost; the old primary {}\n",
                       c.Label(), c.old_primary, c.old_primary_address,
                       c.new_primary.empty() ? "none" : c.new_primary, c.records, c.reconnects,
                       c.settled.empty() ? "followed the new one and caught up before the keys were read"
                                         : "did not settle: " + c.settled);
    for (const std::string& s : c.schedule) out += "      nemesis: " + s + "\n";
    for (const history::CheckResult& r : c.checks) {
      out += fmt::format("      {}: {}: {}\n", r.check, history::VerdictName(r.verdict), r.summary);
    }
  }
  return out.empty() ? "    none measured\n" : out;
}

// Why a cell lost nothing, or what its loss means: a line of the verdict.
std::string Reading(const PartitionCell& c) {
  const uint64_t lost = Count(c, "lost-writes", "lost");
  if (lost > 0) {
    return fmt::format("{}: {} acknowledged write(s) lost; the old primary acknowledged {} write(s) from the cut "
                       "on{}",
                       c.Label(), lost, c.old_primary_writes_ok,
                       c.side == "with-primary" ? ", on the minority's side, and was demoted with them after the heal"
                                                : "");
  }
  if (c.new_primary.empty()) {
    return fmt::format("{}: no acknowledged write lost: the Sentinels promoted no replica during the partition",
                       c.Label());
  }
  if (c.old_primary_writes_ok == 0) {
    return fmt::format("{}: no acknowledged write lost: the old primary acknowledged none from the cut on{}",
                       c.Label(),
                       c.min_replicas > 0 ? " (min-replicas-to-write refused them)" : " (the clients could not reach it)");
  }
  return fmt::format("{}: no acknowledged write lost in this run although the old primary acknowledged {} from "
                     "the cut on",
                     c.Label(), c.old_primary_writes_ok);
}

}  // namespace

void FillPartitionReport(const PartitionOptions& o, const std::vector<PartitionCell>& cells, bool interrupted,
                         ScenarioReport* report) {
  report->procedure = {
      fmt::format("each cell on a fresh topology: a Redis primary, 2 replicas, 3 Sentinels (quorum 2, "
                  "down-after-milliseconds {}, failover-timeout 5000); once it stands, every link to the primary "
                  "goes through a relay of memstand's: the replicas replicate from, and the Sentinels watch, the "
                  "primary at the relay's `peers` link; the load reaches it at the `clients` link (the Sentinel "
                  "target with the peers' address mapped to the clients', as a client behind a NAT maps it)",
                  o.node_timeout_ms),
      fmt::format("load: open loop at {:g} operations/s over {} connections, SET and GET half each over {} keys (most "
                  "writes a key of their own), values of 32 B each tagged with its write; every operation in a "
                  "history; a lost connection is opened again (20-200 ms), a reply later than 1 s is a lost "
                  "connection; READONLY asks the Sentinels again",
                  o.rate, o.clients, o.keys),
      o.fault.empty()
          ? fmt::format("the partition at {} s of {} s for {} s: the peers' link {} (with-majority: the clients' "
                        "too), then healed; with min-replicas-to-write N, min-replicas-max-lag {} s",
                        ApproxSeconds(o.cut_at_s), ApproxSeconds(o.duration_s), ApproxSeconds(o.partition_s),
                        o.link_fault == "cut" ? "cut (every connection reset, new ones refused)"
                                              : "blackholed (nothing passes either way, nothing is refused)",
                        o.max_lag_s)
          : "the schedule given (--fault): " + o.fault,
      "the Sentinels' view and the old primary's role are polled every 10 ms over connections no relay carries",
      fmt::format("after the load: the old primary given up to {} s to follow the new one and catch up; then every "
                  "written key read once from the new primary (lost-writes), and the history searched for a "
                  "linearizable order (linearizable)",
                  ApproxSeconds(o.settle_s))};
  report->limits = {
      "a partition made by a stream relay: connections are held silent or reset, but no packet is lost, delayed "
      "or reordered, and TCP's own reaction to loss (retransmission, backoff, a connection timing out in the "
      "kernel) is not emulated",
      "the observer (the scenario's control connections) sees every node: the Sentinels' and the old primary's "
      "times are read across the partition",
      "Redis with Sentinel replicates asynchronously and documents that acknowledged writes may be lost in a "
      "partition: a loss here is reported as a finding (exit 4) with that contract beside it, the documented "
      "behaviour measured"};
  json jcells = json::array();
  Table table{"cells",
              {"run", "side", "min_replicas_to_write", "cut_s", "heal_s", "promote_s", "demote_s", "outage_s",
               "old_primary_writes_ok", "writes_ok_after_cut", "writes_fail_after_cut", "lost", "recovered",
               "unexpected", "linearizable", "failure"},
              {}};
  for (const PartitionCell& c : cells) {
    jcells.push_back(CellJson(c));
    table.rows.push_back({std::to_string(c.run), c.side, std::to_string(c.min_replicas), Seconds(c.cut_s),
                          Seconds(c.heal_s), Seconds(c.promote_s), Seconds(c.demote_s), Seconds(c.outage.outage_s),
                          std::to_string(c.old_primary_writes_ok), std::to_string(c.writes_ok_after_cut),
                          std::to_string(c.writes_fail_after_cut), std::to_string(Count(c, "lost-writes", "lost")),
                          std::to_string(Count(c, "lost-writes", "recovered")),
                          std::to_string(Count(c, "lost-writes", "unexpected")), VerdictOf(c, "linearizable"),
                          c.ok() ? "" : (c.not_run.empty() ? c.failure : c.not_run)});
    if (c.run == 1 && c.ok()) {
      const std::string line = "redis: " + c.version;
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
    // A violation is a finding with the contract beside it (docs/exit-codes.md): here
    // the documented behaviour, measured; a check that could not decide fails the run.
    MarkChecks(c.Label(), c.checks,
               "Redis with Sentinel replicates asynchronously: it documents that a partition may lose acknowledged "
               "writes (min-replicas-to-write bounds the window, it does not close it)",
               report);
    if (!c.settled.empty()) {
      report->Mark(ScenarioVerdict::kFailed,
                   fmt::format("{}: the old primary did not settle before the keys were read: {}", c.Label(),
                               c.settled));
      continue;
    }
    report->verdict_lines.push_back(Reading(c));
  }
  if (interrupted) report->Mark(ScenarioVerdict::kInterrupted, "interrupted");
  report->blocks.push_back({"Results: the partition, the failover, the old primary's demotion and the writes lost",
                            ResultsBlock(cells)});
  report->blocks.push_back({"Each cell: the nemesis's steps and the checks' summaries", DetailBlock(cells)});
  report->tables.push_back(std::move(table));
  report->json[key::kCells] = std::move(jcells);
}

}  // namespace memstand
