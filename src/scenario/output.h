// Writers of a scenario's report: the numbered text blocks, the JSON document
// (docs/scenarios.md, versioned) and the evidence folder (scenario.json, one CSV per
// table, server configurations, log tails, README.txt saying how it was produced).
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "report/platform.h"
#include "scenario/kit/cpu_placement.h"
#include "scenario/scenario.h"
#include "util/status.h"

namespace memstand {

inline constexpr int kScenarioJsonVersion = scenario_json::kFormatVersion;

/// How the report was produced, for block [1], the JSON and README.txt.
struct ScenarioRunInfo {
  std::string command_line;  // as typed (secrets redacted by the caller)
  std::string started_at;    // ISO 8601 UTC
  Platform platform;
  /// Where the client and each server ran (block [1], the JSON's `cpus`).
  CpuReport cpus;
};

/// Blocks [1] what ran and how, [2] platform, [3] procedure, then the scenario's own
/// blocks, then what this result does not show, and the verdict last.
void PrintScenarioReport(std::FILE* out, const ScenarioReport& report, const ScenarioRunInfo& info);

/// The whole JSON document: scenario, memstand_version, format, runs, verdict, ... and
/// the scenario's own fields.
nlohmann::json ScenarioJson(const ScenarioReport& report, const ScenarioRunInfo& info);

/// Writes `text` to `path` whole or not at all (util/output_file.h); errors name `flag`,
/// the path and the errno text.
Status WriteFileWhole(const std::string& flag, const std::string& path, const std::string& text);

/// Checks an --evidence folder before the run: absent (created later) or an empty
/// folder. InvalidArgument otherwise (memstand never writes into a folder it did not
/// make or that holds other files).
Status CheckEvidenceDir(const std::string& dir);

/// Writes the evidence folder (created if absent).
Status WriteEvidence(const std::string& dir, const ScenarioReport& report, const ScenarioRunInfo& info);

}  // namespace memstand
