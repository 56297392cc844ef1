// The contract between a scenario's writer and its readers, tested without servers: a
// report filled from fabricated measurements, written as --json and --evidence write it,
// read back by the scenario's charts and choice-map rows (src/scenario/<name>/
// contract_test.cc).
#pragma once

#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/choice_map.h"
#include "report/report_input.h"
#include "report/scenario_sections.h"
#include "scenario/scenario.h"

namespace memstand::testutil {

/// The report as `memstand report` reads it: the JSON --json writes (ScenarioJson, the
/// platform made up), and with `evidence` the evidence folder's CSV tables too. Expects
/// it to pass its scenario's read rules (CheckScenarioResult).
ReportInput ContractInput(const ScenarioReport& report, bool evidence);

/// `charts` draws exactly `expected` charts from `in`, each with a value to draw, and
/// adds no block saying a chart could not be drawn.
void ExpectEveryChartHasData(ScenarioChartsFn charts, const ReportInput& in, size_t expected);

/// A working-set result as its choice-map rows read it: one configuration that evicts,
/// one that rejects writes, and one measured otherwise than expected (keeps all).
nlohmann::json WorkingSetChoiceResult();

/// Every one of `rows` is "measured here" from `in`'s document.
void ExpectEveryRowMeasured(const ReportInput& in, const std::vector<MeasuredChoiceRow>& rows);

}  // namespace memstand::testutil
