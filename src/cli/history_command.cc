// `memstand history export FILE [--format jepsen|jepsen-json] [--model cas-register|
// rw-register] [--out F]`: a history as Jepsen's operations, for Knossos or Elle
// (history/jepsen_export.h, docs/history.md).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/subcommands.h"
#include "history/history_reader.h"
#include "history/jepsen_export.h"
#include "util/output_file.h"

namespace memstand::cli {
namespace {

struct HistoryFlags {
  std::string file;
  std::string format = "jepsen";
  std::string model = "cas-register";
  std::string out;    // empty: stdout
  std::string other;  // a word that names no subcommand
};

int ExportBody(const CLI::App& exp, const HistoryFlags& f) {
  Status s = RefuseEmptyPaths(exp, {{"--out", &f.out}});
  if (s.ok()) s = CheckOutputsSpareInputs({{"--out", f.out}}, {f.file});
  if (!s.ok()) return FailWith("history export", s.message(), kExitUsage);
  auto h = history::ReadHistoryFile(f.file);
  if (!h.ok()) return FailWith("history export", h.status().message(), kExitUsage);
  std::unique_ptr<OutputFile> file;
  if (!f.out.empty()) {
    auto opened = OutputFile::Open("--out", f.out);
    if (!opened.ok()) return FailWith("history export", opened.status().message(), kExitUsage);
    file = std::move(*opened);
  }
  const auto syntax = f.format == "jepsen-json" ? history::JepsenSyntax::kJson : history::JepsenSyntax::kEdn;
  const auto model = f.model == "rw-register" ? history::JepsenModel::kRwRegister : history::JepsenModel::kCasRegister;
  bool wrote_any = false;
  s = history::ExportJepsen(*h, syntax, model, [&](std::string_view piece) {
    wrote_any = true;
    if (file != nullptr) return file->Write(piece);
    if (std::fwrite(piece.data(), 1, piece.size(), stdout) != piece.size()) {
      return Status::IoError(std::string("writing stdout failed: ") + std::strerror(errno));
    }
    return Status::OK();
  });
  if (!s.ok()) return FailWith("history export", s.message(), wrote_any ? kExitFailed : kExitUsage);
  if (file != nullptr) {
    s = file->Commit();
    if (!s.ok()) return FailWith("history export", s.message(), kExitFailed);
  }
  return kExitOk;
}

}  // namespace

SubcommandBody SetupHistory(CLI::App* app) {
  auto f = std::make_shared<HistoryFlags>();
  // Not require_subcommand: its error would not name the word it did not know.
  app->add_option("subcommand", f->other, "export");
  CLI::App* exp = app->add_subcommand(
      "export", "Write the history as Jepsen's operations (an invoke and a completion each), for Knossos or Elle");
  exp->add_option("file", f->file, "The history (docs/history.md)")->required();
  exp->add_option("--format", f->format, "jepsen (EDN, a map a line) or jepsen-json (JSON, an object a line)")
      ->default_val("jepsen")
      ->check(CLI::IsMember({"jepsen", "jepsen-json"}));
  exp->add_option("--model", f->model,
                  "cas-register (Knossos: :read/:write/:cas, :value [key v]) or rw-register (Elle: :txn "
                  "[[:r key v]] / [[:w key v]]; no cas)")
      ->default_val("cas-register")
      ->check(CLI::IsMember({"cas-register", "rw-register"}));
  exp->add_option("--out", f->out, "The file to write, whole or not at all (default: stdout)");
  return [f, exp] {
    if (exp->parsed()) return ExportBody(*exp, *f);
    const std::string got = f->other.empty() ? "none given" : "unknown '" + f->other + "'";
    fmt::print(stderr, "memstand history: name a subcommand, export ({})\n", got);
    return kExitUsage;
  };
}

}  // namespace memstand::cli
