// `memstand dataset stats|export` end to end: the real binary prints the library's
// figures and writes the library's bytes; bad flags are usage errors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "e2e/e2e_util.h"
#include "util/sha256.h"
#include "workload/product_export.h"

namespace memstand::e2e {
namespace {

bool Has(const std::string& output, const std::string& text) {
  return output.find(text) != std::string::npos;
}

TEST(DatasetE2E, StatsPrintsTheCategoriesSizesAndDigest) {
  Outcome out = RunMemstand({"dataset", "stats"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const ProductStats s = ComputeProductStats(kProductDefaultSeed, kProductCount);
  EXPECT_TRUE(Has(out.output, "products dataset: seed 1, ids 1..200000 (200000 records)\n"))
      << out.output;
  EXPECT_TRUE(Has(out.output, "  tools          33276\n")) << out.output;
  EXPECT_TRUE(Has(out.output, "  total         200000\n")) << out.output;
  EXPECT_TRUE(Has(out.output,
                  fmt::format("min {} B, mean {:.1f} B, max {} B, total {} B\n", s.min_json_bytes,
                              s.mean_json_bytes(), s.max_json_bytes, s.total_json_bytes)))
      << out.output;
  EXPECT_TRUE(Has(out.output,
                  fmt::format("JSONL export: {} B, sha256 {}\n", s.jsonl_bytes, s.jsonl_sha256)))
      << out.output;
  EXPECT_FALSE(Has(out.output, "the first")) << out.output;
}

TEST(DatasetE2E, JsonlExportHashesToTheStatsDigest) {
  const std::string file = TempDir() + "/products.jsonl";
  Outcome out = RunMemstand(
      {"dataset", "export", "--format", "jsonl", "--seed", "3", "--count", "20000", "--out", file});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_EQ(out.output, "");
  const std::string text = ReadFile(file);
  const ProductStats s = ComputeProductStats(3, 20000);
  EXPECT_EQ(text.size(), s.jsonl_bytes);
  Sha256 sha;
  sha.Update(text);
  EXPECT_EQ(sha.HexDigest(), s.jsonl_sha256);
  Outcome stats = RunMemstand({"dataset", "stats", "--seed", "3", "--count", "20000"});
  EXPECT_TRUE(Has(stats.output, "sha256 " + s.jsonl_sha256)) << stats.output;
}

TEST(DatasetE2E, CsvExportOfAPrefixToAFileAndToStdout) {
  const std::string file = TempDir() + "/products.csv";
  Outcome out =
      RunMemstand({"dataset", "export", "--format", "csv", "--count", "1000", "--out", file});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  std::string expected = ProductCsvHeader() + "\n";
  for (uint32_t id = 1; id <= 1000; ++id) expected += ProductCsvRow(MakeProduct(1, id)) + "\n";
  EXPECT_EQ(ReadFile(file), expected);
  Outcome to_stdout = RunMemstand({"dataset", "export", "--format", "csv", "--count", "1000"});
  ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.output;
  EXPECT_EQ(to_stdout.output, expected);
}

TEST(DatasetE2E, StatsOfAPrefixSaysSo) {
  Outcome out = RunMemstand({"dataset", "stats", "--count", "1000"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_TRUE(Has(out.output, "ids 1..1000 (1000 records)")) << out.output;
  EXPECT_TRUE(Has(out.output, "the first 1000 of 200000 ids")) << out.output;
  EXPECT_TRUE(Has(out.output, "  total           1000\n")) << out.output;
}

TEST(DatasetE2E, BadFlagsAreUsageErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::string missing_dir = TempDir() + "/no/such/dir/out.csv";
  const std::vector<Case> cases = {
      {{"dataset"}, "memstand dataset: name a subcommand, stats or export (none given)"},
      {{"dataset", "shuffle"}, "stats or export (unknown 'shuffle')"},
      {{"dataset", "stats", "--count", "0"}, "--count"},
      {{"dataset", "stats", "--count", "200001"}, "--count"},
      {{"dataset", "stats", "--seed", "-1"}, "'-1' is not a whole number"},
      {{"dataset", "stats", "--seed", "many"}, "'many' is not a whole number"},
      {{"dataset", "stats", "--seed", "18446744073709551616"}, "is not a whole number"},
      {{"dataset", "export", "--format", "xml"}, "--format"},
      {{"dataset", "export", "--out", missing_dir}, "--out: cannot write '" + missing_dir + "'"},
  };
  for (const Case& c : cases) {
    Outcome out = RunMemstand(c.args);
    EXPECT_EQ(out.exit_code, 2) << c.args.back() << ": " << out.output;
    EXPECT_TRUE(Has(out.output, c.message)) << c.args.back() << ": " << out.output;
  }
}

}  // namespace
}  // namespace memstand::e2e
