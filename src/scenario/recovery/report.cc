// recovery's report: the blocks, the tables, the JSON and the findings from its cells.
#include <algorithm>

#include <fmt/format.h>

#include "scenario/kit/check_findings.h"
#include "scenario/recovery/cell.h"
#include "scenario/recovery/configurations.h"
#include "scenario/recovery/json.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = recovery_json;

std::string Seconds(double s) { return s < 0 ? "-" : fmt::format("{:.3f}", s); }
json Number(double v) { return v < 0 ? json(nullptr) : json(v); }
json Count(int64_t v) { return v < 0 ? json(nullptr) : json(v); }

double LoadSeconds(const RecoveryCell& c) { return c.loaded_s < 0 || c.restart_s < 0 ? -1 : c.loaded_s - c.restart_s; }

json CellJson(const RecoveryCell& c) {
  return {{key::kRun, c.run},
          {key::kConfiguration, c.configuration},
          {key::kSystem, SystemName(RecoverySystemOf(c.configuration))},
          {key::kMemory, c.memory},
          {key::kFailure, c.failure.empty() ? json(nullptr) : json(c.failure)},
          {key::kVersion, c.version},
          {key::kFillKeys, c.fill_keys},
          {key::kUsedMemory, c.used_memory},
          {key::kAofBytes, Count(c.aof_bytes)},
          {key::kRdbBytes, Count(c.rdb_bytes)},
          {key::kSnapBytes, Count(c.snap_bytes)},
          {key::kXlogBytes, Count(c.xlog_bytes)},
          {key::kKillS, Number(c.kill_s)},
          {key::kRestartS, Number(c.restart_s)},
          {key::kAcceptS, Number(c.accept_s)},
          {key::kLoadedS, Number(c.loaded_s)},
          {key::kFirstWriteS, Number(c.first_write_s)},
          {key::kFirstReadS, Number(c.first_read_s)},
          {key::kLoadSeconds, Number(LoadSeconds(c))},
          {key::kSecondsPerGb, Number(c.SecondsPerGb())},
          {key::kKeysAfter, Count(c.keys_after)},
          {key::kFillPresent, Count(c.fill_present)},
          {key::kWritesOk, c.writes_ok},
          {key::kReadBytes, Count(c.read_bytes)},
          {key::kLost, c.lost},
          {key::kRecovered, c.recovered},
          {key::kUnexpected, c.unexpected},
          {key::kChecks, ChecksJson(c.checks)},
          {key::kSchedule, c.schedule}};
}

std::string ResultsBlock(const std::vector<RecoveryCell>& cells) {
  std::string out = fmt::format("    {:<19} {:>7} {:>3} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>17} {:>6} {:>6}\n",
                                "configuration", "memory", "run", "data MiB", "accept", "loaded", "1st wr", "1st rd",
                                "load s", "s per GB", "fill kept", "lost", "recov.");
  for (const RecoveryCell& c : cells) {
    if (!c.ok()) {
      out += fmt::format("    {:<19} {:>4} MiB {:>3} FAILED: {}\n", c.configuration, c.memory >> 20, c.run, c.failure);
      continue;
    }
    auto since = [&](double s) { return s < 0 || c.restart_s < 0 ? std::string("-") : Seconds(s - c.restart_s); };
    out += fmt::format("    {:<19} {:>4} MiB {:>3} {:>9.1f} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>17} {:>6} {:>6}\n",
                       c.configuration, c.memory >> 20, c.run, static_cast<double>(c.used_memory) / (1 << 20),
                       since(c.accept_s), since(c.loaded_s), since(c.first_write_s), since(c.first_read_s),
                       Seconds(LoadSeconds(c)), c.SecondsPerGb() < 0 ? "-" : fmt::format("{:.2f}", c.SecondsPerGb()),
                       fmt::format("{} / {}", c.fill_present, c.fill_keys), c.lost, c.recovered);
  }
  out += "    (accept, loaded, 1st wr, 1st rd: seconds after the restart began: a TCP connection accepted, loading "
         "done (Redis: the stand's readiness probe saw PING answered, not LOADING; Tarantool: box.info.status "
         "'running' over IPROTO; both polled, so an upper bound: an acknowledged write before it shows loading ended "
         "earlier), the first acknowledged write and read of the load; data MiB before the kill: Redis INFO "
         "used_memory, Tarantool box.slab.info().arena_used; fill kept: fill keys present after / written; lost, "
         "recov.: the lost-writes check's keys over the load's writes)\n";
  return out;
}

