// What a shard of a fleet (--shard K/N) took and when it started (--start-at): the
// lines of `memstand run`'s report and the JSON's "shard" and "start_at" objects
// (docs/json-format.md, docs/scale-out.md).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "load/engine.h"
#include "load/load_options.h"

namespace memstand {

/// "shard 1/3: keys 3334..6666 (of 0..9999), ...". Empty when not sharded.
std::string ShardNote(const LoadOptions& o);
/// "--start-at 2026-12-01T18:30:00Z: measured from ... (+0.000123 s)", with how late a
/// late run was. Empty without --start-at.
std::string StartNote(const LoadOptions& o, const RunResult& r);

/// The JSON objects; null when not sharded / without --start-at.
nlohmann::ordered_json ShardJson(const LoadOptions& o);
nlohmann::ordered_json StartAtJson(const LoadOptions& o, const RunResult& r);
/// --fleet-check: the counters before and GRACE after (null without the flag).
nlohmann::ordered_json FleetCheckJson(const LoadOptions& o, const RunResult& r);

/// Unix seconds as RFC 3339 UTC ("2026-12-01T18:30:00Z"), whole seconds.
std::string UtcSecond(double unix_s);

}  // namespace memstand
