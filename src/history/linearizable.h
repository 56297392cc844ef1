// Per-key linearizability of a register with read, write and cas: the Wing–Gong search
// with Lowe's memo of (operations placed, register state) pairs, one key at a time
// (P-compositionality: a history of independent registers is linearizable when each
// key's is), as Porcupine does. An ok operation takes effect between its invoke and its
// completion; an unknown write or cas at any time after its invoke, or never; failed
// operations and unknown reads did nothing. The register starts absent when the run
// header says the keys were fresh, else as some value this run did not write.
// Bounded per key in steps and memory, and for all keys in time: a key whose bound runs
// out is "gave up", never a verdict.
#pragma once

#include <cstdint>

#include "history/check_result.h"
#include "history/record.h"

namespace memstand::history {

struct LinearizabilityLimits {
  /// Per key: a step is one try to place an operation or one undo. 20 million is a few
  /// seconds of search; a key needing more is given up on.
  uint64_t max_steps_per_key = 20'000'000;
  /// Per key: the memo's bytes (each entry holds a bit per operation of the key). 512 MiB:
  /// what a shared machine spares.
  uint64_t max_memory_per_key = uint64_t{512} << 20;
  /// All keys together, in nanoseconds of the steady clock (read every 1024 steps);
  /// 0: no limit. Keys not reached in time are given up on.
  int64_t time_limit_ns = 0;
};

/// Reads of values never written, of values written to another key, or of values whose
/// write began after the read ended are found before the search, each a finding of its
/// own; a key without those is searched, and a failed search shows the operation that
/// could not be placed after the longest valid order found, with the operations
/// concurrent with it.
CheckResult CheckLinearizable(const History& h, const LinearizabilityLimits& limits = {});

}  // namespace memstand::history
