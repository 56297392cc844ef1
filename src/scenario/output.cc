#include "scenario/output.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "util/csv.h"
#include "util/output_file.h"
#include "util/redact.h"

namespace memstand {
namespace {

namespace fs = std::filesystem;

void Block(std::back_insert_iterator<std::string> out, int n, const std::string& title, const std::string& body) {
  fmt::format_to(out, "\n[{}] {}\n{}", n, title, body);
}

std::string Lines(const std::vector<std::string>& lines, const char* bullet = "    ") {
  std::string out;
  for (const std::string& l : lines) out += bullet + l + "\n";
  return out;
}

std::string TableCsv(const Table& t) {
  std::string out;
  AppendCsvRow(t.columns, &out);
  for (const auto& r : t.rows) AppendCsvRow(r, &out);
  return out;
}

// Every string of `j` (keys too) as RedactSecrets shows it: a password given in --config
// ("redis requirepass=...") never reaches a report, whichever scenario field holds it.
nlohmann::json RedactJsonStrings(const nlohmann::json& j) {
  if (j.is_string()) return RedactSecrets(j.get<std::string>());
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : j) out.push_back(RedactJsonStrings(v));
    return out;
  }
  if (!j.is_object()) return j;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : j.items()) out[RedactSecrets(key)] = RedactJsonStrings(value);
  return out;
}

// The interval of a run's Total p99 (the largest percentile at or under 99 when p99 was
// not asked for), "p99 0.996 ms [0.951 .. 1.04]"; "" without samples.
std::string TotalInterval(const Validity& v) {
  if (v.intervals.empty() || v.intervals.back().n == 0) return "";
  const PercentileCi* pick = nullptr;
  for (const PercentileCi& p : v.intervals.back().percentiles) {
    if (p.percentile <= 99.0 && (pick == nullptr || p.percentile > pick->percentile)) pick = &p;
  }
  if (pick == nullptr) return "";
  return fmt::format("p{:g} {:.3f} ms [{:.3f} .. {:.3f}{}]", pick->percentile, pick->value_ns / 1e6, pick->low_ns / 1e6,
                     pick->high_ns / 1e6, pick->clamped ? "*" : "");
}

std::string JudgedBlock(const std::vector<JudgedRun>& judged) {
  size_t suspect = 0, width = 0;
  for (const JudgedRun& j : judged) {
    suspect += j.validity.suspect() ? 1 : 0;
    width = std::max(width, j.label.size());
  }
  std::string body = fmt::format("    {} of {} load runs valid, {} suspect{}\n", judged.size() - suspect, judged.size(),
                                 suspect, suspect > 0 ? " (their figures above stand beside these reasons)" : "");
  for (const JudgedRun& j : judged) {
    const std::string interval = TotalInterval(j.validity);
    body += fmt::format("    {:<{}}  {:<7}  {}\n", j.label, width, j.validity.suspect() ? "suspect" : "valid",
                        interval.empty() ? "no samples" : interval);
    for (const ValidityCheck& c : j.validity.checks) {
      if (c.status != CheckStatus::kSuspect) continue;
      body += fmt::format("      - {}: {} (passes: {}): {}\n", c.name, c.figure, c.threshold, c.reason);
    }
  }
  body += fmt::format(
      "    (each run's checks: the rate held, the send lag against the p50, the sent gaps against the arrival model, a "
      "steady state, the samples' independence, Little's law, the mean within the percentiles, client saturation, "
      "the clock, the cross-check, unanswered requests; docs/method.md, \"Validity: the checks behind rule 21\". The interval: {:g}% from the "
      "order statistics of the effective samples; * an end at the recorded extreme. Every check with its figure "
      "and threshold is in the JSON's validity)\n",
      judged.front().validity.confidence * 100);
  return body;
}

