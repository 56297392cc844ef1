#include "report/report_input.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "report/json_document.h"
#include "report/scenario_keys.h"

namespace memstand {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The largest input read (a run's JSON with its per-second series is kilobytes; an
// evidence folder's samples.csv of every timed call a few megabytes): json_document.h's
// bound.
constexpr std::uintmax_t kMaxInputBytes = kMaxDocumentBytes;

Result<std::string> ReadWhole(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return Status::InvalidArgument(fmt::format(
        "'{}': {}", path, fs::exists(path, ec) ? "not a regular file" : "no such file or folder"));
  }
  if (fs::file_size(path, ec) > kMaxInputBytes) {
    return Status::InvalidArgument(
        fmt::format("'{}': larger than {} MiB", path, kMaxInputBytes >> 20));
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in) return Status::InvalidArgument(fmt::format("'{}': cannot be read", path));
  return ss.str();
}

bool IsInt(const json& doc, const char* key, int value) {
  return doc.contains(key) && doc[key].is_number_integer() && doc[key].get<int64_t>() == value;
}

}  // namespace

const char* ReportInputKindName(ReportInputKind kind) {
  switch (kind) {
    case ReportInputKind::kRun:
      return "run";
    case ReportInputKind::kRuns:
      return "runs";
    case ReportInputKind::kSweep:
      return "sweep";
    case ReportInputKind::kScenario:
      return "scenario";
    case ReportInputKind::kCompare:
      return "compare";
  }
  return "?";
}

Result<ReportInputKind> DetectKind(const json& doc) {
  if (!doc.is_object()) return Status::InvalidArgument("not a JSON object");
  if (doc.contains("schema")) {
    const json& schema = doc["schema"];
    const std::string name = schema.is_string() ? schema.get<std::string>() : schema.dump();
    if (name != "memstand.run" && name != "memstand.sweep" && name != "memstand.compare") {
      return Status::InvalidArgument(fmt::format(
          "unknown schema {} (known: memstand.run, memstand.sweep, memstand.compare)", schema.dump()));
    }
    if (!IsInt(doc, "version", 1)) {
      return Status::InvalidArgument(fmt::format("{} version {} (this memstand reads version 1)",
                                                 name, doc.value("version", json()).dump()));
    }
    if (name == "memstand.compare") {
      if (!doc.contains("figures") || !doc["figures"].is_array()) {
        return Status::InvalidArgument("memstand.compare without a \"figures\" array");
      }
      return ReportInputKind::kCompare;
    }
    if (name == "memstand.sweep") {
      if (!doc.contains("steps") || !doc["steps"].is_array()) {
        return Status::InvalidArgument("memstand.sweep without a \"steps\" array");
      }
      return ReportInputKind::kSweep;
    }
    if (doc.contains("runs")) {
      if (!doc["runs"].is_array() || !doc.contains("summary") || !doc["summary"].is_object()) {
        return Status::InvalidArgument("memstand.run with \"runs\" but no runs array and summary");
      }
      return ReportInputKind::kRuns;
    }
    if (!doc.contains("totals") || !doc["totals"].is_object()) {
      return Status::InvalidArgument("memstand.run without a \"totals\" object");
    }
    return ReportInputKind::kRun;
  }
  namespace key = scenario_json;
  if (doc.contains(key::kScenario)) {
    if (!doc[key::kScenario].is_string())
      return Status::InvalidArgument(fmt::format("\"{}\" is not a string", key::kScenario));
    if (!IsInt(doc, key::kFormat, key::kFormatVersion)) {
      return Status::InvalidArgument(fmt::format("scenario format {} (this memstand reads format {})",
                                                 doc.value(key::kFormat, json()).dump(), key::kFormatVersion));
    }
    return ReportInputKind::kScenario;
  }
  return Status::InvalidArgument(
      "not a document memstand wrote: no \"schema\" (run, sweep) or \"scenario\" field");
}

Result<json> ParseReportJson(const std::string& json_path, std::string_view text) {
  Status depth = CheckJsonDepth(text);
  if (!depth.ok()) return depth.WithContext("'" + json_path + "'");
  try {
    return json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for 1e400
    return Status::InvalidArgument(fmt::format("'{}': not valid JSON: {}", json_path, e.what()));
  }
}

Result<ReportInput> LoadReportInput(const std::string& path) {
  ReportInput in;
  in.path = path;
  in.json_path = path;
  std::error_code ec;
  const bool folder = fs::is_directory(path, ec);
  if (folder) in.json_path = (fs::path(path) / "scenario.json").string();
  Result<std::string> text = ReadWhole(in.json_path);
  if (!text.ok()) {
    return folder ? Status::InvalidArgument(fmt::format(
                        "'{}': a folder without scenario.json (not a scenario's evidence folder)",
                        path))
                  : text.status();
  }
  Result<json> doc = ParseReportJson(in.json_path, *text);
  if (!doc.ok()) return doc.status();
  in.doc = std::move(*doc);
  Result<ReportInputKind> kind = DetectKind(in.doc);
  if (!kind.ok()) return kind.status().WithContext("'" + in.json_path + "'");
  in.kind = *kind;
  if (folder && in.kind != ReportInputKind::kScenario) {
    return Status::InvalidArgument(
        fmt::format("'{}': scenario.json is a {} document, not a scenario's", in.json_path,
                    ReportInputKindName(in.kind)));
  }
  if (!folder) return in;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.path().extension() != ".csv" || !entry.is_regular_file(ec)) continue;
    Result<std::string> csv = ReadWhole(entry.path().string());
    if (!csv.ok()) return csv.status();
    in.csv[entry.path().stem().string()] = std::move(*csv);
  }
  return in;
}

}  // namespace memstand
