// `memstand dataset stats|export`: the scenarios' `products` dataset, its figures and
// its bytes (docs/scenarios.md, "Dataset: products").
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "cli/cli.h"
#include "cli/subcommands.h"
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

int ExportBody(const DatasetFlags& f) {
  FILE* out = stdout;
  if (!f.out.empty()) {
    out = std::fopen(f.out.c_str(), "wb");
    if (out == nullptr)
      return FailWith("dataset export", "cannot write " + f.out + ": " + std::strerror(errno), kExitUsage);
  }
  const ProductFormat format = f.format == "csv" ? ProductFormat::kCsv : ProductFormat::kJsonl;
  bool written = ExportProducts(f.seed, f.count, format, [out](std::string_view piece) {
    return std::fwrite(piece.data(), 1, piece.size(), out) == piece.size();
  });
  written &= std::fflush(out) == 0;
  const int error = errno;
  if (out != stdout) written &= std::fclose(out) == 0;
  if (!written) {
    return FailWith("dataset export", "writing " + (f.out.empty() ? std::string("stdout") : f.out) +
                    " failed: " + std::strerror(error),
                kExitFailed);
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
  exp->add_option("--out", f->out, "The file to write (default: stdout)");
  return [f, stats, exp] {
    if (exp->parsed()) return ExportBody(*f);
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
