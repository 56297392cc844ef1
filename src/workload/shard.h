// Shards: one of N memstand processes started by an outside launcher (a Kubernetes
// Indexed Job, Slurm, a loop over ssh), each taking a disjoint share of one workload
// (issue #18). Pure arithmetic: nothing here reads the clock or sends a request.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace memstand {

/// Shard `index` (0-based) of `count`. count == 1 is the unsharded run.
struct Shard {
  uint64_t index = 0;
  uint64_t count = 1;
};

/// "K/N" with 0 <= K < N, N >= 1. InvalidArgument naming the form otherwise.
Result<Shard> ParseShard(std::string_view text);

/// Reads an environment variable (std::getenv in the CLI; a map in tests).
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

/// --shard auto: JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) with `shards` (the
/// --shards flag, 0 when not given), else SLURM_PROCID with SLURM_NTASKS. InvalidArgument
/// naming the variable when neither is set, one is malformed, or the index is >= count.
Result<Shard> ShardFromEnv(const EnvLookup& env, uint64_t shards);

/// The part [first, last) of `total` units that shard s takes: total*K/N up to
/// total*(K+1)/N. The parts of K = 0..N-1 follow each other and sum to total.
struct Share {
  uint64_t first = 0;
  uint64_t last = 0;  // exclusive
  uint64_t size() const { return last - first; }
};
Share ShareOf(uint64_t total, Shard s);

/// The contiguous slice [min, max] of the key range [key_min, key_max] that shard s
/// takes (S and P patterns). The slices of every K cover the range exactly once.
/// InvalidArgument when the range has fewer keys than shards (a slice would be empty).
struct KeySlice {
  uint64_t min = 0;
  uint64_t max = 0;
};
Result<KeySlice> ShardKeySlice(uint64_t key_min, uint64_t key_max, Shard s);

/// The seed shard s draws from (R/G/Z keys, values, the mix, Poisson arrivals): the seed
/// itself when count == 1, else a stream of its own derived from (seed, K).
uint64_t ShardSeed(uint64_t seed, Shard s);

/// A __seq__ value of the shard's own numbering (0, 1, ...) as sent: seq * N + K, so
/// shards send disjoint values (shard K sends those equal to K modulo N).
inline uint64_t ShardSeq(uint64_t seq, Shard s) { return seq * s.count + s.index; }

/// Shard s's part of an open-loop rate of `rate` requests/s in total, split in
/// milli-requests/s so that the parts of every K sum exactly to the rate (rounded to
/// 1/1000 request/s). InvalidArgument when a shard's part would be 0.
Result<double> ShardRate(double rate, Shard s);

/// The members of a pool of `members` targets that shard s takes: K, K+N, K+2N, ...
/// InvalidArgument when there are fewer members than shards (one would get none).
Result<std::vector<int>> ShardMembers(int members, Shard s);

}  // namespace memstand
