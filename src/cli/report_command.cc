// `memstand report IN... -o FILE`: one self-contained HTML page of run, --runs, sweep and
// scenario results (report/html_report.h; docs/report.md). Reads files, runs nothing.
#include <memory>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/subcommands.h"
#include "report/html_report.h"

namespace memstand::cli {
namespace {

struct ReportFlags {
  std::vector<std::string> inputs;
  std::string out;
};

int ReportBody(const ReportFlags& f) {
  Status s = WriteHtmlReport(f.inputs, f.out, CommandLine());
  if (!s.ok()) {
    fmt::print(stderr, "memstand report: {}\n", s.message());
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
  app->add_option("-o,--output", f->out, "The HTML page to write (whole or not at all)")
      ->required();
  return [f] { return ReportBody(*f); };
}

}  // namespace memstand::cli
