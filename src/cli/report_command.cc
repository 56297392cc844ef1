// `memstand report IN... -o FILE`: one self-contained HTML page of run, --runs, sweep and
// scenario results (report/html_report.h; docs/report.md). Reads files, runs nothing.
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/subcommands.h"
#include "report/choice_map.h"
#include "report/html_report.h"
#include "scenario/registry.h"
#include "util/output_file.h"
#include "util/terminal_text.h"

namespace memstand::cli {
namespace {

struct ReportFlags {
  std::vector<std::string> inputs;
  std::string out;
  bool choice_map = false;
};

// Every file the page is made from: the inputs, and an evidence folder's JSON and CSVs.
std::vector<std::string> InputFiles(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    for (const auto& entry : std::filesystem::directory_iterator(in, ec)) files.push_back(entry.path().string());
  }
  return files;
}

// --choice-map: the map of the scenario results among `inputs` and its decision tree,
// printed, and their section for the page. A bad input (unreadable, or a field of another type than its scenario's
// readers take) is InvalidArgument naming it, and nothing is printed.
Result<ReportSection> ChoiceMapOf(const std::vector<std::string>& inputs) {
  std::vector<ScenarioResult> results;
  for (const std::string& path : inputs) {
    Result<ReportInput> in = LoadReportInput(path);
    if (!in.ok()) return in.status();
    if (Status s = CheckScenarioResult(*in); !s.ok()) return s;
    if (in->kind == ReportInputKind::kScenario) results.push_back({in->json_path, std::move(in->doc)});
  }
  std::vector<ChoiceRow> rows;
  try {
    rows = ChoiceMap(results, ScenarioChoiceRows(), FixedChoiceRows());
  } catch (const nlohmann::json::exception& e) {  // a field the read rules miss: bad input all the same
    return Status::InvalidArgument(fmt::format("a scenario result has a field of an unexpected type: {}", e.what()));
  }
  fmt::print("{}", TerminalSafe(ChoiceMapText(rows, ChoiceTree())));  // the scenarios' strings
  return ChoiceMapSection(rows, ChoiceTree());
}

int ReportBody(const ReportFlags& f) {
  if (f.out.empty() && !f.choice_map) {
    fmt::print(stderr, "memstand report: -o FILE is required (the page to write), unless --choice-map prints the map\n");
    return kExitUsage;
  }
  Status spared = CheckOutputsSpareInputs({{"-o", f.out}}, InputFiles(f.inputs));
  if (!spared.ok()) {
    fmt::print(stderr, "memstand report: {}\n", TerminalSafe(spared.message()));
    return kExitUsage;
  }
  std::vector<ReportSection> extra;
  if (f.choice_map) {
    Result<ReportSection> map = ChoiceMapOf(f.inputs);
    if (!map.ok()) {
      fmt::print(stderr, "memstand report: {}\n", TerminalSafe(map.status().message()));
      return kExitUsage;
    }
    if (f.out.empty()) return kExitOk;
    extra.push_back(std::move(*map));
  }
  Status s = WriteHtmlReport(f.inputs, f.out, CommandLine(), ScenarioChartsByName, extra, CheckScenarioResult);
  if (!s.ok()) {
    fmt::print(stderr, "memstand report: {}\n", TerminalSafe(s.message()));
    return s.code() == Status::Code::kInvalidArgument ? kExitUsage : kExitFailed;
  }
  fmt::print("memstand report: wrote {} ({} input{})\n", f.out, f.inputs.size(),
             f.inputs.size() == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace

SubcommandBody SetupReport(CLI::App* app) {
  auto f = std::make_shared<ReportFlags>();
  app->add_option(
         "inputs", f->inputs,
         "run / --runs / sweep JSON files (--json), scenario JSON files or evidence folders")
      ->required();
  app->add_option("-o,--output", f->out, "The HTML page to write (whole or not at all)");
  app->add_flag("--choice-map", f->choice_map,
                "Also the choice map: task -> system -> how it goes faster -> what you pay, each row's support "
                "from the scenario inputs (figures as ranges over their runs, with N), then the decision tree "
                "(printed; a page section with -o)");
  return [f] { return ReportBody(*f); };
}

}  // namespace memstand::cli
