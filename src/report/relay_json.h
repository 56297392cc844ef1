// `memstand relay --json FILE`: the relay's final counters as the `memstand.relay`
// document (docs/json-format.md is its specification; change both together).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "relay/relay_options.h"
#include "relay/relay_stats.h"
#include "report/platform.h"

namespace memstand {

inline constexpr int kRelayJsonVersion = 1;

/// What the document says beside the counters.
struct RelayRunInfo {
  std::string started_at;  // wall clock, ISO 8601 UTC
  std::string start_line;  // DescribeRelay's line, without its newline
  std::string stopped_by;  // "signal" or "duration"
  double elapsed_s = 0;    // from start to stop
  double cpu_s = 0;        // user + system CPU of the relay's process
  Platform platform;
};

/// REQUIRES: stats from a relay of `options`, whose listen ports are the bound ones.
nlohmann::ordered_json RelayJson(const RelayOptions& options, const RelayStats& stats,
                                 const RelayRunInfo& info);

}  // namespace memstand
