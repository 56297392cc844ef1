// `memstand merge A.json B.json ... [-o merged.json] [--hdr-log merged.hlog]`: the
// shards of one fleet made into one exact result (report/merge.h, docs/scale-out.md).
#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/subcommands.h"
#include "report/json_document.h"
#include "report/merge.h"
#include "util/output_file.h"

namespace memstand::cli {
namespace {

struct MergeFlags {
  std::vector<std::string> files;
  std::string json, hdr_log;
};

Status WriteWhole(const char* flag, const std::string& path, const std::string& text) {
  if (path.empty()) return Status::OK();
  auto out = OutputFile::Open(flag, path);
  if (!out.ok()) return out.status();
  Status s = (*out)->Write(text);
  return s.ok() ? (*out)->Commit() : s;
}

int MergeBody(const CLI::App& app, const MergeFlags& f) {
  Status given = RefuseEmptyPaths(app, {{"-o", &f.json}, {"--hdr-log", &f.hdr_log}});
  if (!given.ok()) return FailWith("merge", given.message(), kExitUsage);
  std::vector<MergeInput> inputs;
  for (const std::string& file : f.files) {
    auto doc = ReadJsonDocument<nlohmann::ordered_json>(file);
    if (!doc.ok()) return FailWith("merge", doc.status().message(), kExitUsage);
    inputs.push_back({file, std::move(*doc)});
  }
  auto merged = MergeRuns(inputs);
  if (!merged.ok()) return FailWith("merge", merged.status().message(), kExitUsage);
  PrintMergeReport(stdout, **merged);
  Status s = WriteWhole("-o", f.json, MergedJson(**merged).dump(2) + "\n");
  if (s.ok() && !f.hdr_log.empty()) {
    auto log = MergedHdrLog(**merged);
    s = log.ok() ? WriteWhole("--hdr-log", f.hdr_log, *log) : log.status();
  }
  if (!s.ok()) return FailWith("merge", s.message(), kExitFailed);
  return (*merged)->report.exit_code;
}

}  // namespace

SubcommandBody SetupMerge(CLI::App* app) {
  auto f = std::make_shared<MergeFlags>();
  app->add_option("files", f->files, "The shards' memstand run --json documents")->required();
  app->add_option("-o,--json", f->json, "Write the merged result (schema memstand.run)");
  app->add_option("--hdr-log", f->hdr_log,
                  "Write the merged per-second histograms as an HdrHistogram interval log "
                  "(memstand run --hdr-log's format: an untagged line of all commands and a "
                  "tagged line per command, each wall-clock second)");
  return [app, f]() { return MergeBody(*app, *f); };
}

}  // namespace memstand::cli