bool HasSystem(const RecoveryOptions& o, SystemKind kind) {
  return std::any_of(o.configurations.begin(), o.configurations.end(),
                     [&](const std::string& c) { return RecoverySystemOf(c) == kind; });
}

std::vector<std::string> Procedure(const RecoveryOptions& o) {
  std::string sizes;
  for (uint64_t m : o.memories) sizes += fmt::format("{}{} MiB", sizes.empty() ? "" : ", ", m >> 20);
  std::vector<std::string> lines;
  if (HasSystem(o, SystemKind::kRedis)) {
    lines.push_back(fmt::format("each Redis configuration and size on a fresh Redis: none (no persistence), rdb (a "
                                "snapshot by BGSAVE after the fill), aof-everysec, aof-always; maxmemory {} "
                                "(noeviction); SET and GET over RESP",
                                sizes));
  }
  if (HasSystem(o, SystemKind::kTarantool)) {
    lines.push_back(fmt::format("each Tarantool configuration and size on a fresh Tarantool, memtx, space memstand "
                                "(hash index on a string key): box.cfg wal_mode write or fsync, memtx_memory 32 MiB "
                                "more than each size ({}: memtx holds two 16 MB slabs when empty), no checkpoint "
                                "daemon; a snapshot "
                                "(box.snapshot()) after the fill, so that the restart reads it and the WAL written "
                                "under load; replace and select over IPROTO",
                                sizes));
  }
  lines.push_back(fmt::format("the fill: {:.0f}% of the size in keys fill-N of {} B random values, written once "
                              "each (the data's size: Redis used_memory, Tarantool arena_used)",
                              o.fill * 100, o.value_size));
  lines.push_back(fmt::format(
      "then a load with a history: open loop at {:g} operations/s over {} connections, a write and a read over {} "
      "keys rec-N (32 B values tagged with their write); at {} s the server is killed (SIGKILL) and restarted {} s "
      "later in its folder on its port; the load goes on {} s",
      o.rate, o.clients, o.keys, ApproxSeconds(o.kill_at_s), 0.1, ApproxSeconds(o.after_s)));
  lines.push_back(
      "from the restart on: a connection tried every 2 ms (accept); loading done: Redis's readiness (PING answered, "
      "not LOADING), Tarantool's box.info.status polled over that connection every 2 ms until 'running'; after the "
      "load: every load key read back (lost-writes), the keys and the fill keys kept, the new process's storage "
      "reads (/proc/PID/io read_bytes)");
  return lines;
}

}  // namespace

