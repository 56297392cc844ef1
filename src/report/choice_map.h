// The choice map (issue 17, docs/choice-map.md): "class of task -> system and
// configuration -> how it goes faster -> what you pay", with a support column. A
// measured row takes its figures from a scenario result given as input (the scenario's
// JSON, as `memstand scenario run ... --json` or an evidence folder's scenario.json
// writes it) and names the scenario, the figure and the file; a row whose scenario was
// not given says "not measured here", never a number from elsewhere; the judgment rows
// are the documented text of docs/choice-map.md. Reads JSON; measures nothing.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report_section.h"

namespace memstand {

struct ChoiceRow {
  std::string task;     // class of task
  std::string system;   // system and configuration
  std::string faster;   // how it goes faster
  std::string pay;      // what you pay
  /// "measured here", "not measured here" or "judgment".
  std::string support;
  std::string source;   // measured: "<scenario>: <figure> (<file>)"; else what would measure it
};

/// A scenario result: its file (for the support column) and its parsed JSON.
struct ScenarioResult {
  std::string file;
  nlohmann::json doc;
};

/// Every row: the measured rows of each known scenario (from the first input of that
/// scenario; a scenario's configuration missing from it is "not measured here"), then
/// the judgment rows. Inputs of other scenarios are ignored.
std::vector<ChoiceRow> ChoiceMap(const std::vector<ScenarioResult>& results);

/// The rows docs/choice-map.md documents as judgment.
const std::vector<ChoiceRow>& JudgmentRows();

/// The text table: one block per row (the columns are too long for one line each).
std::string ChoiceMapText(const std::vector<ChoiceRow>& rows);
nlohmann::json ChoiceMapJson(const std::vector<ChoiceRow>& rows);
/// The page's section: the rows as one table (downloadable as choice-map.csv).
ReportSection ChoiceMapSection(const std::vector<ChoiceRow>& rows);

}  // namespace memstand
