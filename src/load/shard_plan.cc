#include "load/shard_plan.h"

#include <string>

#include "core/pacer.h"

namespace memstand {

namespace {

using Kind = KeyPatternSpec::Kind;

bool Uses(const LoadOptions& o, Kind a, Kind b) {
  for (const CommandSpec& c : o.commands) {
    if (c.key_pattern.kind == a || c.key_pattern.kind == b) return true;
  }
  return false;
}

Status WithFlag(const Status& s) {
  return s.ok() ? s : Status::InvalidArgument("--shard: " + s.message());
}

Status SliceKeys(Shard s, LoadOptions* o, ShardTaken* t) {
  if (!Uses(*o, Kind::kSequential, Kind::kPartitioned)) return Status::OK();
  if (Uses(*o, Kind::kGaussian, Kind::kZipf)) {
    return Status::InvalidArgument(
        "S/P key patterns take a slice of the key range per shard, G/Z need the whole "
        "range: run them as separate fleets");
  }
  auto slice = ShardKeySlice(o->key_min, o->key_max, s);
  if (!slice.ok()) return slice.status();
  o->key_min = slice->min;
  o->key_max = slice->max;
  t->key_sliced = true;
  return Status::OK();
}

Status SplitLoad(Shard s, LoadOptions* o) {
  if (o->requests > 0) {
    const Share part = ShareOf(o->requests, s);
    if (part.size() == 0) {
      return Status::InvalidArgument("--requests " + std::to_string(o->requests) + " over " +
                                     std::to_string(s.count) + " shards leaves shard " +
                                     std::to_string(s.index) + " none");
    }
    o->requests = part.size();
  }
  if (o->rate > 0) {
    auto rate = ShardRate(o->rate, s);
    if (!rate.ok()) return rate.status();
    o->rate = *rate;
    return ValidateRate(o->rate, o->connections());
  }
  return Status::OK();
}

Status SplitPool(Shard s, LoadOptions* o, ShardTaken* t) {
  if (o->pool.empty()) return Status::OK();
  auto members = ShardMembers(o->pool_size(), s);
  if (!members.ok()) return members.status();
  t->whole_pool = o->pool_size();
  t->members = *members;
  std::vector<RedisTarget> pool;
  for (int i : *members) pool.push_back(o->pool[i]);
  o->target = pool.front();
  if (pool.size() == 1) pool.clear();
  o->pool = std::move(pool);
  return Status::OK();
}

}  // namespace

Status ApplyShard(Shard s, LoadOptions* o) {
  ShardTaken t;
  t.shard = s;
  t.whole_key_min = o->key_min;
  t.whole_key_max = o->key_max;
  t.whole_seed = o->seed;
  t.whole_rate = o->rate;
  t.whole_requests = o->requests;
  Status st = SliceKeys(s, o, &t);
  if (st.ok()) st = SplitLoad(s, o);
  if (st.ok()) st = SplitPool(s, o, &t);
  if (!st.ok()) return WithFlag(st);
  o->seed = ShardSeed(o->seed, s);
  o->shard = std::move(t);
  return Status::OK();
}

}  // namespace memstand