void FillRecoveryReport(const RecoveryOptions& o, const std::vector<RecoveryCell>& cells, bool interrupted,
                        ScenarioReport* report) {
  report->procedure = Procedure(o);
  report->limits = {
      "one machine and its disk: the times describe this disk and its page cache (a file just written is read "
      "from memory: read_bytes 0 says so)",
      "seconds per GB from two or three sizes in one run: a slope, not a law; a larger data set may meet other "
      "limits (memory, disk bandwidth)",
      "the loss window of everysec and rdb depends on when the kill falls: one run shows one window",
      "SIGKILL ends the process, not the machine: what Redis wrote to the kernel is kept in the page cache and "
      "reaches the disk anyway, so everysec's window (the writes not yet fsynced) would show only on a power loss "
      "or a kernel crash, which this does not emulate",
      "the same for Tarantool's wal_mode write: a write is acknowledged once the WAL thread has written it to the "
      "file (not fsynced), so after a killed process it is in the page cache and the restart reads it back; "
      "wal_mode write and fsync differ only when the machine fails, which this does not emulate"};
  json jcells = json::array();
  Table table{"cells",
              {"run", "configuration", "memory", "used_memory", "load_seconds", "seconds_per_gb", "accept_s",
               "first_write_s", "first_read_s", "fill_present", "fill_keys", "lost", "recovered", "failure"},
              {}};
  for (const RecoveryCell& c : cells) {
    jcells.push_back(CellJson(c));
    auto since = [&](double s) { return s < 0 || c.restart_s < 0 ? std::string() : Seconds(s - c.restart_s); };
    table.rows.push_back({std::to_string(c.run), c.configuration, std::to_string(c.memory),
                          std::to_string(c.used_memory), Seconds(LoadSeconds(c)),
                          c.SecondsPerGb() < 0 ? "" : fmt::format("{:.3f}", c.SecondsPerGb()), since(c.accept_s),
                          since(c.first_write_s), since(c.first_read_s), std::to_string(c.fill_present),
                          std::to_string(c.fill_keys), std::to_string(c.lost), std::to_string(c.recovered),
                          c.failure});
    if (c.run == 1 && c.ok()) {
      const std::string line = fmt::format("{}: {}", SystemName(RecoverySystemOf(c.configuration)), c.version);
      if (std::find(report->configuration_lines.begin(), report->configuration_lines.end(), line) ==
          report->configuration_lines.end()) {
        report->configuration_lines.push_back(line);
      }
    }
    if (!c.failure.empty()) {
      report->Mark(c.failure == "interrupted" ? ScenarioVerdict::kInterrupted : ScenarioVerdict::kFailed,
                   fmt::format("{}: {}", c.Label(), c.failure));
      continue;
    }
    // Only AOF always and wal_mode fsync promise to lose nothing acknowledged: a loss
    // elsewhere is the configuration's documented window, a figure; there it is a finding.
    MarkChecks(c.Label(), c.checks, PromisesNoLoss(c.configuration) ? RecoveryPromise(c.configuration) : "", report);
  }
  if (interrupted) report->Mark(ScenarioVerdict::kInterrupted, "interrupted");
  std::string promises;
  for (const std::string& configuration : o.configurations) {
    promises += fmt::format("    {}: {}\n", configuration, RecoveryPromise(configuration));
  }
  report->blocks.push_back({"Results: back after a kill, and what it kept", ResultsBlock(cells)});
  report->blocks.push_back({"What each configuration promises (a loss is a finding only where it promised none)",
                            promises});
  std::string detail;
  for (const RecoveryCell& c : cells) {
    if (c.schedule.empty()) continue;
    const std::string files = RecoverySystemOf(c.configuration) == SystemKind::kTarantool
                                  ? fmt::format("snapshots {} B, WAL {} B", c.snap_bytes, c.xlog_bytes)
                                  : fmt::format("AOF {} B, RDB {} B", c.aof_bytes, c.rdb_bytes);
    detail += fmt::format("    {}: {} on disk before the kill; storage read by the new process {} B; keys after {}; "
                          "the load's writes acknowledged {}\n",
                          c.Label(), files, c.read_bytes, c.keys_after, c.writes_ok);
    for (const std::string& s : c.schedule) detail += "      nemesis: " + s + "\n";
    for (const history::CheckResult& r : c.checks) {
      detail += fmt::format("      {}: {}: {}\n", r.check, history::VerdictName(r.verdict), r.summary);
    }
  }
  report->blocks.push_back({"Each cell: files, the nemesis's steps and the check", detail.empty() ? "    none\n" : detail});
  report->tables.push_back(std::move(table));
  report->json[key::kCells] = std::move(jcells);
}

}  // namespace memstand
