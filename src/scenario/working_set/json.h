// working-set's JSON contract: the keys its writer (report.cc) writes and its readers
// (charts.cc, choices.cc) read, each spelt once here (docs/scenarios/working-set.md).
// contract_test.cc feeds a report made of fabricated runs to both.
#pragma once

#include "report/json_check.h"

namespace memstand::working_set_json {

// Top level.
inline constexpr char kConfigurations[] = "configurations";
inline constexpr char kPortion[] = "portion";  // writes between two counter reads

// configurations[].
inline constexpr char kName[] = "name";  // "redis-allkeys-lru", ...
inline constexpr char kServer[] = "server";
inline constexpr char kNotRun[] = "not_run";
inline constexpr char kRuns[] = "runs";  // one per run

// configurations[] and configurations[].runs[].
inline constexpr char kOutcome[] = "outcome";  // "evicts", "rejects", "evicts and rejects", "keeps all"

// configurations[].runs[].
inline constexpr char kRun[] = "run";
inline constexpr char kAttempted[] = "attempted";
inline constexpr char kSuccessful[] = "successful";
inline constexpr char kMemoryUsed[] = "memory_used";
inline constexpr char kFirstError[] = "first_error";
inline constexpr char kFirstRejectedWrite[] = "first_rejected_write";
inline constexpr char kDetectedIn[] = "detected_in";    // [low, high]: the first event's portion
inline constexpr char kExactPoint[] = "exact_point";    // the first event's write
inline constexpr char kExactEviction[] = "exact_eviction";
inline constexpr char kServerCounters[] = "server_counters";  // the server's own, by name
inline constexpr char kVinylDiskData[] = "vinyl_disk_data";   // of server_counters (Tarantool vinyl)
inline constexpr char kPortions[] = "portions";  // the counters after each portion

// configurations[].runs[] and its portions[].
inline constexpr char kRejected[] = "rejected";
inline constexpr char kEvicted[] = "evicted";
inline constexpr char kPresent[] = "present";
// configurations[].runs[].portions[].
inline constexpr char kWritten[] = "written";
inline constexpr char kSeconds[] = "seconds";        // the portion's load: first send to last reply
inline constexpr char kWritesPerS[] = "writes_per_s";  // its writes over its seconds
// configurations[]: the writers setting it ran with (connections at the same time).
inline constexpr char kWriters[] = "writers";

// Top level and configurations[].runs[]: the reads (--reads), null without.
inline constexpr char kReads[] = "reads";
// reads.
inline constexpr char kDistribution[] = "distribution";  // "uniform", "zipf", "gaussian"
// configurations[].runs[].reads.
inline constexpr char kReadCount[] = "reads";       // reads made
inline constexpr char kHits[] = "hits";             // from the replies
inline constexpr char kMisses[] = "misses";
inline constexpr char kHitRatio[] = "hit_ratio";    // hits / reads
inline constexpr char kServerCounted[] = "server";  // the server's own: source, hits, misses, hit_ratio, counters
inline constexpr char kAgree[] = "agree";           // the server's hits and misses are the replies' (null: none)
inline constexpr char kLatency[] = "latency";       // hit, miss: {n, p50_us, p99_us}
inline constexpr char kHit[] = "hit";
inline constexpr char kMiss[] = "miss";
inline constexpr char kVinyl[] = "vinyl";           // Tarantool vinyl: memory, disk, ...
inline constexpr char kMemory[] = "memory";
inline constexpr char kDisk[] = "disk";
inline constexpr char kDiskShare[] = "disk_share";  // reads attributed to disk / reads
inline constexpr char kCacheHitRatio[] = "cache_hit_ratio";  // the server's cache.get.rows / cache.lookup
inline constexpr char kN[] = "n";
inline constexpr char kP50Us[] = "p50_us";
inline constexpr char kP99Us[] = "p99_us";

// Fields read by their type: ScenarioDef::read_rules (scenario/registry.h).
inline constexpr JsonRule kReadRules[] = {
    {"configurations", JsonType::kArray},
    {"configurations[].name", JsonType::kString},
    {"configurations[].runs", JsonType::kArray},
};

}  // namespace memstand::working_set_json
