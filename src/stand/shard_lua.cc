#include "stand/shard_lua.h"

#include "stand/tarantool_driver.h"

namespace memstand {
namespace {

constexpr char kStorageMasterRole[] = "shard-storage-master";
constexpr char kStorageReplicaRole[] = "shard-storage-replica";
constexpr char kRouterRole[] = "shard-router";
constexpr char kRouterReadyLine[] = "memstand: router ready, pid ";

// "{{'a', 'b'}, {'c', 'd'}}" from router role_args: each set's URIs, comma-joined.
std::string LuaSets(const std::vector<std::string>& role_args) {
  std::string sets;
  for (size_t i = 1; i < role_args.size(); ++i) {
    std::string set;
    size_t from = 0;
    while (from <= role_args[i].size()) {
      size_t comma = role_args[i].find(',', from);
      if (comma == std::string::npos) comma = role_args[i].size();
      set += (set.empty() ? "" : ", ") + LuaString(role_args[i].substr(from, comma - from));
      from = comma + 1;
    }
    sets += (i > 1 ? ", " : "") + std::string("{") + set + "}";
  }
  return "{" + sets + "}";
}

// Every storage: the functions routers call, each counted before it runs (so a failed
// call counts too, as the client counts it), and what a router's check reads.
constexpr char kStorageFunctions[] = R"lua(
memstand_storage = {}
local storage = memstand_storage
local counts = {replace = 0, insert = 0, upsert = 0, update = 0, delete = 0, get = 0}
local function space_of(name)
  local s = box.space[name]
  if s == nil then error(string.format("no space '%s' here", tostring(name))) end
  return s
end
function storage.replace(space, tuple) counts.replace = counts.replace + 1 return space_of(space):replace(tuple) end
function storage.insert(space, tuple) counts.insert = counts.insert + 1 return space_of(space):insert(tuple) end
function storage.upsert(space, tuple, ops)
  counts.upsert = counts.upsert + 1
  space_of(space):upsert(tuple, ops)
  return true
end
function storage.update(space, key, ops) counts.update = counts.update + 1 return space_of(space):update(key, ops) end
function storage.delete(space, key) counts.delete = counts.delete + 1 return space_of(space):delete(key) end
function storage.get(space, key) counts.get = counts.get + 1 return space_of(space):get(key) end
function storage.counts() return counts end
function storage.total()
  local n = 0
  for _, c in pairs(counts) do n = n + c end
  return n
end
function storage.info()
  local upstreams = {}
  for _, r in pairs(box.info.replication) do
    if r.upstream ~= nil then upstreams[r.uuid] = r.upstream.status end
  end
  return {uuid = box.info.uuid, ro = box.info.ro, upstreams = upstreams,
          spaces = box.space.test ~= nil and box.space.test_sync ~= nil}
end
)lua";

// A storage master: the study's schema, in an asynchronous and a synchronous space.
constexpr char kStorageSchema[] = R"lua(
local format = {{name = 'id', type = 'unsigned'}, {name = 'bucket_id', type = 'unsigned', is_nullable = true},
                {name = 'value', type = 'string'}}
for _, def in ipairs({{'test', false}, {'test_sync', true}}) do
  local s = box.schema.space.create(def[1], {format = format, is_sync = def[2], if_not_exists = true})
  s:create_index('pk', {parts = {'id'}, if_not_exists = true})
end
)lua";

// A router, after its BUCKETS and SETS: the connections, the bucket map, the API, the
// check and the fiber that logs the ready line.
constexpr char kRouterBody[] = R"lua(
local digest = require('digest')
local netbox = require('net.box')
-- Each replica set: its master's connection and its replicas', opened now and kept
-- open (net.box reconnects on its own, every 0.1 s).
local sets = {}
for i, uris in ipairs(SETS) do
  local set = {uris = uris, replicas = {}, next = 0}
  for j, uri in ipairs(uris) do
    local c = netbox.connect(uri, {wait_connected = false, reconnect_after = 0.1})
    if j == 1 then set.master = c else table.insert(set.replicas, c) end
  end
  sets[i] = set
