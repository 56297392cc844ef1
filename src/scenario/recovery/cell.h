// What one (configuration, size, run) of recovery measured, between the procedure
// (recovery.cc) and its report (report.cc). Internal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "history/check_result.h"
#include "scenario/recovery/recovery.h"

namespace memstand {

struct RecoveryCell {
  int run = 1;
  std::string configuration;  // "none", "rdb", "aof-everysec", "aof-always", "tarantool-wal-write", "tarantool-wal-fsync"
  uint64_t memory = 0;        // --memory: Redis's maxmemory; Tarantool's memtx_memory is MemtxMemory(memory)
  std::string failure;        // the instrument's: nothing here to trust
  std::string version;
  uint64_t fill_keys = 0;      // fill writes acknowledged
  int64_t used_memory = 0;     // the data size before the kill: INFO used_memory, box.slab.info().arena_used
  int64_t aof_bytes = -1;      // the AOF's size on disk before the kill (-1: none)
  int64_t rdb_bytes = -1;      // the RDB file's size before the kill (-1: none)
  int64_t snap_bytes = -1;     // Tarantool's .snap files before the kill (-1: none)
  int64_t xlog_bytes = -1;     // Tarantool's .xlog files (the WAL) before the kill (-1: none)
  /// Seconds since the history's start; -1: not seen.
  double kill_s = -1;
  double restart_s = -1;       // the restart's start (the new process spawned)
  double accept_s = -1;        // the first TCP connection accepted
  double loaded_s = -1;        // loading done: Redis's readiness probe (PING answered, not LOADING), Tarantool's box.info.status 'running' over IPROTO
  double first_write_s = -1, first_read_s = -1;  // the first acknowledged write / read sent after the kill
  int64_t keys_after = -1;     // DBSIZE, box.space.memstand:len() once loaded
  uint64_t writes_ok = 0;      // the load's writes acknowledged (history records)
  int64_t fill_present = -1;   // of the fill keys, how many are there once loaded
  int64_t read_bytes = -1;     // the new process's storage reads once loaded (/proc/PID/io)
  std::vector<std::string> schedule;
  std::vector<history::CheckResult> checks;  // lost-writes
  uint64_t lost = 0, recovered = 0, unexpected = 0;  // findings (keys)
  bool ok() const { return failure.empty(); }
  std::string Label() const;
  /// Seconds from the restart to loaded, per GB of used_memory; -1 when not measured.
  double SecondsPerGb() const;
};

void FillRecoveryReport(const RecoveryOptions& options, const std::vector<RecoveryCell>& cells, bool interrupted,
                        ScenarioReport* report);

}  // namespace memstand
