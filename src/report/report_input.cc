#include "report/report_input.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "report/json_check.h"
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

namespace {

// The fields `report` reads of a run (also each run of a series) and of a sweep
// (run_sections.cc), with their types: where present, a field of another type is an error
// naming it (exit 2), not a chart quietly left empty. Absent fields are allowed: the page
// says the file holds no value for them. Text printed as it is (verdict, options, server,
// platform's names) takes any type.
const JsonRule kRunFields[] = {
    {"commands", JsonType::kArray},
    {"commands[]", JsonType::kObject},
    {"commands[].command", JsonType::kString},
    {"commands[].ops", JsonType::kNumber},
    {"commands[].ops_per_sec", JsonType::kNumber},
    {"commands[].errors", JsonType::kNumber},
    {"commands[].latency", JsonType::kObject},
    {"commands[].latency.min_us", JsonType::kNumber},
    {"commands[].latency.mean_us", JsonType::kNumber},
    {"commands[].latency.max_us", JsonType::kNumber},
    {"commands[].latency.percentiles_us", JsonType::kNumeric},
    {"totals", JsonType::kObject},
    {"totals.ops", JsonType::kNumber},
    {"totals.ops_per_sec", JsonType::kNumber},
    {"totals.errors", JsonType::kNumber},
    {"totals.latency", JsonType::kObject},
    {"totals.latency.min_us", JsonType::kNumber},
    {"totals.latency.mean_us", JsonType::kNumber},
    {"totals.latency.max_us", JsonType::kNumber},
    {"totals.latency.percentiles_us", JsonType::kNumeric},
    {"totals.service_time", JsonType::kObject},
    {"totals.service_time.percentiles_us", JsonType::kNumeric},
    {"totals.send_lag", JsonType::kObject},
    {"totals.send_lag.percentiles_us", JsonType::kNumeric},
    {"series", JsonType::kObject},
    {"series{}", JsonType::kArray},
    {"series{}[]", JsonType::kObject},
    {"series{}[].second", JsonType::kNumber},
    {"series{}[].ops", JsonType::kNumber},
    {"series{}[].p50_us", JsonType::kNumber},
    {"series{}[].p99_us", JsonType::kNumber},
    {"series{}[].max_us", JsonType::kNumber},
    {"resources", JsonType::kArray},
    {"resources[]", JsonType::kObject},
    {"resources[].points", JsonType::kArray},
    {"resources[].points[]", JsonType::kObject},
    {"resources[].points[].t_s", JsonType::kNumber},
    {"resources[].points[].cpu_user_s", JsonType::kNumber},
    {"resources[].points[].cpu_sys_s", JsonType::kNumber},
    {"resources[].points[].rss_bytes", JsonType::kNumber},
    {"measured_s", JsonType::kNumber},
    {"options", JsonType::kObject},
    {"server", JsonType::kObject},
    {"platform", JsonType::kObject},
    {"platform.cpus", JsonType::kNumber},
    {"platform.memory_bytes", JsonType::kNumber},
    {"warnings", JsonType::kArray},
};
// A series of runs (--runs): each of "runs" is checked as a run, then these.
const JsonRule kRunsFields[] = {
    {"runs", JsonType::kArray},
    {"runs[]", JsonType::kObject},
    {"runs[].run", JsonType::kNumber},
    {"runs[].exit_code", JsonType::kNumber},
    {"summary", JsonType::kObject},
    {"summary.failures", JsonType::kArray},
    {"summary.figures", JsonType::kObject},
    {"summary.figures{}", JsonType::kObject},
    {"summary.figures{}{}", JsonType::kObject},
    {"summary.figures{}{}.min", JsonType::kNumber},
    {"summary.figures{}{}.median", JsonType::kNumber},
    {"summary.figures{}{}.max", JsonType::kNumber},
    {"summary.figures{}{}.n", JsonType::kNumber},
};
const JsonRule kSweepFields[] = {
    {"steps", JsonType::kArray},
    {"steps[]", JsonType::kObject},
    {"steps[].x", JsonType::kNumber},
    {"steps[].exit_code", JsonType::kNumber},
    {"steps[].ops_per_sec", JsonType::kNumber},
    {"steps[].p50_us", JsonType::kNumber},
    {"steps[].p99_us", JsonType::kNumber},
    {"steps[].client_cpu_us_per_request", JsonType::kNumber},
    {"steps[].client_core_share", JsonType::kNumber},
    {"steps[].run", JsonType::kObject},
    {"steps[].run.platform", JsonType::kObject},
    {"knee", JsonType::kObject},
    {"knee.found", JsonType::kBool},
    {"knee.x", JsonType::kNumber},
};

// memstand writes null for a figure it has not got (a sweep without a knee: knee.x).
constexpr bool kNullIsAbsent = true;

}  // namespace

Status CheckReportFields(const ReportInput& in) {
  switch (in.kind) {
    case ReportInputKind::kRun: return CheckJsonFields(in.doc, kRunFields, std::size(kRunFields), kNullIsAbsent);
    case ReportInputKind::kRuns: {
      Status s = CheckJsonFields(in.doc, kRunsFields, std::size(kRunsFields), kNullIsAbsent);
      const json& runs = in.doc.contains("runs") ? in.doc["runs"] : json::array();
      for (size_t i = 0; s.ok() && i < runs.size(); ++i) {
        s = CheckJsonFields(runs[i], kRunFields, std::size(kRunFields), kNullIsAbsent);
        if (!s.ok()) s = s.WithContext("runs[" + std::to_string(i) + "]");
      }
      return s;
    }
    case ReportInputKind::kSweep: return CheckJsonFields(in.doc, kSweepFields, std::size(kSweepFields), kNullIsAbsent);
    case ReportInputKind::kScenario:  // the scenario's own rules check it (ReportInputCheck)
    case ReportInputKind::kCompare:   // compare's reader checks its document
      return Status::OK();
  }
  return Status::OK();
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
  if (Status fields = CheckReportFields(in); !fields.ok()) return fields.WithContext("'" + in.json_path + "'");
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