end
-- The bucket map, the same on every router: bucket b -> replica set, in equal
-- contiguous ranges.
local map = {}
for b = 1, BUCKETS do map[b] = math.floor((b - 1) * #SETS / BUCKETS) + 1 end

local function bucket_of(key)
  if type(key) == 'table' then key = key[1] end
  return digest.crc32(tostring(key)) % BUCKETS + 1
end

-- Sends storage function fn to the replica set of key's bucket: its master, or with
-- mode 'read' its next replica (round robin; the master if it has none).
local function route(api, fn, key, opts, args)
  if key == nil then return nil, api .. ': the key is nil' end
  local mode = type(opts) == 'table' and opts.mode or 'write'
  if mode ~= 'write' and mode ~= 'read' then return nil, api .. ": mode is 'write' or 'read'" end
  local id = map[bucket_of(key)]
  local set = sets[id]
  local conn, uri = set.master, set.uris[1]
  if mode == 'read' and #set.replicas > 0 then
    set.next = set.next % #set.replicas + 1
    conn, uri = set.replicas[set.next], set.uris[set.next + 1]
  end
  -- A call on a connection that is down would wait for net.box's reconnect: fail it now.
  if not conn:is_connected() then
    return nil, string.format('%s: replica set %d (%s): not connected (%s)', api, id, uri, tostring(conn.error))
  end
  -- A storage that does not answer (paused, or a synchronous write stuck in its queue)
  -- fails the call after CALL_TIMEOUT: the write may still be applied later.
  local ok, res = pcall(conn.call, conn, 'memstand_storage.' .. fn, args, {timeout = CALL_TIMEOUT})
  if not ok then
    local text = tostring(res)
    if text == 'Timeout exceeded' then  -- net.box's timeout (box.error.TIMEOUT)
      text = string.format('no answer within %g s (the storage may still apply it)', CALL_TIMEOUT)
    end
    return nil, string.format('%s: replica set %d (%s): %s', api, id, uri, text)
  end
  return res
end

local function tuple_route(api, fn, space, tuple, extra, opts)
  if type(tuple) ~= 'table' then return nil, api .. ': the tuple is not an array' end
  tuple[2] = bucket_of(tuple[1])
  local args = {space, tuple}
  if extra ~= nil then args[3] = extra end
  return route(api, fn, tuple[1], opts, args)
end

shard = {}
function shard.replace(space, tuple, opts) return tuple_route('shard.replace', 'replace', space, tuple, nil, opts) end
function shard.insert(space, tuple, opts) return tuple_route('shard.insert', 'insert', space, tuple, nil, opts) end
function shard.upsert(space, tuple, ops, opts) return tuple_route('shard.upsert', 'upsert', space, tuple, ops, opts) end
function shard.update(space, key, ops, opts) return route('shard.update', 'update', key, opts, {space, key, ops}) end
function shard.delete(space, key, opts) return route('shard.delete', 'delete', key, opts, {space, key}) end
function shard.get(space, key, opts) return route('shard.get', 'get', key, opts, {space, key}) end

-- How many buckets each replica set holds, in set order.
function shard.buckets()
  local n = {}
  for id = 1, #sets do n[id] = 0 end
  for b = 1, BUCKETS do n[map[b]] = n[map[b]] + 1 end
  return n
end

local function info(set_id, what, uri, conn)
  local ok, res = pcall(conn.call, conn, 'memstand_storage.info', {}, {timeout = 1})
  if not ok then return nil, string.format('replica set %d: %s %s: %s', set_id, what, uri, tostring(res)) end
  if not res.spaces then return nil, string.format('replica set %d: %s %s has no test spaces yet', set_id, what, uri) end
  return res
end

-- true, or false and the first problem: every bucket mapped once, to a set that
-- holds buckets; every set's master reachable and writable, every replica reachable,
-- read-only and following that master.
function shard.check()
  local held = shard.buckets()
  local mapped = 0
  for _, n in ipairs(held) do mapped = mapped + n end
  if mapped ~= BUCKETS then return false, string.format('%d of %d buckets mapped', mapped, BUCKETS) end
  for id, set in ipairs(sets) do
    if held[id] == 0 then return false, string.format('replica set %d holds no bucket', id) end
    local master, err = info(id, 'master', set.uris[1], set.master)
    if master == nil then return false, err end
    if master.ro then return false, string.format('replica set %d: master %s is read-only', id, set.uris[1]) end
    for j, conn in ipairs(set.replicas) do
      local uri = set.uris[j + 1]
      local replica, rerr = info(id, 'replica', uri, conn)
      if replica == nil then return false, rerr end
      if not replica.ro then return false, string.format('replica set %d: replica %s is writable', id, uri) end
      local status = replica.upstreams[master.uuid]
      if status ~= 'follow' then
        return false, string.format('replica set %d: replica %s does not follow master %s (upstream %s)', id, uri,
                                    set.uris[1], tostring(status))
      end
    end
  end
  return true
end

fiber.create(function()
  local last
  while true do
    local ok, problem = shard.check()
    if ok then break end
    if problem ~= last then log.info('memstand: router not ready: %s', problem) end
    last = problem
    fiber.sleep(0.02)
  end
  log.info('memstand: router ready, pid %d, %d replica sets, %d buckets', box.info.pid, #sets, BUCKETS)
end)
)lua";

}  // namespace