nlohmann::json JudgedJson(const std::vector<JudgedRun>& judged) {
  size_t suspect = 0;
  nlohmann::json runs = nlohmann::json::array();
  for (const JudgedRun& j : judged) {
    suspect += j.validity.suspect() ? 1 : 0;
    nlohmann::json run = {{"label", j.label}};
    const nlohmann::ordered_json validity = ValidityJson(j.validity);  // items() does not keep a temporary alive
    for (const auto& [k, v] : validity.items()) run[k] = v;
    runs.push_back(std::move(run));
  }
  return {{"verdict", judged.empty() ? nlohmann::json(nullptr) : nlohmann::json(suspect > 0 ? "suspect" : "valid")},
          {"valid", judged.size() - suspect},
          {"suspect", suspect},
          {"runs", std::move(runs)}};
}

}  // namespace

void PrintScenarioReport(std::FILE* file, const ScenarioReport& r, const ScenarioRunInfo& info) {
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "memstand scenario {} — {}\n", r.scenario, r.question);
  int n = 0;
  Block(out, ++n, "What ran and how",
        fmt::format("    command: {}\n    started {}, memstand {}, runs made {} of {}\n{}    {}\n",
                    info.command_line, info.started_at, MEMSTAND_VERSION, r.runs_made, r.runs_requested,
                    Lines(r.configuration_lines), info.cpus.Describe()));
  Block(out, ++n, "Platform (absolute times describe it; counts and outcomes survive it)",
        "    " + info.platform.Describe() + "\n");
  Block(out, ++n, "Procedure", Lines(r.procedure, "    - "));
  for (const auto& [title, body] : r.blocks) Block(out, ++n, title, body);
  if (!r.judged.empty()) Block(out, ++n, "Validity of the load runs' statistics", JudgedBlock(r.judged));
  Block(out, ++n, "What this result does not show", Lines(r.limits, "    - "));
  if (!r.anomalies.empty()) {
    std::string findings;
    for (const Anomaly& a : r.anomalies) {
      findings += fmt::format("    {}: {} ({})\n", a.configuration, a.kind, a.count);
      findings += Lines(a.examples, "      - ");
    }
    Block(out, ++n, "Findings: the system broke its own contract (the figures stand)", findings);
  }
  std::string verdict = fmt::format("    {} (exit code {})\n", VerdictName(r.verdict), r.ExitCode());
  verdict += Lines(r.verdict_lines, "    - ");
  Block(out, ++n, "Verdict", verdict);
  fmt::print(file, "{}", RedactSecrets(text));
}

nlohmann::json ScenarioJson(const ScenarioReport& r, const ScenarioRunInfo& info) {
  namespace key = scenario_json;
  nlohmann::json j{{key::kFormat, kScenarioJsonVersion},
                   {key::kScenario, r.scenario},
                   {key::kMemstandVersion, MEMSTAND_VERSION},
                   {key::kQuestion, r.question},
                   {key::kCommandLine, info.command_line},
                   {key::kStartedAt, info.started_at},
                   {key::kPlatform, info.platform.Describe()},
                   {key::kCpus, info.cpus.ToJson()},
                   {key::kRunsMade, r.runs_made},
                   {key::kRunsRequested, r.runs_requested},
                   {key::kVerdict, VerdictName(r.verdict)},
                   {key::kVerdictReasons, r.verdict_lines},
                   {key::kPartial, r.verdict != ScenarioVerdict::kOk && r.verdict != ScenarioVerdict::kFinding},
                   {key::kProcedure, r.procedure},
                   {key::kLimits, r.limits}};
  nlohmann::json anomalies = nlohmann::json::array();
  for (const Anomaly& a : r.anomalies) anomalies.push_back(a.ToJson());
  j[key::kAnomalies] = std::move(anomalies);
  j[key::kValidity] = JudgedJson(r.judged);
  for (const auto& [key, value] : r.json.items()) j[key] = value;
  return RedactJsonStrings(j);
}

Status WriteFileWhole(const std::string& flag, const std::string& path, const std::string& text) {
  auto file = OutputFile::Open(flag, path);
  if (!file.ok()) return file.status();
  Status s = (*file)->Write(text);
  return s.ok() ? (*file)->Commit() : s;
}

