// The choice map (issue 17, docs/choice-map.md): "class of task -> system and
// configuration -> how it goes faster -> what you pay", with a support column. A
// measured row takes its figures from a scenario result given as input (the scenario's
// JSON, as `memstand scenario run ... --json` or an evidence folder's scenario.json
// writes it) and names the scenario, the figure and the file; a row whose scenario was
// not given says "not measured here", never a number from elsewhere; the judgment rows
// are the documented text of docs/choice-map.md. Reads JSON; measures nothing.
//
// The rows are given: the measured ones are the scenarios' own (each scenario's
// choices.cc) and the judgment rows those no scenario measures, both listed by the
// scenario registry (scenario/registry.h). This file is the machinery and names none.
#pragma once

#include <functional>
#include <initializer_list>
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

/// A row that a scenario's result measures: filled from the first input of `scenario`
/// when one is given, else "not measured here".
struct MeasuredChoiceRow {
  std::string scenario;           // the scenario whose JSON fills the row
  std::string task;               // class of task
  std::string system;             // system and configuration
  std::string faster_unmeasured;  // what the row is about, when nothing was measured
  /// Fills faster, pay and the figure from the scenario's document; false when the
  /// document lacks what the row needs (then: not measured here, with why).
  std::function<bool(const nlohmann::json& doc, ChoiceRow* row, std::string* figure)> fill;
};

/// A scenario's measured rows, in the map's order.
using ChoiceRowsFn = std::vector<MeasuredChoiceRow> (*)();

/// Every row: each of `measured` (from the first input of its scenario; a scenario's
/// configuration missing from it is "not measured here"), then `judgment` as they are.
/// Inputs of scenarios no row names are ignored.
std::vector<ChoiceRow> ChoiceMap(const std::vector<ScenarioResult>& results,
                                 const std::vector<MeasuredChoiceRow>& measured,
                                 const std::vector<ChoiceRow>& judgment);

/// For the rows' fill functions: j[path...], or null when any step is missing.
nlohmann::json ChoiceAt(const nlohmann::json& j, std::initializer_list<const char*> path);
/// A value as a row shows it: "?" for null, a string as it is, a float with one decimal.
std::string ChoiceValue(const nlohmann::json& v);
/// A ratio as a row shows it: "3.5x", or "?" when not a number.
std::string ChoiceRatio(const nlohmann::json& v);
/// The element of the array `list` whose `key` is the string `value`, or nullptr.
const nlohmann::json* ChoiceFind(const nlohmann::json& list, const char* key, const std::string& value);

/// The text table: one block per row (the columns are too long for one line each).
std::string ChoiceMapText(const std::vector<ChoiceRow>& rows);
nlohmann::json ChoiceMapJson(const std::vector<ChoiceRow>& rows);
/// The page's section: the rows as one table (downloadable as choice-map.csv).
ReportSection ChoiceMapSection(const std::vector<ChoiceRow>& rows);

}  // namespace memstand
