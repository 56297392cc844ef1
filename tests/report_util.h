// Test helpers for what `memstand report` makes of a document: a ReportInput from JSON
// text, a chart's data as its page script receives it, a choice-map row by its system.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/choice_map.h"
#include "report/report_input.h"
#include "report/report_section.h"

namespace memstand::testutil {

/// The input a JSON text makes, its kind told by its own fields (a failure if none).
ReportInput ReportInputOf(const std::string& text, const std::string& path = "in.json");

/// The chart of `section` titled `title`; a failure and nullptr when there is none.
const Chart* ChartTitled(const ReportSection& section, const std::string& title);

/// The chart's axes, series, data, bands and lines, as its page script receives them
/// (ChartJson); null when there is no such chart.
nlohmann::ordered_json ChartData(const ReportSection& section, const std::string& title);

/// A golden chart value written as JSON text, in the order it is written.
nlohmann::ordered_json Golden(const char* text);

/// The row of `rows` whose system is `system`; a failure and an empty row when none.
const ChoiceRow& ChoiceRowOf(const std::vector<ChoiceRow>& rows, const std::string& system);

}  // namespace memstand::testutil
