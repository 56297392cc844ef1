// The load a scenario checks with a history (failover, recovery): open loop, writes and
// reads of registers, values tagged, a lost connection opened again and nothing retried,
// every operation recorded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "load/load_options.h"
#include "util/status.h"

namespace memstand {

struct RegisterLoad {
  std::vector<std::string> commands;  // a write and a read of __key__ (history/: a register each)
  std::string key_prefix;
  uint64_t keys = 1000;                // keys 0 .. keys-1
  int clients = 4;                     // one thread
  double rate = 1000;                  // operations per second, open loop
  double duration_s = 10;
  uint64_t seed = 1;
  std::string history_path;
  /// A lost connection is opened again after a wait from min to max (doubling).
  int backoff_min_ms = 20;
  int backoff_max_ms = 200;
};

/// The value size of such a load: a history's value tag must fit.
inline constexpr size_t kRegisterValueSize = 32;

/// Sets everything of `load` but its target (load->target, pool, cluster and protocol are
/// the caller's): the commands over `spec.keys` keys, random 32-byte values, one thread,
/// pipeline 1, a reply later than 1 s a lost connection (a stopped node never answers),
/// connections opened again, the history. InvalidArgument for a command it cannot build.
Status MakeRegisterLoad(const RegisterLoad& spec, LoadOptions* load);

}  // namespace memstand
