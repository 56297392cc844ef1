// recovery's configurations as data: the system each runs on, what it promises about
// acknowledged writes when its process is killed, and the arithmetic of sizing a server
// and its fill. Pure functions, no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenario/kit/scenario_server.h"

namespace memstand {

/// Every configuration, in the order they run: Redis's four, then Tarantool's two.
const std::vector<std::string>& RecoveryConfigurations();
/// kTarantool for "tarantool-wal-write" and "tarantool-wal-fsync", else kRedis.
SystemKind RecoverySystemOf(const std::string& configuration);
/// What the configuration promises about acknowledged writes, as the report says it.
std::string RecoveryPromise(const std::string& configuration);
/// True where the configuration promises to lose nothing acknowledged (aof-always,
/// tarantool-wal-fsync): a loss there is a finding (exit 4), elsewhere a figure.
bool PromisesNoLoss(const std::string& configuration);
/// Tarantool's box.cfg wal_mode of a tarantool-wal-* configuration ("write", "fsync").
std::string WalModeOf(const std::string& configuration);

/// memtx_memory for a Tarantool measured at `memory`: memory + 32 MiB. memtx takes its
/// quota in 16 MB slabs and an empty server already holds two (quota_used 32 MiB before
/// any tuple), so memtx_memory = memory would leave about memory - 16 MB
/// for tuples (32 MiB held 17.5 MB of 1 KB tuples here); with 32 MiB added, --fill of
/// --memory is data, as it is with Redis's maxmemory.
uint64_t MemtxMemory(uint64_t memory);

/// How many fill keys of `per_key` bytes each (the value and the server's overhead per
/// key) bring a server that uses `baseline` bytes when empty to `fill` (a share) of
/// `memory`. 0 when not even one fits (or the baseline is unknown: negative).
uint64_t FillKeyCount(double fill, uint64_t memory, int64_t baseline, uint64_t per_key);

}  // namespace memstand
