// An input of `memstand report`: a JSON file memstand wrote (run, --runs series, sweep,
// scenario) or a scenario's evidence folder, read and told apart by its own fields
// (docs/report.md). Reads files only; never runs anything.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "util/status.h"

namespace memstand {

enum class ReportInputKind { kRun, kRuns, kSweep, kScenario, kCompare };

/// "run", "runs", "sweep", "scenario", "compare".
const char* ReportInputKindName(ReportInputKind kind);

struct ReportInput {
  std::string path;       // as given (a file or an evidence folder)
  std::string json_path;  // the JSON file read: `path`, or `path`/scenario.json
  ReportInputKind kind = ReportInputKind::kRun;
  nlohmann::json doc;
  /// An evidence folder's CSV files by name without ".csv" (e.g. "samples"); empty
  /// for a JSON file given alone.
  std::map<std::string, std::string> csv;
};

/// Tells the kind from the document's fields: "schema" "memstand.run" (with a "runs"
/// array: a --runs series), "memstand.sweep" or "memstand.compare" at version 1, or "format" 1 with a
/// "scenario" name. InvalidArgument naming what is missing or unknown.
Result<ReportInputKind> DetectKind(const nlohmann::json& doc);

/// `text`, the file `json_path`'s, parsed: InvalidArgument "'<json_path>': not valid JSON:
/// ..." or "... nested deeper than 64 levels (at FIELD)" (json_document.h). Never throws.
Result<nlohmann::json> ParseReportJson(const std::string& json_path, std::string_view text);

/// The types of the fields `report` reads of a run, a series of runs or a sweep (null
/// taken as absent): OK, or InvalidArgument naming the field ("field commands[0].ops: a
/// string, expected a number"). OK for a scenario or a comparison (checked elsewhere).
Status CheckReportFields(const ReportInput& in);

/// A check of an input beyond its kind (the scenarios' field types, handed in by cli/:
/// report/ names no scenario): OK, or InvalidArgument naming the file and the field.
using ReportInputCheck = Status (*)(const ReportInput& in);

/// Reads `path`: a JSON file, or a folder holding scenario.json (and its CSVs).
/// InvalidArgument naming the file when it is missing, unreadable, not JSON or not a
/// document memstand wrote.
Result<ReportInput> LoadReportInput(const std::string& path);

}  // namespace memstand
