#include "report/scenario_sections.h"

#include <fmt/format.h>

#include "report/json_fields.h"
#include "report/scenario_keys.h"
#include "util/csv.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = scenario_json;

std::vector<std::string> Lines(const json& doc, const char* field) {
  std::vector<std::string> lines;
  for (const json& l : Array(doc, field))
    lines.push_back(l.is_string() ? l.get<std::string>() : l.dump());
  return lines;
}

void CsvTables(const ReportInput& in, ReportSection* s) {
  for (const auto& [name, text] : in.csv) {
    auto records = ParseCsv(text);
    if (records.empty()) continue;
    ReportTable t{name + ".csv (evidence folder)", name, std::move(records.front()), {}};
    records.erase(records.begin());
    t.rows = std::move(records);
    s->tables.push_back(std::move(t));
  }
}

// The JSON's `validity` (scenario/output.cc): one row per judged load run, its verdict and
// each suspect check's name, figure and reason.
void ValidityTable(const json& doc, ReportSection* s) {
  const json& v = Field(doc, key::kValidity);
  const json& runs = Array(v, "runs");
  if (runs.empty()) return;
  ReportTable t{fmt::format("Validity of the load runs' statistics: {} valid, {} suspect", Text(v, "valid"),
                            Text(v, "suspect")),
                "validity", {"load run", "verdict", "suspect checks (figure: reason)", "p99 interval µs"}, {}};
  for (const json& run : runs) {
    std::string reasons;
    for (const json& c : Array(run, "checks")) {
      if (Text(c, "status") != "suspect") continue;
      if (!reasons.empty()) reasons += "; ";
      reasons += fmt::format("{}: {}: {}", Text(c, "name"), Text(c, "figure"), Text(c, "reason"));
    }
    std::string p99;
    const json& intervals = Array(run, "intervals");
    if (!intervals.empty()) {
      for (const json& p : Array(intervals.back(), "percentiles")) {
        if (Number(p, "percentile") == 99.0) {
          p99 = fmt::format("{} [{} .. {}]", Cell(Number(p, "value_us")), Cell(Number(p, "low_us")),
                            Cell(Number(p, "high_us")));
        }
      }
    }
    t.rows.push_back({Text(run, "label"), Text(run, "verdict"), reasons, p99});
  }
  s->tables.push_back(std::move(t));
}

}  // namespace

ReportSection ScenarioSection(const ReportInput& in, ScenarioChartsFn charts) {
  const json& doc = in.doc;
  const std::string name = Text(doc, key::kScenario);
  ReportSection s{
      "scenario " + name + ": " + in.path, in.json_path, Text(doc, key::kPlatform), {}, {}, {}};
  if (s.platform.empty()) s.platform = "unknown platform (the file has no platform block)";
  TextBlock what{"What ran and how", {}};
  what.lines.push_back("question: " + Text(doc, key::kQuestion));
  what.lines.push_back("command: " + Text(doc, key::kCommandLine));
  what.lines.push_back(fmt::format("started {}, memstand {}, runs made {} of {}",
                                   Text(doc, key::kStartedAt), Text(doc, key::kMemstandVersion),
                                   Text(doc, key::kRunsMade), Text(doc, key::kRunsRequested)));
  s.blocks.push_back(std::move(what));
  s.blocks.push_back({"Procedure", Lines(doc, key::kProcedure)});
  s.blocks.push_back({"What this result does not show", Lines(doc, key::kLimits)});
  TextBlock verdict{"Verdict", {Text(doc, key::kVerdict)}};
  for (const std::string& l : Lines(doc, key::kVerdictReasons)) verdict.lines.push_back(l);
  s.blocks.push_back(std::move(verdict));
  ValidityTable(doc, &s);
  CsvTables(in, &s);
  if (charts != nullptr) {
    charts(in, &s);
  } else {
    s.blocks.push_back({"Charts",
                        {"this memstand's report has no charts for scenario '" + name +
                         "': its blocks and tables are shown"}});
  }
  return s;
}

}  // namespace memstand
