// A history's checks as a library (docs/history.md, "Checks"): the lost-writes check's
// final read of every written key through the control client of the target's kind
// (RESP, etcd, Tarantool, memcached), and the checks that are pure functions of the
// records. `memstand check` and the scenarios that write a history call these.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "history/check_result.h"
#include "history/record.h"
#include "load/target.h"

namespace memstand {

/// Reads every key a write touched once from `t` (a target of the history's kind) and
/// judges the values found (history/lost_writes.h). kCouldNotRun, saying why, when the
/// keys cannot be read.
history::CheckResult CheckLostWritesAt(const history::History& h, const RedisTarget& t);

/// The checks named in `checks` ("lost-writes", "linearizable", "monotonic-reads",
/// "read-your-writes", "revisions"), in that order. lost-writes reads from `target`
/// (null: kCouldNotRun); the linearizability search stops after time_limit_ns.
std::vector<history::CheckResult> RunHistoryChecks(const history::History& h, const std::set<std::string>& checks,
                                                   const RedisTarget* target, int64_t time_limit_ns);

}  // namespace memstand
