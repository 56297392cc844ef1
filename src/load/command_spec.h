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

/// Parses `text` for protocol `p` (a Redis command, a memcache/etcd command, a
/// Tarantool request template), with `key_prefix` before each key index. The label is
/// the command's name; counts_hits as `run` sets it. InvalidArgument on a bad text.
Result<CommandSpec> MakeCommandSpec(Protocol p, const std::string& text,
                                    const std::string& key_prefix, KeyPatternSpec pattern,
                                    uint32_t weight = 1);

}  // namespace memstand
