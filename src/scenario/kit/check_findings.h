// A history's check results in a scenario's report (failover, recovery): their JSON, and
// what they do to the verdict: a check that could not decide fails the run (the
// instrument's); a violated one, where the system promised otherwise, is a finding
// (exit 4) with its first examples as evidence.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/check_result.h"
#include "scenario/scenario.h"

namespace memstand {

/// The result of the check named `check` ("lost-writes") among `checks`; null when it
/// did not run.
const history::CheckResult* FindCheck(const std::vector<history::CheckResult>& checks, const std::string& check);
/// Its findings of `kind` ("lost"), 0 when it did not run.
uint64_t CheckCount(const std::vector<history::CheckResult>& checks, const std::string& check,
                    const std::string& kind);
/// Its verdict's name ("pass"), "-" when it did not run.
std::string CheckVerdict(const std::vector<history::CheckResult>& checks, const std::string& check);

/// [{check, verdict, summary}], one per result.
nlohmann::json ChecksJson(const std::vector<history::CheckResult>& checks);

/// Marks `report` for the checks of the cell `label`: kFailed for one that gave up or
/// could not run; with `promise` non-empty (what the system promised, said beside each
/// finding), an Anomaly and kFinding for each kind of violation a violated check found.
/// With `promise` empty a violation is the configuration's documented behaviour: a
/// figure, not a finding.
void MarkChecks(const std::string& label, const std::vector<history::CheckResult>& checks,
                const std::string& promise, ScenarioReport* report);

}  // namespace memstand
