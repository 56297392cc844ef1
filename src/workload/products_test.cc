#include "workload/products.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "util/sha256.h"
#include "workload/product_export.h"

namespace memstand {
namespace {

// Computed once from this implementation; a change of any byte of the dataset for the
// default seed changes them (and must be a deliberate, documented change).
constexpr char kDefaultJsonlSha256[] =
    "5667f8db4f0615d06f1d7a285367c0340aef1c9c33b6247ec46a8575c0821507";
constexpr char kRecordOne[] =
    R"({"id":1,"sku":"SKU-000001-9BAA","title":"Bottle pillow router steel","category":"books",)"
    R"("price_cents":5299,"views":10420})";

const ProductStats& DefaultStats() {
  static const ProductStats stats = ComputeProductStats(kProductDefaultSeed, kProductCount);
  return stats;
}

std::string ExportText(uint64_t seed, uint32_t count, ProductFormat format) {
  std::string text;
  ExportProducts(seed, count, format, [&](std::string_view piece) {
    text += piece;
    return true;
  });
  return text;
}

const std::string& DefaultJsonl() {
  static const std::string text =
      ExportText(kProductDefaultSeed, kProductCount, ProductFormat::kJsonl);
  return text;
}

// Records per category, counted from MakeProduct alone.
std::vector<uint32_t> CountCategories(uint64_t seed) {
  std::vector<uint32_t> counts(kProductCategories.size(), 0);
  for (uint32_t id = 1; id <= kProductCount; ++id) {
    const std::string category = MakeProduct(seed, id).category;
    ++counts[std::find(kProductCategories.begin(), kProductCategories.end(), category) -
             kProductCategories.begin()];
  }
  return counts;
}

std::vector<std::string> CsvLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(text.substr(start, end - start));
  }
  EXPECT_EQ(start, text.size()) << "the last line has no newline";
  return lines;
}

TEST(ProductsTest, DefaultSeedExportHasAFixedDigest) {
  EXPECT_EQ(DefaultStats().jsonl_sha256, kDefaultJsonlSha256);
  EXPECT_EQ(ProductJson(MakeProduct(kProductDefaultSeed, 1)), kRecordOne);
  Sha256 exported;
  exported.Update(DefaultJsonl());
  EXPECT_EQ(exported.HexDigest(), DefaultStats().jsonl_sha256);
}

TEST(ProductsTest, SameSeedSameRecordOtherSeedOtherBytes) {
  for (uint32_t id : {1u, 2u, 33276u, kProductCount}) {
    EXPECT_EQ(ProductJson(MakeProduct(7, id)), ProductJson(MakeProduct(7, id)));
  }
  EXPECT_NE(ComputeProductStats(2, 1000).jsonl_sha256,
            ComputeProductStats(kProductDefaultSeed, 1000).jsonl_sha256);
  int differ = 0;
  for (uint32_t id = 1; id <= 100; ++id) {
    differ += ProductJson(MakeProduct(1, id)) != ProductJson(MakeProduct(2, id));
  }
  EXPECT_EQ(differ, 100);
}

TEST(ProductsTest, ToolsHoldsExactly33276ForEverySeed) {
  EXPECT_EQ(DefaultStats().per_category[2], 33276u);
  EXPECT_EQ(ProductCategories()[2], "tools");
  EXPECT_EQ(ProductCategoryCount("tools"), 33276u);
  for (uint64_t seed : {uint64_t{0}, uint64_t{2}, uint64_t{0xffffffffffffffff}}) {
    const std::vector<uint32_t> counts = CountCategories(seed);
    for (size_t i = 0; i < ProductCategories().size(); ++i) {
      EXPECT_EQ(counts[i], ProductCategoryCount(i)) << seed << " " << ProductCategories()[i];
    }
  }
}

TEST(ProductsTest, CategoryCountsSumToTheRecords) {
  EXPECT_EQ(kProductCategories, ProductCategories());
  EXPECT_EQ(kProductCategories.size(), 12u);
  uint32_t fixed = 0, counted = 0;
  for (size_t i = 0; i < kProductCategories.size(); ++i) {
    fixed += ProductCategoryCount(i);
    counted += DefaultStats().per_category[i];
  }
  EXPECT_EQ(fixed, kProductCount);
  EXPECT_EQ(counted, kProductCount);
  EXPECT_EQ(ProductCategoryCount("no such category"), 0u);
  // A prefix: the first 1000 ids of the same dataset, counted the same way.
  const ProductStats prefix = ComputeProductStats(kProductDefaultSeed, 1000);
  uint32_t prefix_sum = 0;
  for (uint32_t n : prefix.per_category) prefix_sum += n;
  EXPECT_EQ(prefix_sum, 1000u);
  EXPECT_LT(prefix.per_category[2], 33276u);
}

