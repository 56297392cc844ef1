// Per-scenario charts and JSON-derived tables of the report page, one function per
// scenario (a ScenarioChartsFn, scenario_sections.h), each in a file of its own (e.g.
// working_set_charts.cc); the scenario registry (scenario/registry.h) gives each row its
// function.
#pragma once

#include "report/report_input.h"
#include "report/report_section.h"

namespace memstand {

void WorkingSetCharts(const ReportInput& in, ReportSection* section);
void MvccQuotaCharts(const ReportInput& in, ReportSection* section);
void ComputeLocalityCharts(const ReportInput& in, ReportSection* section);
void StretchedCacheCharts(const ReportInput& in, ReportSection* section);
void DurabilityOverloadCharts(const ReportInput& in, ReportSection* section);
void ReplicationCostCharts(const ReportInput& in, ReportSection* section);

}  // namespace memstand
