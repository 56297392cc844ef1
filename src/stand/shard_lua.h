// The Lua of the tarantool-sharded topology (docs/stand.md, Tarantool sharded): memstand's
// own small sharding layer, for Tarantool without vshard or crud (Debian's 2.6). A
// storage is a replica set member with a storage layer on top; a router maps a key to
// one of a fixed number of buckets and a bucket to a replica set, and forwards each call
// over net.box to that set's master (writes, reads by default) or to one of its replicas
// (reads with {mode = 'read'}).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "util/status.h"

namespace memstand {

/// The buckets every router maps: bucket = crc32(tostring(key)) % kShardBuckets + 1,
/// replica set = the bucket's place in equal contiguous ranges, one per set.
inline constexpr int kShardBuckets = 1024;

/// How long a router waits for a storage's answer to a forwarded call before it
/// returns nil, err (a paused storage, or a synchronous write whose quorum does not
/// come): above Tarantool's default replication_synchro_timeout (5 s), so a synchronous
/// write's own timeout error comes first, and below memstand's default --request-timeout
/// (10 s), so the client sees the router's error, not a request left unanswered.
inline constexpr int kShardCallTimeoutS = 8;

/// The space every storage master creates ([id unsigned, bucket_id unsigned nullable,
/// value string], the study's schema), and its synchronous twin (is_sync: a write is
/// acknowledged once replication_synchro_quorum members have it).
inline constexpr char kShardSpace[] = "test";
inline constexpr char kShardSyncSpace[] = "test_sync";

/// NodeLaunch::role_args for a storage: as ReplicaSetRoleArgs (its set's members,
/// master first), under a storage's role.
std::vector<std::string> ShardStorageRoleArgs(bool master, const std::vector<std::string>& uris);
/// NodeLaunch::role_args for a router: every replica set's member URIs, master first.
std::vector<std::string> ShardRouterRoleArgs(const std::vector<std::vector<std::string>>& sets);

/// Which sharded role role_args (from the two above) give: a storage master or
/// replica, a router, or none (not a sharded node).
enum class ShardRole { kNone, kStorageMaster, kStorageReplica, kRouter };
ShardRole ShardRoleOf(const std::vector<std::string>& role_args);
/// The storage's role_args as ReplicaSetRoleArgs, for the replica set member it also is.
std::vector<std::string> StorageAsMember(const std::vector<std::string>& role_args);

/// The storage layer, after box.cfg: global `memstand_storage` with replace, insert,
/// upsert, update, delete and get (what routers call; each counted, failed ones too),
/// counts() and total() (those counts), and info() (its uuid, whether it is read-only,
/// the status of its upstream from each peer by uuid). A master also creates the two
/// spaces (replicas get them by replication).
std::string ShardStorageLua(bool master);

/// A router's Lua, after box.cfg: global `shard` (the API: replace, insert, upsert,
/// update, delete, get, each returning nil, err on failure; check(), which returns true,
/// or false and the first problem found; buckets(), the bucket count of each set), its
/// net.box connections, and a fiber that logs RouterReadyLine once check() passes (and
/// each new problem before that). InvalidArgument if role_args are not a router's.
Result<std::string> ShardRouterLua(const std::vector<std::string>& role_args);

/// The line a router logs once it sees every replica set healthy, for Topology's wait.
std::string RouterReadyLine(pid_t pid);

}  // namespace memstand
