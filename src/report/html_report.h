// `memstand report IN... -o report.html`: one self-contained HTML page (uPlot, its style
// sheet, the page's script and every figure inlined; nothing fetched when it is opened)
// of any mix of run, --runs, sweep and scenario inputs (docs/report.md). Reads files,
// never runs anything.
#pragma once

#include <string>
#include <vector>

#include "report/report_input.h"
#include "report/report_section.h"
#include "report/scenario_sections.h"
#include "util/status.h"

namespace memstand {

/// The section of one input, by its kind; a scenario's charts are those `charts` finds
/// for it (nullptr: none).
ReportSection SectionOf(const ReportInput& input, ScenarioChartsLookup charts);

/// The whole page of `sections`, in order. `command_line` is shown in the header.
std::string RenderHtmlReport(const std::vector<ReportSection>& sections,
                             const std::string& command_line);

/// Reads every input and checks it with `check` when given (the first bad one:
/// InvalidArgument naming it), renders the page with `extra` after the inputs' sections
/// (the choice map) and writes it to `out` whole or not at all (util/output_file.h).
/// `charts` as for SectionOf.
Status WriteHtmlReport(const std::vector<std::string>& inputs, const std::string& out,
                       const std::string& command_line, ScenarioChartsLookup charts,
                       const std::vector<ReportSection>& extra = {}, ReportInputCheck check = nullptr);

}  // namespace memstand
