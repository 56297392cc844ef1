// `memstand merge`'s per-second series: the inputs' seconds aligned by wall clock
// (series_start_unix_s) and added, per-second histograms included, so the fleet's
// per-second percentiles are those of one histogram of that second's requests.
#pragma once

#include <vector>

#include "load/engine.h"
#include "load/load_options.h"
#include "report/merge.h"
#include "util/status.h"

namespace memstand::merge_internal {

/// Fills r->series (a series per command of o, then all commands) and
/// r->series_start_unix_s (the earliest input's). A second's ops and errors are summed
/// and its max the largest; its histograms are added where every input's point of that
/// second carries one (else its percentiles are unknown). REQUIRES: r->totals holds the
/// merged command histograms (their settings are the per-second ones'). InvalidArgument
/// naming the file, command and second of a histogram that does not decode or has
/// other settings.
Status MergeSeries(const std::vector<MergeInput>& inputs, const LoadOptions& o, RunResult* r);

}  // namespace memstand::merge_internal
