// recovery (docs/scenarios/recovery.md): how long a Redis or a Tarantool takes to come
// back after a SIGKILL, against how much data it holds, and what it kept. Configurations:
// Redis with no persistence, an RDB snapshot, AOF appendfsync everysec, AOF appendfsync
// always; Tarantool memtx with a snapshot and the WAL, wal_mode write and fsync. Each is
// filled to a share of its memory limit (two sizes or more, so that the cost per GB is a
// slope), written under load with a history, killed, restarted in its folder on its port,
// and measured: time to accept a connection, to finish loading, to the first
// acknowledged read and write; the records present against those acknowledged; the
// bytes read from storage; seconds per GB. AOF always and wal_mode fsync promise to lose
// nothing acknowledged: a loss there is a finding (exit 4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "util/status.h"

namespace memstand {

struct MeasuredChoiceRow;
struct ReportInput;
struct ReportSection;

struct RecoveryOptions {
  /// Of RecoveryConfigurations() (configurations.h): all of them.
  std::vector<std::string> configurations = {"none",          "rdb", "aof-everysec", "aof-always",
                                             "tarantool-wal-write", "tarantool-wal-fsync"};
  /// Each size measured (bytes): Redis's maxmemory; Tarantool's memtx_memory is
  /// MemtxMemory(size) (configurations.h), so that the same share of it is data.
  std::vector<uint64_t> memories = {32ull << 20, 128ull << 20};
  /// The share of maxmemory filled before the load (90%).
  double fill = 0.9;
  uint64_t value_size = 1000;
  /// The load with a history: the kill at kill_at_s, the restart right after; the load
  /// goes on for after_s more so that the first acknowledged read and write after the
  /// restart are in it.
  double kill_at_s = 2;
  double after_s = 4;
  double rate = 500;
  int clients = 4;
  uint64_t keys = 1000;
};

Status ValidateRecovery(const RecoveryOptions& options);
Result<ScenarioReport> RunRecovery(const RecoveryOptions& options, const ScenarioContext& ctx);

ScenarioPrepare SetupRecovery(CLI::App* app);
void RecoveryCharts(const ReportInput& in, ReportSection* section);
std::vector<MeasuredChoiceRow> RecoveryChoiceRows();

}  // namespace memstand
