// `memstand dataset stats|export`: the scenarios' `products` dataset, its figures and
// its bytes (docs/scenarios.md, "Dataset: products").
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "cli/cli.h"
#include "cli/subcommands.h"
#include "util/output_file.h"
#include "workload/product_export.h"

namespace memstand::cli {
namespace {

struct DatasetFlags {
  uint64_t seed = kProductDefaultSeed;
  uint32_t count = kProductCount;
  std::string format = "jsonl";
  std::string out;    // empty: stdout
  std::string other;  // a word that names neither subcommand
};

void AddDatasetFlags(CLI::App* app, DatasetFlags* f) {
  app->add_option("--seed", f->seed, "The dataset's seed (any 64-bit number)")
      ->default_val(kProductDefaultSeed)
      ->check(WholeNumberU64());
  app->add_option("--count", f->count,
                  "Only the first N ids of the same dataset (for tests and scaling; category "
                  "counts are then not the full dataset's)")
      ->default_val(kProductCount)
      ->check(CLI::Range(uint32_t{1}, kProductCount));
}

void PrintStats(const ProductStats& s) {
  fmt::print("products dataset: seed {}, ids 1..{} ({} records)\n", s.seed, s.count, s.count);
  if (s.count < kProductCount) {
    fmt::print(
        "  the first {} of {} ids: category counts are this prefix's, not the full "
        "dataset's (tools holds exactly {} of {})\n",
        s.count, kProductCount, ProductCategoryCount("tools"), kProductCount);
  }
  fmt::print("  {:<12} {:>7}\n", "CATEGORY", "RECORDS");
  const std::vector<std::string>& names = ProductCategories();
  for (size_t i = 0; i < names.size(); ++i) {
    fmt::print("  {:<12} {:>7}\n", names[i], s.per_category[i]);
  }
  fmt::print("  {:<12} {:>7}\n", "total", s.count);
  fmt::print("JSON value size (the stored value): min {} B, mean {:.1f} B, max {} B, total {} B\n",
             s.min_json_bytes, s.mean_json_bytes(), s.max_json_bytes, s.total_json_bytes);
  fmt::print("JSONL export: {} B, sha256 {}\n", s.jsonl_bytes, s.jsonl_sha256);
}

// --out is written whole or not at all (util/output_file.h): a killed export or a full
// disk leaves the previous file as it was. Without --out, stdout (checked by cli::Main).
int ExportBody(const CLI::App& exp, const DatasetFlags& f) {
  Status s = RefuseEmptyPaths(exp, {{"--out", &f.out}});
  if (!s.ok()) return FailWith("dataset export", s.message(), kExitUsage);
  std::unique_ptr<OutputFile> file;
  if (!f.out.empty()) {
    auto opened = OutputFile::Open("--out", f.out);
    if (!opened.ok()) return FailWith("dataset export", opened.status().message(), kExitUsage);
    file = std::move(*opened);
  }
  const ProductFormat format = f.format == "csv" ? ProductFormat::kCsv : ProductFormat::kJsonl;
  bool written = ExportProducts(f.seed, f.count, format, [&file](std::string_view piece) {
    if (file != nullptr) return file->Write(piece).ok();
    return std::fwrite(piece.data(), 1, piece.size(), stdout) == piece.size();
  });
  if (file != nullptr) {
    s = file->Commit();  // the first failed Write, if any, again
    if (!s.ok()) return FailWith("dataset export", s.message(), kExitFailed);
  } else if (!written || std::fflush(stdout) != 0) {
    return FailWith("dataset export", std::string("writing stdout failed: ") + std::strerror(errno), kExitFailed);
  }
  return kExitOk;
}

}  // namespace

SubcommandBody SetupDataset(CLI::App* app) {
  auto f = std::make_shared<DatasetFlags>();
  // Not require_subcommand: its error would not name the word it did not know.
  app->add_option("subcommand", f->other, "stats or export");
  CLI::App* stats = app->add_subcommand(
      "stats", "Records per category, JSON value sizes, and the SHA-256 of the JSONL export");
  AddDatasetFlags(stats, f.get());
  CLI::App* exp = app->add_subcommand("export", "Write the records as JSONL or CSV");
  AddDatasetFlags(exp, f.get());
  exp->add_option("--format", f->format, "jsonl (one stored value a line) or csv")
      ->default_val("jsonl")
      ->check(CLI::IsMember({"jsonl", "csv"}));
  exp->add_option("--out", f->out, "The file to write, whole or not at all (default: stdout)");
  return [f, stats, exp] {
    if (exp->parsed()) return ExportBody(*exp, *f);
    if (stats->parsed()) {
      PrintStats(ComputeProductStats(f->seed, f->count));
      return kExitOk;
    }
    const std::string got = f->other.empty() ? "none given" : "unknown '" + f->other + "'";
    fmt::print(stderr, "memstand dataset: name a subcommand, stats or export ({})\n", got);
    return kExitUsage;
  };
}

}  // namespace memstand::cli
