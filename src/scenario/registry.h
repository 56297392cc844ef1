// The scenarios memstand runs, one row each in kScenarios[] (registry.cc), as ninja's
// kTools[] and memstand's own kSubcommands[]: its name, its question (the one copy:
// `memstand scenario list`, the subcommand's --help and the JSON's "question"), the
// systems it stands up, its flags, its charts on the report page and its rows of the
// choice map (report/ names no scenario: it is given these functions). Adding a
// scenario: its code and a row.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "report/choice_map.h"
#include "report/json_check.h"
#include "report/report_input.h"
#include "report/scenario_sections.h"
#include "scenario/kit/scenario_server.h"
#include "scenario/scenario.h"

namespace memstand {

struct ScenarioDef {
  const char* name;      // "working-set": `memstand scenario run NAME`
  const char* question;  // the one copy
  std::vector<SystemKind> systems;  // the servers it stands up
  /// Also a private PostgreSQL cluster (scenario/compute_locality/pg.h: not a stand topology).
  bool postgresql = false;
  /// --runs when not given (durability-overload: 3, its errors come and go between runs).
  int default_runs = 1;
  /// Its flags; what they become after the parse is its options bound to Run<Name>.
  ScenarioSetup setup;
  /// Its charts and JSON tables on the page of `memstand report`.
  ScenarioChartsFn charts;
  /// Its measured rows of the choice map (`memstand report --choice-map`).
  ChoiceRowsFn choice_rows;
  /// The fields of its JSON that its charts and choice rows read with throwing accessors,
  /// with their types (its json.h, kReadRules): checked before they read a result.
  std::span<const JsonRule> read_rules = {};
};

/// Every scenario, in the order docs/scenarios.md gives them.
std::span<const ScenarioDef> Scenarios();

/// The scenario named `name`, or nullptr.
const ScenarioDef* FindScenario(std::string_view name);

/// `memstand scenario list`: each scenario, its question, and per system whether its
/// program is installed here ("redis-server: installed", "tarantool: not installed
/// (apt-get install tarantool)").
std::string DescribeScenarios();

/// The charts function of the scenario named `name`, or nullptr (a ScenarioChartsLookup
/// for report/html_report.h).
ScenarioChartsFn ScenarioChartsByName(std::string_view name);

/// A result given to `memstand report` (a ScenarioResultCheck for report/html_report.h):
/// OK unless it is a scenario's whose fields break that scenario's read_rules; then
/// InvalidArgument "'<in.json_path>': field cells[3].run: a string, expected a whole
/// number", so that its readers never meet a field of another type.
Status CheckScenarioResult(const ReportInput& in);

/// Every scenario's measured rows of the choice map, in the registry's order.
std::vector<MeasuredChoiceRow> ScenarioChoiceRows();

/// The rows of the choice map no scenario measures: the documented opinion of
/// docs/choice-map.md, support "judgment", each saying which scenario would measure it.
const std::vector<ChoiceRow>& JudgmentRows();

/// The rows of the systems of the published map that cannot be measured here (no
/// package for this platform), support kChoiceNotPackaged, as docs/choice-map.md has them.
const std::vector<ChoiceRow>& NotPackagedRows();

/// The rows `memstand report --choice-map` prints after the measured ones: the judgment
/// rows, then the not packaged ones.
std::vector<ChoiceRow> FixedChoiceRows();

/// The decision tree of the published map (docs/choice-map.md): coordination -> etcd;
/// logic near the data -> Tarantool; fits in memory -> Redis; else a store that keeps
/// its data on a device; each step with the rows of the map that speak to it.
const std::vector<ChoiceStep>& ChoiceTree();

}  // namespace memstand
