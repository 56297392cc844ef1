#include "workload/shard.h"

#include <cmath>
#include <string>

#include "util/redact.h"
#include "util/rng.h"

namespace memstand {

namespace {

// Keeps a shard's streams apart from the unsharded run's and from each other's.
constexpr uint64_t kShardStream = 0x5a4d'0f1e'e7a1ULL;

Result<uint64_t> ParseCount(std::string_view text, const std::string& what) {
  uint64_t v = 0;
  bool digits = !text.empty() && text.size() <= 12;
  for (char ch : text) {
    if (ch < '0' || ch > '9') digits = false;
    if (digits) v = v * 10 + static_cast<uint64_t>(ch - '0');
  }
  if (!digits) {
    return Status::InvalidArgument(what + ": '" + Abbreviate(text) + "' is not a whole number");
  }
  return v;
}

Result<Shard> Checked(uint64_t index, uint64_t count, const std::string& what) {
  if (count < 1) return Status::InvalidArgument(what + ": the shard count must be at least 1");
  if (index >= count) {
    return Status::InvalidArgument(what + ": shard index " + std::to_string(index) +
                                   " is not below the count " + std::to_string(count) +
                                   " (indexes are 0-based: 0.." + std::to_string(count - 1) + ")");
  }
  return Shard{index, count};
}

}  // namespace

Result<Shard> ParseShard(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    return Status::InvalidArgument("'" + Abbreviate(text) +
                                   "' is not K/N (0-based shard K of N, e.g. 0/3) or auto");
  }
  auto k = ParseCount(text.substr(0, slash), "shard index");
  if (!k.ok()) return k.status();
  auto n = ParseCount(text.substr(slash + 1), "shard count");
  if (!n.ok()) return n.status();
  return Checked(*k, *n, std::string(text));
}

Result<Shard> ShardFromEnv(const EnvLookup& env, uint64_t shards) {
  if (auto index = env("JOB_COMPLETION_INDEX")) {
    if (shards == 0) {
      return Status::InvalidArgument(
          "JOB_COMPLETION_INDEX is set: give the shard count with --shards N (the Job's "
          "completions)");
    }
    auto k = ParseCount(*index, "JOB_COMPLETION_INDEX");
    if (!k.ok()) return k.status();
    return Checked(*k, shards, "JOB_COMPLETION_INDEX=" + Abbreviate(*index) + " with --shards");
  }
  auto proc = env("SLURM_PROCID");
  auto tasks = env("SLURM_NTASKS");
  if (proc && tasks) {
    auto k = ParseCount(*proc, "SLURM_PROCID");
    if (!k.ok()) return k.status();
    auto n = ParseCount(*tasks, "SLURM_NTASKS");
    if (!n.ok()) return n.status();
    if (shards != 0 && shards != *n) {
      return Status::InvalidArgument("--shards " + std::to_string(shards) +
                                     " differs from SLURM_NTASKS=" + std::to_string(*n));
    }
    return Checked(*k, *n, "SLURM_PROCID/SLURM_NTASKS");
  }
  return Status::InvalidArgument(
      "auto: neither JOB_COMPLETION_INDEX (with --shards N) nor SLURM_PROCID and "
      "SLURM_NTASKS are set; give --shard K/N");
}

Share ShareOf(uint64_t total, Shard s) {
  using u128 = unsigned __int128;
  return {static_cast<uint64_t>(u128{total} * s.index / s.count),
          static_cast<uint64_t>(u128{total} * (s.index + 1) / s.count)};
}

Result<KeySlice> ShardKeySlice(uint64_t key_min, uint64_t key_max, Shard s) {
  using u128 = unsigned __int128;
  const u128 size = u128{key_max - key_min} + 1;
  if (size < s.count) {
    return Status::InvalidArgument("the key range " + std::to_string(key_min) + ".." +
                                   std::to_string(key_max) + " has fewer keys than the " +
                                   std::to_string(s.count) + " shards");
  }
  const u128 lo = size * s.index / s.count;
  const u128 hi = size * (s.index + 1) / s.count;  // exclusive, > lo
  return KeySlice{key_min + static_cast<uint64_t>(lo), key_min + static_cast<uint64_t>(hi - 1)};
}

uint64_t ShardSeed(uint64_t seed, Shard s) {
  return s.count == 1 ? seed : DeriveSeed(seed ^ kShardStream, s.index);
}

Result<double> ShardRate(double rate, Shard s) {
  const double milli = std::round(rate * 1000);
  if (!(milli >= 1) || milli > 9e15) {
    return Status::InvalidArgument("--rate: must be between 0.001 and 9e12 requests/s to be split");
  }
  const Share part = ShareOf(static_cast<uint64_t>(milli), s);
  if (part.size() == 0) {
    return Status::InvalidArgument("--rate: " + std::to_string(rate) + " requests/s over " +
                                   std::to_string(s.count) + " shards leaves shard " +
                                   std::to_string(s.index) + " none");
  }
  return static_cast<double>(part.size()) / 1000;
}

Result<std::vector<int>> ShardMembers(int members, Shard s) {
  if (static_cast<uint64_t>(members) < s.count) {
    return Status::InvalidArgument("a pool of " + std::to_string(members) +
                                   " targets cannot be split over " + std::to_string(s.count) +
                                   " shards: each shard needs a member (give at least as many "
                                   "--target as shards, or one --target for all)");
  }
  std::vector<int> taken;
  for (uint64_t i = s.index; i < static_cast<uint64_t>(members); i += s.count) {
    taken.push_back(static_cast<int>(i));
  }
  return taken;
}

}  // namespace memstand
