// The choice map (issue 17, docs/choice-map.md): "class of task -> system and
// configuration -> how it goes faster -> what you pay", with a support column. A
// measured row takes its figures from a scenario result given as input (the scenario's
// JSON, as `memstand scenario run ... --json` or an evidence folder's scenario.json
// writes it), as a range over all the result's runs with its N, and names the scenario,
// the figure and the file; a row whose scenario was not given says "not measured here",
// never a number from elsewhere; a system that cannot run here says so in its row
// (issue 31: never silently absent); the judgment rows are the documented text of
// docs/choice-map.md. Then the decision tree of the published map, each answer with the
// rows that support it. Reads JSON; measures nothing.
//
// The rows are given: the measured ones are the scenarios' own (each scenario's
// choices.cc), the fixed ones (judgment, not packaged) and the tree listed by the
// scenario registry (scenario/registry.h). This file is the machinery and names none.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report_section.h"

namespace memstand {

/// What supports a row (ChoiceRow::support).
inline constexpr char kChoiceMeasured[] = "measured here";
inline constexpr char kChoiceNotMeasured[] = "not measured here";
/// A system with no package for this platform: no scenario can stand it up here.
inline constexpr char kChoiceNotPackaged[] = "not measured here: not packaged for this platform";
inline constexpr char kChoiceJudgment[] = "judgment";

struct ChoiceRow {
  std::string task;     // class of task
  std::string system;   // system and configuration
  std::string faster;   // how it goes faster
  std::string pay;      // what you pay
  /// One of kChoiceMeasured, kChoiceNotMeasured, kChoiceNotPackaged, kChoiceJudgment.
  std::string support;
  std::string source;   // measured: "<scenario>: <figure> (<file>)"; else what would measure it
};

/// A scenario result: its file (for the support column) and its parsed JSON.
struct ScenarioResult {
  std::string file;
  nlohmann::json doc;
};

/// A row that a scenario's result measures: filled from the first input of `scenario`
/// when one is given, else "not measured here". The fill reads every run of that input
/// and writes its figures as ranges with their N (scenario/kit/ranges.h), not run 1's.
/// It may also reword `system` with what the run was configured with (etcd's quota).
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
/// configuration missing from it is "not measured here"), then `fixed` (judgment and not
/// packaged) as they are. Inputs of scenarios no row names are ignored.
std::vector<ChoiceRow> ChoiceMap(const std::vector<ScenarioResult>& results,
                                 const std::vector<MeasuredChoiceRow>& measured,
                                 const std::vector<ChoiceRow>& fixed);

/// The rows of the map that speak to a step of the decision tree: those of the class
/// `task` whose system starts with `system_prefix` (every one of the class when empty).
struct ChoiceEvidence {
  std::string task;
  std::string system_prefix;
};

/// A step of the decision tree: if `question` is answered yes, `choice`; else the next
/// step. The last step's question is the remainder ("otherwise ...").
struct ChoiceStep {
  std::string question;
  std::string choice;
  std::vector<ChoiceEvidence> evidence;
};

/// The rows of `rows` that support `step`, in the map's order.
std::vector<const ChoiceRow*> ChoiceSupport(const ChoiceStep& step, const std::vector<ChoiceRow>& rows);

/// For the rows' fill functions: j[path...], or null when any step is missing.
nlohmann::json ChoiceAt(const nlohmann::json& j, std::initializer_list<const char*> path);
/// A value as a row shows it: "?" for null, a string as it is, a float with one decimal.
std::string ChoiceValue(const nlohmann::json& v);
/// A ratio as a row shows it: "3.5x", or "?" when not a number.
std::string ChoiceRatio(const nlohmann::json& v);
/// The element of the array `list` whose `key` is the string `value`, or nullptr.
const nlohmann::json* ChoiceFind(const nlohmann::json& list, const char* key, const std::string& value);

/// The text table: one block per row (the columns are too long for one line each), then
/// the decision tree when `tree` is given.
std::string ChoiceMapText(const std::vector<ChoiceRow>& rows, const std::vector<ChoiceStep>& tree = {});
/// The decision tree: each step, its answer with how many rows of each support back it,
/// and those rows.
std::string ChoiceTreeText(const std::vector<ChoiceStep>& tree, const std::vector<ChoiceRow>& rows);
nlohmann::json ChoiceMapJson(const std::vector<ChoiceRow>& rows);
/// The page's section: the rows as one table (downloadable as choice-map.csv), and the
/// decision tree as another (choice-tree.csv) when `tree` is given.
ReportSection ChoiceMapSection(const std::vector<ChoiceRow>& rows, const std::vector<ChoiceStep>& tree = {});

}  // namespace memstand