namespace {

// Creates dir and its missing parents. The topmost folder it made ("" if dir was
// there), so a failure can remove exactly what was made.
Result<std::string> MakeEvidenceFolders(const std::string& dir) {
  std::error_code ec;
  fs::path top;
  for (fs::path p = fs::absolute(dir, ec); !p.empty() && !fs::exists(fs::symlink_status(p, ec));
       p = p.parent_path()) {
    top = p;
    if (p == p.root_path()) break;
  }
  fs::create_directories(dir, ec);
  if (ec) {
    Status error = Status::InvalidArgument(fmt::format("--evidence {}: {}", dir, ec.message()));
    if (!top.empty()) fs::remove_all(top, ec);
    return error;
  }
  return top.string();
}

}  // namespace

Status CheckEvidenceDir(const std::string& dir) {
  if (dir.empty()) return Status::InvalidArgument("--evidence: an empty path");
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(dir, ec))) {
    // Made and removed at once: a folder that cannot be made (read-only, no such
    // parent, /proc) is bad input before the scenario runs, and nothing is left.
    auto top = MakeEvidenceFolders(dir);
    if (!top.ok()) return top.status();
    fs::remove_all(*top, ec);
    return Status::OK();
  }
  if (!fs::is_directory(fs::symlink_status(dir, ec))) {
    return Status::InvalidArgument("--evidence " + dir + ": exists and is not a folder");
  }
  if (!fs::is_empty(dir, ec)) {
    return Status::InvalidArgument("--evidence " + dir + ": the folder is not empty (memstand writes "
                                   "only into a new or empty folder)");
  }
  return Status::OK();
}

namespace {

// Writes the evidence files into dir (which exists), stopping at the first error.
Status WriteEvidenceFiles(const std::string& dir, const ScenarioReport& r, const ScenarioRunInfo& info) {
  std::error_code ec;
  Status s = WriteFileWhole("--evidence", dir + "/scenario.json", ScenarioJson(r, info).dump(2) + "\n");
  // The text files as RedactSecrets shows them (scenario.json's strings are already).
  for (const Table& t : r.tables) {
    if (s.ok()) s = WriteFileWhole("--evidence", dir + "/" + t.name + ".csv", RedactSecrets(TableCsv(t)));
  }
  for (const auto& [name, content] : r.files) {
    if (!s.ok()) break;
    fs::create_directories(fs::path(dir + "/" + name).parent_path(), ec);
    // A history (*.hist) is binary and holds no secret (its target is written without a
    // password, docs/history.md): byte for byte, or its checksums would not hold.
    const bool binary = name.ends_with(".hist");
    s = WriteFileWhole("--evidence", dir + "/" + name, binary ? content : RedactSecrets(content));
  }
  std::string readme = fmt::format(
      "memstand scenario evidence: {}\n\nProduced by memstand {} on {}.\nCommand line: {}\n"
      "Platform: {}\nVerdict: {}\n\nscenario.json  the whole result (docs/scenarios.md)\n",
      r.scenario, MEMSTAND_VERSION, info.started_at, info.command_line, info.platform.Describe(),
      VerdictName(r.verdict));
  for (const Table& t : r.tables) {
    std::string columns;
    for (const std::string& c : t.columns) columns += (columns.empty() ? "" : ", ") + c;
    readme += fmt::format("{}.csv  {} rows; columns: {}\n", t.name, t.rows.size(), columns);
  }
  readme += "servers/       each server's exact configuration (command line, init files)\n"
            "logs/          the last lines of each server's log, per run\n";
  if (s.ok()) s = WriteFileWhole("--evidence", dir + "/README.txt", RedactSecrets(readme));
  return s;
}

}  // namespace

Status WriteEvidence(const std::string& dir, const ScenarioReport& r, const ScenarioRunInfo& info) {
  auto top = MakeEvidenceFolders(dir);
  if (!top.ok()) return Status::IoError(top.status().message());
  std::error_code ec;
  std::vector<fs::path> before;  // an empty folder given: nothing, or what someone added since
  for (const auto& e : fs::directory_iterator(dir, ec)) before.push_back(e.path());
  Status s = WriteEvidenceFiles(dir, r, info);
  if (s.ok()) return s;
  // Nothing left behind: the folders made, or what was written into the folder given.
  if (!top->empty()) {
    fs::remove_all(*top, ec);
    return s;
  }
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (std::find(before.begin(), before.end(), e.path()) == before.end()) fs::remove_all(e.path(), ec);
  }
  return s;
}

}  // namespace memstand
