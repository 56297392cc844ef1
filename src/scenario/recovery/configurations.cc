#include "scenario/recovery/configurations.h"

#include <algorithm>

namespace memstand {
namespace {

constexpr char kTarantoolPrefix[] = "tarantool-wal-";
// memtx's two 16 MB slabs of an empty server (MemtxMemory's comment).
constexpr uint64_t kMemtxHeadroom = 32ull << 20;

}  // namespace

const std::vector<std::string>& RecoveryConfigurations() {
  static const std::vector<std::string> kNames = {"none",          "rdb", "aof-everysec", "aof-always",
                                                  "tarantool-wal-write", "tarantool-wal-fsync"};
  return kNames;
}

SystemKind RecoverySystemOf(const std::string& configuration) {
  return configuration.starts_with(kTarantoolPrefix) ? SystemKind::kTarantool : SystemKind::kRedis;
}

std::string WalModeOf(const std::string& configuration) {
  return configuration.starts_with(kTarantoolPrefix) ? configuration.substr(sizeof(kTarantoolPrefix) - 1) : "";
}

std::string RecoveryPromise(const std::string& configuration) {
  if (configuration == "aof-always") return "AOF appendfsync always: every acknowledged write is on disk";
  if (configuration == "aof-everysec") return "AOF everysec: up to about a second of writes may be lost";
  if (configuration == "rdb") return "RDB: what came after the last snapshot is lost";
  if (configuration == "tarantool-wal-fsync") {
    return "Tarantool wal_mode fsync: every acknowledged write is in the WAL, fsynced";
  }
  if (configuration == "tarantool-wal-write") {
    return "Tarantool wal_mode write: every acknowledged write was written to the WAL, not fsynced: a killed "
           "process loses none (the kernel's page cache holds it), a machine that fails may lose what was not yet "
           "flushed";
  }
  return "no persistence: everything is lost";
}

bool PromisesNoLoss(const std::string& configuration) {
  return configuration == "aof-always" || configuration == "tarantool-wal-fsync";
}

uint64_t MemtxMemory(uint64_t memory) { return memory + kMemtxHeadroom; }

uint64_t FillKeyCount(double fill, uint64_t memory, int64_t baseline, uint64_t per_key) {
  if (baseline < 0 || per_key == 0) return 0;
  const double room = fill * static_cast<double>(memory) - static_cast<double>(baseline);
  if (room < static_cast<double>(per_key)) return 0;
  return static_cast<uint64_t>(room) / per_key;
}

}  // namespace memstand
