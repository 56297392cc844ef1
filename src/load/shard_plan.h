// --shard K/N applied to a run's options: the shard's key slice, seed, rate, request
// count and pool members (arithmetic in workload/shard.h; docs/scale-out.md).
#pragma once

#include "load/load_options.h"
#include "util/status.h"
#include "workload/shard.h"

namespace memstand {

/// Turns the fleet's options `o` into shard s's and records what it took in o->shard:
/// - S and P patterns: key_min..key_max becomes the shard's contiguous slice (the
///   slices cover the range once); R commands of the same mix then draw from that
///   slice. G and Z in a mix with S or P: InvalidArgument (they need the whole range).
/// - the seed becomes ShardSeed(seed, s) (R/G/Z keys, values, mix, arrivals).
/// - --requests and --rate become the shard's share (ShareOf, ShardRate: they sum).
/// - a pool keeps members K, K+N, ...; the first of them becomes the target.
/// IPROTO __seq__ values are made disjoint by the engine (ShardSeq). Errors are
/// InvalidArgument naming --shard. REQUIRES: o->shard is empty (applied once).
Status ApplyShard(Shard s, LoadOptions* o);

}  // namespace memstand
