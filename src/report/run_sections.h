// The report page's sections of `memstand run --json` (one run, or a --runs series) and
// `memstand sweep --json` documents (docs/json-format.md): their text blocks, tables
// and charts (docs/report.md lists each chart and what it is drawn from).
#pragma once

#include "report/report_input.h"
#include "report/report_section.h"

namespace memstand {

/// REQUIRES: in.kind == kRun.
ReportSection RunSection(const ReportInput& in);
/// REQUIRES: in.kind == kRuns.
ReportSection RunsSection(const ReportInput& in);
/// REQUIRES: in.kind == kSweep.
ReportSection SweepSection(const ReportInput& in);

/// The platform object of a run document, described as Platform::Describe() does.
std::string DescribePlatform(const nlohmann::json& platform);

}  // namespace memstand
