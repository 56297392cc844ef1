// Per-scenario charts and JSON-derived tables of the report page, one function per
// scenario, found by name in ScenarioChartsFor (scenario_charts.cc holds the table: a
// new scenario adds a row there and a file of its own, e.g. working_set_charts.cc).
#pragma once

#include <string>

#include "report/report_input.h"
#include "report/report_section.h"

namespace memstand {

/// Adds the scenario's charts to `section`, and its tables when the input has no
/// evidence CSVs (in.csv empty).
using ScenarioChartsFn = void (*)(const ReportInput& in, ReportSection* section);

/// The function for `scenario`, or nullptr for one this page has no charts for.
ScenarioChartsFn ScenarioChartsFor(const std::string& scenario);

void WorkingSetCharts(const ReportInput& in, ReportSection* section);
void MvccQuotaCharts(const ReportInput& in, ReportSection* section);
void ComputeLocalityCharts(const ReportInput& in, ReportSection* section);
void StretchedCacheCharts(const ReportInput& in, ReportSection* section);
void DurabilityOverloadCharts(const ReportInput& in, ReportSection* section);
void ReplicationCostCharts(const ReportInput& in, ReportSection* section);

}  // namespace memstand
