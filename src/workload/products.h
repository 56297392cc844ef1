// The `products` dataset the scenarios share (docs/scenarios.md, "Dataset: products"):
// 200,000 records computed from a seed, each on its own, with the same bytes on every
// machine and standard library (integer draws from a counter-based hash, no std::
// distributions, no floating point).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memstand {

struct Product {
  uint32_t id;           // 1..count
  std::string sku;       // "SKU-<id, 6 digits>-<4 hex digits>", e.g. "SKU-000001-7F3A"
  std::string title;     // 20..60 chars: words from a fixed list, separated by spaces
  std::string category;  // one of kProductCategories
  int64_t price_cents;   // 99 .. 255,999, ending in 99; most prices are small
  int64_t views;         // 0 .. 50,000, skewed towards small values; with ties
};

inline constexpr uint32_t kProductCount = 200000;
inline constexpr uint64_t kProductDefaultSeed = 1;

/// The 12 category names, in a fixed order; "tools" is one of them.
extern const std::vector<std::string> kProductCategories;
/// The same vector (for callers that run before static initialization is done).
const std::vector<std::string>& ProductCategories();
/// How many of the kProductCount records hold category `kProductCategories[i]`, for
/// every seed (by construction); "tools" holds exactly 33,276. Sums to kProductCount.
uint32_t ProductCategoryCount(size_t i);
/// ProductCategoryCount of the category named `name`; 0 for a name not in the list.
uint32_t ProductCategoryCount(std::string_view name);

/// Record `id` of the dataset for `seed`, computed on its own (O(1) per record, no need
/// to generate the others), so scenarios can stream the records without holding them.
/// The first `count` ids of the same dataset are the dataset of a smaller `--count`.
/// REQUIRES: 1 <= id <= kProductCount.
Product MakeProduct(uint64_t seed, uint32_t id);

/// The record as one compact JSON object, keys in the order id, sku, title, category,
/// price_cents, views; no trailing newline. This exact string is the stored value.
std::string ProductJson(const Product& p);

/// "product:<id>"
std::string ProductKey(uint32_t id);

/// CSV header line and row (RFC 4180 quoting: a field holding a comma, a double quote,
/// CR or LF is quoted, its quotes doubled), no trailing newline.
std::string ProductCsvHeader();
std::string ProductCsvRow(const Product& p);

}  // namespace memstand
