// The report page's section of a scenario's JSON or evidence folder (docs/scenarios.md):
// the common blocks every scenario writes (question, command, procedure, limits,
// verdict), its tables (the evidence folder's CSVs, else what the JSON holds), and the
// scenario's own charts, drawn by a function the caller gives: report/ names no
// scenario (the scenario registry, scenario/registry.h, holds each one's). A scenario
// without one gets its blocks and tables only.
#pragma once

#include <string_view>

#include "report/report_input.h"
#include "report/report_section.h"

namespace memstand {

/// Adds a scenario's charts to `section`, and its tables when the input has no evidence
/// CSVs (in.csv empty). Reads in.doc leniently (json_fields.h): any file may come in.
using ScenarioChartsFn = void (*)(const ReportInput& in, ReportSection* section);
/// The charts function of the scenario named `scenario`, or nullptr for one without.
using ScenarioChartsLookup = ScenarioChartsFn (*)(std::string_view scenario);

/// Tables over this many rows are offered as a CSV download only (a samples.csv of
/// every timed call would make a page nobody reads).
inline constexpr size_t kMaxTableRowsShown = 300;

/// REQUIRES: in.kind == kScenario. `charts`: the scenario's, or nullptr (a line says the
/// page has none for it).
ReportSection ScenarioSection(const ReportInput& in, ScenarioChartsFn charts);

}  // namespace memstand
