// compute-locality's JSON and evidence contract: the keys its writer (report.cc) writes
// and its readers (charts.cc, choices.cc) read, and the evidence table and columns its
// charts read, each spelt once here (docs/scenarios/compute-locality.md).
// contract_test.cc feeds a report made of fabricated runs to both.
#pragma once

#include "report/json_check.h"

namespace memstand::compute_locality_json {

// Top level.
inline constexpr char kSystems[] = "systems";  // one per system and run

// systems[].
inline constexpr char kName[] = "name";  // "tarantool", "redis", "postgresql"; in paths[]: the path's
inline constexpr char kRun[] = "run";
inline constexpr char kNotRun[] = "not_run";
inline constexpr char kFailure[] = "failure";
inline constexpr char kPaths[] = "paths";
inline constexpr char kPairs[] = "pairs";  // the comparisons: a over b

// systems[].paths[] (and kName).
inline constexpr char kBytesOut[] = "bytes_out";
inline constexpr char kMedianNs[] = "median_ns";
inline constexpr char kMinNs[] = "min_ns";
inline constexpr char kMaxNs[] = "max_ns";
inline constexpr char kRoundTrips[] = "round_trips";
inline constexpr char kSamples[] = "samples";  // timed calls of the path
inline constexpr char kVsNaive[] = "vs_naive";  // the ratios naive / this path

// systems[].pairs[].
inline constexpr char kLabel[] = "label";  // "as published", "control 1, ...", ...
inline constexpr char kA[] = "a";
inline constexpr char kB[] = "b";

// paths[], paths[].vs_naive and pairs[]: a count in paths[], a ratio in the others.
inline constexpr char kObjects[] = "objects";
inline constexpr char kBytesIn[] = "bytes_in";
// paths[].vs_naive and pairs[].
inline constexpr char kBytesPerObject[] = "bytes_per_object";
inline constexpr char kTime[] = "time";

// The evidence folder's samples.csv, every timed call: its name and the columns read.
inline constexpr char kSamplesTable[] = "samples";
inline constexpr char kColumnRun[] = "run";
inline constexpr char kColumnSystem[] = "system";
inline constexpr char kColumnPath[] = "path";
inline constexpr char kColumnNs[] = "ns";

// Fields read by their type: ScenarioDef::read_rules (scenario/registry.h).
inline constexpr JsonRule kReadRules[] = {
    {"systems", JsonType::kArray},
    {"systems[].name", JsonType::kString},
    {"systems[].pairs", JsonType::kArray},
    {"systems[].pairs[].label", JsonType::kString},
};

}  // namespace memstand::compute_locality_json