std::vector<std::string> ShardStorageRoleArgs(bool master, const std::vector<std::string>& uris) {
  std::vector<std::string> args = {master ? kStorageMasterRole : kStorageReplicaRole};
  args.insert(args.end(), uris.begin(), uris.end());
  return args;
}

std::vector<std::string> ShardRouterRoleArgs(const std::vector<std::vector<std::string>>& sets) {
  std::vector<std::string> args = {kRouterRole};
  for (const auto& uris : sets) {
    std::string joined;
    for (const std::string& uri : uris) joined += (joined.empty() ? "" : ",") + uri;
    args.push_back(joined);
  }
  return args;
}

ShardRole ShardRoleOf(const std::vector<std::string>& role_args) {
  if (role_args.size() < 2) return ShardRole::kNone;
  if (role_args[0] == kStorageMasterRole) return ShardRole::kStorageMaster;
  if (role_args[0] == kStorageReplicaRole) return ShardRole::kStorageReplica;
  if (role_args[0] == kRouterRole) return ShardRole::kRouter;
  return ShardRole::kNone;
}

std::vector<std::string> StorageAsMember(const std::vector<std::string>& role_args) {
  std::vector<std::string> uris(role_args.begin() + 1, role_args.end());
  return ReplicaSetRoleArgs(ShardRoleOf(role_args) == ShardRole::kStorageMaster, uris);
}

std::string ShardStorageLua(bool master) {
  return std::string("-- memstand's storage layer (docs/stand.md, Tarantool sharded).") + kStorageFunctions +
         (master ? kStorageSchema : "");
}

Result<std::string> ShardRouterLua(const std::vector<std::string>& role_args) {
  if (ShardRoleOf(role_args) != ShardRole::kRouter) {
    return Status::InvalidArgument("tarantool: role arguments are not a router's");
  }
  return "-- memstand's router (docs/stand.md, Tarantool sharded).\n"
         "local BUCKETS = " + std::to_string(kShardBuckets) + "\n"
         "local CALL_TIMEOUT = " + std::to_string(kShardCallTimeoutS) + "\n"
         "local SETS = " + LuaSets(role_args) + "\n" + kRouterBody;
}

std::string RouterReadyLine(pid_t pid) { return kRouterReadyLine + std::to_string(pid) + ","; }

}  // namespace memstand
