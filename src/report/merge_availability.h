// `memstand merge`'s availability: the fleet's lost connections and outages from its
// shards' availability sections (docs/scale-out.md#availability).
#pragma once

#include <vector>

#include "load/engine.h"
#include "load/load_options.h"
#include "report/merge_check.h"

namespace memstand::merge_internal {

/// Fills r->availability when any input has an availability section (an input without
/// one had no lost connection and no outage: `run` writes it whenever it had either, and
/// always with --reconnect): the connections lost, opened again and the failed attempts
/// summed; the first loss of the first input (in the order given) that had one, its file
/// named; each command's listed outages placed on the fleet's time axis (seconds from
/// r->measured_start_unix_s) and joined as one run joins its threads' (JoinOutages);
/// the seconds without an ok operation found again in the merged all-commands series.
/// An input that counted more outages of a command than it listed (only the longest are
/// in the run JSON) makes that command's figures upper bounds (CommandAvailability::exact).
/// REQUIRES: CheckMergeable passed; r->series and r->measured_start_unix_s merged.
void MergeAvailability(const std::vector<MergeInput>& inputs, const LoadOptions& o, RunResult* r);

}  // namespace memstand::merge_internal
