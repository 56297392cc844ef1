// What every scenario does around its procedure: the --runs repetition, and the line of a
// configuration whose server is not installed here.
#pragma once

#include <functional>
#include <string>

#include "scenario/kit/scenario_server.h"
#include "scenario/scenario.h"

namespace memstand {

/// Calls `once(run)` for run = 1 .. ctx.runs in order, stopping before a run when ctx is
/// interrupted; report->runs_made is the last run begun, set when it returns.
void ForEachRun(const ScenarioContext& ctx, ScenarioReport* report, const std::function<void(int run)>& once);

/// "" when the program of `kind` is installed here; else the line of a configuration that
/// could not run: "not run: tarantool is not installed (apt-get install tarantool)".
std::string NotInstalledLine(SystemKind kind);

}  // namespace memstand
