// A tarantool-sharded topology (docs/stand.md, Tarantool sharded) as a caller drives it:
// the health check before load, and the requests each storage received, read from the
// storages' own counters (the storage layer's, shard_lua.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stand/topology.h"
#include "util/status.h"

namespace memstand {

/// The health check before load: every router's shard.check() (every bucket mapped
/// once, every replica set's master writable and its replicas following it, each seen
/// by that router over net.box) and every storage answering. OK, or Failed naming the
/// router and the first problem ("router-1 (127.0.0.1:P): replica set 2: master
/// 127.0.0.1:Q: Connection refused").
Status CheckShardHealth(const Topology& t);

/// One storage's requests, as its storage layer counted them (memstand_storage.counts():
/// every call a router forwarded, failed ones included).
struct StorageCount {
  std::string node;  // "storage-2-master"
  std::string role;  // "storage-master", "storage-replica"
  int set = 0;       // its replica set, 1..S
  int64_t total = 0;
  int64_t replace = 0, insert = 0, upsert = 0, update = 0, del = 0, get = 0;
};
/// Every storage's counts, in node order. An error names the storage.
Result<std::vector<StorageCount>> ReadStorageCounts(const Topology& t);

/// The replica set of a storage node named "storage-<set>-...", or 0.
int StorageSetOf(const std::string& node);

}  // namespace memstand