// Every line of the default export parses, in order, with ids 1..200000 once each,
// titles of 20..60 chars, known categories, and views shared by several records.
TEST(ProductsTest, ExportRecordsKeepTheirContracts) {
  const std::vector<std::string> lines = CsvLines(DefaultJsonl());
  ASSERT_EQ(lines.size(), kProductCount);
  const std::set<std::string> categories(kProductCategories.begin(), kProductCategories.end());
  std::set<uint32_t> ids;
  std::map<int64_t, int> views;
  for (const std::string& line : lines) {
    const nlohmann::json j = nlohmann::json::parse(line);
    ids.insert(j["id"].get<uint32_t>());
    const size_t title = j["title"].get<std::string>().size();
    ASSERT_TRUE(title >= 20 && title <= 60) << line;
    ASSERT_TRUE(categories.count(j["category"].get<std::string>())) << line;
    ++views[j["views"].get<int64_t>()];
  }
  EXPECT_EQ(ids.size(), kProductCount);
  EXPECT_EQ(*ids.begin(), 1u);
  EXPECT_EQ(*ids.rbegin(), kProductCount);
  EXPECT_LT(views.size(), kProductCount / 4);  // many ties
  EXPECT_GE(views.begin()->first, 0);
  EXPECT_LE(views.rbegin()->first, 50000);
}

TEST(ProductsTest, JsonRoundTripsTheFieldsInOrder) {
  const Product p = MakeProduct(kProductDefaultSeed, 4242);
  const std::string text = ProductJson(p);
  EXPECT_EQ(text.find('\n'), std::string::npos);
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(j.dump(), text) << "compact, keys in order";
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"id", "sku", "title", "category", "price_cents", "views"}));
  EXPECT_EQ(j["id"], p.id);
  EXPECT_EQ(j["sku"], p.sku);
  EXPECT_EQ(j["title"], p.title);
  EXPECT_EQ(j["category"], p.category);
  EXPECT_EQ(j["price_cents"], p.price_cents);
  EXPECT_EQ(j["views"], p.views);
  EXPECT_EQ(p.sku.substr(0, 11), "SKU-004242-");
  EXPECT_EQ(p.sku.size(), 15u);
  EXPECT_EQ(p.price_cents % 100, 99);
  EXPECT_EQ(ProductKey(4242), "product:4242");
}

// What an nlohmann::ordered_json of the record's fields dumps: ProductJson writes the
// same bytes itself.
std::string NlohmannDump(const Product& p) {
  nlohmann::ordered_json j;
  j["id"] = p.id;
  j["sku"] = p.sku;
  j["title"] = p.title;
  j["category"] = p.category;
  j["price_cents"] = p.price_cents;
  j["views"] = p.views;
  return j.dump();
}

TEST(ProductsTest, JsonEscapesWhatNeedsIt) {
  Product p = MakeProduct(kProductDefaultSeed, 1);
  p.title = "A \"quoted\"\\ title\n";
  EXPECT_EQ(nlohmann::json::parse(ProductJson(p))["title"], p.title);
  // Byte for byte what an nlohmann::ordered_json of the fields dumps (ProductJson writes
  // the record out itself), escapes, a control character and UTF-8 included.
  p.sku = "SKU-\x01\t";
  p.category = "caf\xc3\xa9";
  p.price_cents = -199;
  EXPECT_EQ(ProductJson(p), NlohmannDump(p));
}

// ProductJson writes the record itself: byte for byte what nlohmann dumps, for every
// ASCII character in every text field, and for text beyond ASCII (which it leaves to
// nlohmann).
TEST(ProductsTest, JsonIsWhatNlohmannDumpsForEveryCharacter) {
  std::string every;
  for (int c = 0; c < 128; ++c) every += static_cast<char>(c);
  for (const std::string& text : {every, std::string("caf\xc3\xa9 \xe2\x82\xac"), std::string()}) {
    Product p = MakeProduct(kProductDefaultSeed, 9);
    p.sku = text;
    p.title = "t" + text;
    p.category = text + "c";
    p.price_cents = -5;
    p.views = INT64_MAX;
    EXPECT_EQ(ProductJson(p), NlohmannDump(p));
  }
}

TEST(ProductsTest, CsvQuotesFieldsWithCommasQuotesAndNewlines) {
  EXPECT_EQ(ProductCsvHeader(), "id,sku,title,category,price_cents,views");
  Product p{7, "SKU-000007-00AA", "Plain title of twenty", "tools", 1999, 12};
  EXPECT_EQ(ProductCsvRow(p), "7,SKU-000007-00AA,Plain title of twenty,tools,1999,12");
  p.title = "Say \"hi\", twice";
  p.category = "two\nlines";
  EXPECT_EQ(ProductCsvRow(p), "7,SKU-000007-00AA,\"Say \"\"hi\"\", twice\",\"two\nlines\",1999,12");
  const std::vector<std::string> rows =
      CsvLines(ExportText(kProductDefaultSeed, 3, ProductFormat::kCsv));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], ProductCsvHeader());
  EXPECT_EQ(rows[3], ProductCsvRow(MakeProduct(kProductDefaultSeed, 3)));
}

}  // namespace
}  // namespace memstand
