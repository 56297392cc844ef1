// The report page's section of a scenario's JSON or evidence folder (docs/scenarios.md):
// the common blocks every scenario writes (question, command, procedure, limits,
// verdict), its tables (the evidence folder's CSVs, else what the JSON holds), and the
// charts of the scenarios this page knows (scenario_charts.h). A scenario it does not
// know gets its blocks and tables only.
#pragma once

#include "report/report_input.h"
#include "report/report_section.h"

namespace memstand {

/// Tables over this many rows are offered as a CSV download only (a samples.csv of
/// every timed call would make a page nobody reads).
inline constexpr size_t kMaxTableRowsShown = 300;

/// REQUIRES: in.kind == kScenario.
ReportSection ScenarioSection(const ReportInput& in);

}  // namespace memstand
