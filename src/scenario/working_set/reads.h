// working-set's reads (docs/scenarios/working-set.md, "Reads"): after a configuration's
// load, before its server stops, reads by key over the whole id range written, at a fixed
// rate, one at a time on the control connection; each reply counted a hit or a miss and
// timed into its own histogram, the server's own hit and miss counters read before and
// after, and for Tarantool vinyl each read attributed to memory or disk from the index's
// counters read after every read.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/kit/scenario_server.h"
#include "scenario/scenario.h"
#include "stats/hdr_histogram.h"
#include "util/status.h"

namespace memstand {

enum class ReadDistribution { kNone, kUniform, kZipf, kGaussian };

/// "none", "uniform", "zipf", "gaussian".
const char* ReadDistributionName(ReadDistribution d);
/// Parses --reads: uniform, zipf or gaussian (none: no reads). InvalidArgument naming
/// the flag and the values it takes.
Result<ReadDistribution> ParseReadDistribution(std::string_view text);

/// The bounds of --read-rate (one read at a time cannot go much faster than 100,000 a
/// second on loopback) and --read-count.
inline constexpr double kMaxReadRate = 100000;
inline constexpr uint64_t kMaxReadCount = 10'000'000;

struct ReadOptions {
  ReadDistribution distribution = ReadDistribution::kNone;
  /// Reads a second, paced from fixed intended times (constant gaps). 2000: well below
  /// what one connection reading one at a time gets from any of the servers (about
  /// 10,000/s here under ASan), so the reads hardly ever queue behind each other.
  double rate = 2000;
  /// Reads per configuration: 20,000 at 2000/s is 10 s each, enough for a p99 from 200
  /// reads above it in the smaller of the hit and miss histograms at a 1% hit or miss share.
  uint64_t count = 20000;
  /// Zipf's exponent (the workload's own default, KeyPatternSpec).
  double zipf_exponent = 0.99;
};

/// A histogram's size and two percentiles, for the report.
struct LatencySummary {
  int64_t n = 0;
  double p50_us = 0, p99_us = 0;
};
LatencySummary LatencyOf(const HdrHistogram& h);

/// The reads of one configuration in one run.
struct WorkingSetReads {
  ReadDistribution distribution = ReadDistribution::kNone;
  double rate = 0;                          // reads a second asked for
  std::string failure;                      // why the reads ended early ("" when all were made)
  uint64_t low = 1, high = 0;               // the ids read from: 1..attempted
  int64_t reads = 0, hits = 0, misses = 0;  // from the replies
  double seconds = 0;                       // from the first intended send to the last reply
  int64_t late = 0;              // reads sent more than one gap behind their intended time
  HdrHistogram hit_ns, miss_ns;  // from the send to the reply, one read at a time
  /// The server's own counters: their source in words, and the before/after deltas by
  /// name (Redis keyspace_hits/keyspace_misses; memcached get_hits/get_misses; Tarantool
  /// select, and for vinyl the primary index's lookup/get/cache/disk counters).
  std::string server_source;
  std::map<std::string, int64_t> server;
  /// The server's hits and misses when it counts them (not memtx): nullopt otherwise.
  std::optional<int64_t> server_hits, server_misses;
  /// Tarantool vinyl: each read attributed by the index's counters around it: "disk"
  /// when it searched the runs on disk (disk.iterator.lookup rose), else "memory" (the
  /// tuple cache, the in-memory level, or the bloom filters said absent).
  bool vinyl = false;
  HdrHistogram memory_ns, disk_ns;
  int64_t cache_hits = 0;  // reads whose cache.get.rows rose
  int64_t pages_read = 0;  // disk.iterator.read.pages over the reads
  double hit_ratio() const { return reads > 0 ? double(hits) / double(reads) : 0; }
};

/// Reads opt.count keys of 1..high drawn from opt.distribution (zipf: ranks scattered over
/// the ids by a permutation from `seed`, so the hot keys are not the first written;
/// gaussian: around the middle id, stddev a sixth of the range; uniform) from `server`.
/// A failure ends the reads early and is said in WorkingSetReads::failure. REQUIRES:
/// opt.distribution != kNone, high >= 1.
WorkingSetReads RunWorkingSetReads(ServerUnderTest& server, const ReadOptions& opt, uint64_t high,
                                   uint64_t seed, const std::atomic<bool>* interrupt);

/// The reads' invariants (a broken one fails the run): hits + misses == reads, the hit and
/// miss histograms' N add up to the reads, the server's hits and misses equal the
/// replies' (memtx: its SELECT requests equal the reads), and vinyl's memory and disk N
/// add up to the reads.
std::vector<Invariant> WorkingSetReadInvariants(const WorkingSetReads& r);

/// Checks the read options (InvalidArgument naming the flag). None: always OK.
Status ValidateReadOptions(const ReadOptions& o);

/// The order the keys are drawn in: id = ReadKeyOrder(...)[rank - 1]. Zipf: a permutation
/// of 1..high from `seed`; otherwise the identity. Exposed for its test.
std::vector<uint32_t> ReadKeyOrder(ReadDistribution d, uint64_t high, uint64_t seed);

}  // namespace memstand
