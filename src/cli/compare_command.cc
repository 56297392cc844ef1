// `memstand compare A.json B.json [--json FILE]`: two runs or two series of the same
// workload side by side (report/compare.h, docs/compare.md).
#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/subcommands.h"
#include "report/compare.h"
#include "report/json_document.h"
#include "util/output_file.h"
#include "util/terminal_text.h"

namespace memstand::cli {
namespace {

struct CompareFlags {
  std::vector<std::string> files;
  std::string json;
};

int CompareBody(const CLI::App& app, const CompareFlags& f) {
  if (f.files.size() != 2) {
    return FailWith("compare", fmt::format("takes two files, A and B (got {})", f.files.size()), kExitUsage);
  }
  Status given = RefuseEmptyPaths(app, {{"--json", &f.json}});
  if (!given.ok()) return FailWith("compare", given.message(), kExitUsage);
  Status spared = CheckOutputsSpareInputs({{"--json", f.json}}, f.files);
  if (!spared.ok()) return FailWith("compare", spared.message(), kExitUsage);
  std::vector<CompareSide> sides;
  for (const std::string& file : f.files) {
    auto doc = ReadJsonDocument<nlohmann::json>(file);
    if (!doc.ok()) return FailWith("compare", doc.status().message(), kExitUsage);
    auto side = ReadCompareSide(file, *doc);
    if (!side.ok()) return FailWith("compare", side.status().message(), kExitUsage);
    sides.push_back(std::move(*side));
  }
  std::unique_ptr<OutputFile> out;
  if (!f.json.empty()) {
    auto o = OutputFile::Open("--json", f.json);
    if (!o.ok()) return FailWith("compare", o.status().message(), kExitUsage);
    out = std::move(*o);
  }
  const Comparison c = Compare(std::move(sides[0]), std::move(sides[1]));
  fmt::print("{}", TerminalSafe(CompareText(c)));  // host names, versions, options from the files
  if (out != nullptr) {
    Status s = out->Write(CompareJson(c).dump(2) + "\n");
    if (s.ok()) s = out->Commit();
    if (!s.ok()) return FailWith("compare", s.message(), kExitFailed);
  }
  return kExitOk;
}

}  // namespace

SubcommandBody SetupCompare(CLI::App* app) {
  auto f = std::make_shared<CompareFlags>();
  app->add_option("files", f->files, "A.json B.json: memstand run --json documents (single runs or --runs series)")
      ->required()
      ->expected(2);
  app->add_option("--json", f->json, "Also write the comparison as JSON (schema memstand.compare)");
  return [app, f]() { return CompareBody(*app, *f); };
}

}  // namespace memstand::cli
