// stretched-cache's JSON contract: the keys its writer (report.cc) writes and its readers
// (charts.cc, choices.cc) read, each spelt once here (docs/scenarios/stretched-cache.md).
// contract_test.cc feeds a report made of fabricated runs to both.
#pragma once

#include "report/json_check.h"

namespace memstand::stretched_cache_json {

// Top level.
inline constexpr char kCells[] = "cells";  // block (d): SET + WAIT 1 per distance, relay mode, client
inline constexpr char kCalibration[] = "calibration";  // block (e): GET through the relay

// cells[] and calibration[].
inline constexpr char kRun[] = "run";
inline constexpr char kOneWayNs[] = "one_way_ns";  // the relay's delay
inline constexpr char kRoundTripNs[] = "round_trip_ns";

// cells[] (and calibration[]: kRelayMode).
inline constexpr char kRelayMode[] = "relay_mode";  // "pipelined", "serializing"
inline constexpr char kClient[] = "client";         // "sequential", "pipelined"
inline constexpr char kMedianNs[] = "median_ns";
// false: the serializing relay's sequential cell whose difference is not valid
// (kMaxOneChunkPercent, figures.h); its median is not the serializing relay's either.
inline constexpr char kValid[] = "valid";

// calibration[].
inline constexpr char kGetRelayMedianNs[] = "get_relay_median_ns";

// Fields read by their type: ScenarioDef::read_rules (scenario/registry.h).
inline constexpr JsonRule kReadRules[] = {
    {"cells", JsonType::kArray},
    {"cells[].run", JsonType::kInt},
    {"cells[].client", JsonType::kString},
    {"cells[].relay_mode", JsonType::kString},
    {"cells[].one_way_ns", JsonType::kNumber},
    {"cells[].median_ns", JsonType::kNumber},
    {"cells[].round_trip_ns", JsonType::kNumber},
};

}  // namespace memstand::stretched_cache_json
