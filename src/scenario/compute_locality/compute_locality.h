// compute-locality (docs/scenarios/compute-locality.md): the top-10 products of
// a category by views, computed by fetching the whole category to the client (naive)
// or by the server (local), on the same data in the same run, with the controls that
// separate "fewer rows" from "fewer bytes per row" from "an algorithm near the data".
// Per path: objects returned, application bytes on memstand's own socket and the
// kernel's TCP_INFO count over the same window, and the median time of --reps calls,
// interleaved, with the order swapped in a second pass. Every path must return the
// same ids in the same order (the invariant).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "scenario/scenario.h"
#include "util/status.h"

namespace memstand {

struct MeasuredChoiceRow;
struct ReportInput;
struct ReportSection;

struct ComputeLocalityOptions {
  /// Timed calls of each path per pass (docs/scenarios/compute-locality.md: the median of 51).
  int reps = 51;
  /// A second pass with the paths in reverse order (docs/method.md rule 10).
  bool swap_order = true;
  std::string category = "tools";
  /// Rows of the top (docs/scenarios/compute-locality.md: 10).
  int top = 10;
  /// Records per load request (one EVAL or MSET): the load takes seconds, not minutes.
  uint32_t load_batch = 1000;
  /// Systems to run, by name ("tarantool", "redis"); empty: both.
  std::vector<std::string> systems;
};

/// Checks the options (InvalidArgument naming the flag).
Status ValidateComputeLocality(const ComputeLocalityOptions& options);

/// The invariant of one path's ids against the reference: "ids of <name> in order ==
/// ids of <reference>", both sides the count of positions that agree with the
/// reference (rhs: the reference's length; a shorter or longer list breaks it).
Invariant SameIdsInvariant(const std::string& name, const std::vector<uint32_t>& ids,
                           const std::string& reference, const std::vector<uint32_t>& reference_ids);

Result<ScenarioReport> RunComputeLocality(const ComputeLocalityOptions& options, const ScenarioContext& ctx);

// Its row in scenario/registry.cc: its flags (flags.cc), its charts and JSON tables on
// the report page (charts.cc) and its rows of the choice map (choices.cc).
ScenarioPrepare SetupComputeLocality(CLI::App* app);
void ComputeLocalityCharts(const ReportInput& in, ReportSection* section);
std::vector<MeasuredChoiceRow> ComputeLocalityChoiceRows();

}  // namespace memstand
