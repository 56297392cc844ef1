// --history: what each command of the mix is to a register (docs/history.md#what-run-records):
// a read of its key or a write of a value to it. The history holds registers only, so a
// mix with any other command is refused before the run.
#pragma once

#include <vector>

#include "history/record.h"
#include "load/load_options.h"
#include "util/status.h"

namespace memstand {

/// By command index. InvalidArgument naming the first command that is neither a read
/// nor a write of one key, a protocol whose histories are not written yet, or values
/// too short to carry a write's tag.
Result<std::vector<history::Op>> HistoryOps(const LoadOptions& opt);

/// The history's kind of target for a protocol.
history::TargetKind HistoryTargetKind(Protocol p);

}  // namespace memstand
