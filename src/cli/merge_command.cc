// `memstand merge A.json B.json ... [-o merged.json] [--hdr-log merged.hlog]`: the
// shards of one fleet made into one exact result (report/merge.h, docs/scale-out.md).
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/cli.h"
#include "cli/subcommands.h"
#include "report/json_document.h"
#include "report/merge.h"
#include "util/output_file.h"
#include "util/terminal_text.h"

namespace memstand::cli {
namespace {

// The inputs' total size: a parsed document takes ~4.4 times its size, and merge holds
// every input at once, so the inputs together get the bound one document has (256 MiB,
// ~1.1 GiB of memory), not one per file (was 1 GiB together, ~4.5 GiB).
constexpr uint64_t kMaxMergeBytes = kMaxDocumentBytes;

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

// The outputs apart from each other and from every input (an input overwritten by the
// merge is lost), and the inputs within what memory holds: each is held parsed at once.
Status CheckFiles(const MergeFlags& f) {
  Status s = CheckDistinctOutputs({{"-o", f.json}, {"--hdr-log", f.hdr_log}});
  if (s.ok()) s = CheckOutputsSpareInputs({{"-o", f.json}, {"--hdr-log", f.hdr_log}}, f.files);
  uint64_t total = 0;
  bool one_too_large = false;  // the reader refuses it, naming the file
  for (const std::string& file : f.files) {
    struct stat st {};
    if (s.ok() && stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      total += static_cast<uint64_t>(st.st_size);
      one_too_large = one_too_large || static_cast<uint64_t>(st.st_size) > kMaxDocumentBytes;
    }
  }
  if (s.ok() && !one_too_large && total > kMaxMergeBytes) {
    s = Status::InvalidArgument(fmt::format(
        "the inputs hold {} MiB together, above {} MiB: merge holds every input parsed at once "
        "(~4.4 times its size in memory)",
        total >> 20, kMaxMergeBytes >> 20));
  }
  return s;
}

// The report as text, its input strings (host names, verdicts, labels) made safe to print.
std::string ReportText(const MergedRun& m) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* mem = open_memstream(&buf, &len);
  if (mem == nullptr) return "";
  PrintMergeReport(mem, m);
  std::fclose(mem);
  std::string text(buf, len);
  std::free(buf);
  return TerminalSafe(text);
}

// MergeRuns, whose CheckMergeable checks every field it reads; should one escape it, an
// exception is still an error naming the inputs, never an abort.
Result<std::unique_ptr<MergedRun>> Merge(const std::vector<MergeInput>& inputs) {
  try {
    return MergeRuns(inputs);
  } catch (const nlohmann::json::exception& e) {
    std::vector<std::string> paths;
    for (const MergeInput& in : inputs) paths.push_back(in.path);
    return Status::InvalidArgument(fmt::format("{}: a field of an unexpected type or value: {}",
                                               fmt::join(paths, ", "), e.what()));
  }
}

int MergeBody(const CLI::App& app, const MergeFlags& f) {
  Status given = RefuseEmptyPaths(app, {{"-o", &f.json}, {"--hdr-log", &f.hdr_log}});
  if (!given.ok()) return FailWith("merge", given.message(), kExitUsage);
  Status checked = CheckFiles(f);
  if (!checked.ok()) return FailWith("merge", checked.message(), kExitUsage);
  std::vector<MergeInput> inputs;
  for (const std::string& file : f.files) {
    auto doc = ReadJsonDocument<nlohmann::ordered_json>(file);
    if (!doc.ok()) return FailWith("merge", doc.status().message(), kExitUsage);
    inputs.push_back({file, std::move(*doc)});
  }
  auto merged = Merge(inputs);
  if (!merged.ok()) return FailWith("merge", merged.status().message(), kExitUsage);
  const std::string text = ReportText(**merged);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
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
