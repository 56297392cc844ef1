// A CommandSpec from a command's text, as `memstand run --command` reads it, for the
// callers that build LoadOptions themselves (scenarios).
#pragma once

#include <cstdint>
#include <string>

#include "load/load_options.h"
#include "load/protocol.h"
#include "util/status.h"
#include "workload/key_pattern.h"

namespace memstand {

/// What the keys and values a command makes can reach, for the protocol's limits.
struct CommandLimits {
  uint64_t key_max = 0;       // the largest key index
  size_t value_max = 0;       // the largest value
  std::string value_flag = "-d/--data-size";  // the flag to name for a value too large
};

/// Parses `text` for protocol `p` (a Redis command, a memcache/etcd command, a
/// Tarantool request template), with `key_prefix` before each key index, and checks
/// that every key and value it makes fits the protocol (its request's CheckLimits). The
/// label is the command's name; counts_hits is set for GET-like reads. InvalidArgument:
/// a bad text ("--command: ..."), or a key or value the protocol cannot carry (naming
/// its flag).
Result<CommandSpec> MakeCommandSpec(Protocol p, const std::string& text,
                                    const std::string& key_prefix, KeyPatternSpec pattern,
                                    uint32_t weight, const CommandLimits& limits);

}  // namespace memstand
