// Whole-dataset views of `products`: the export streams (JSONL, CSV) and their stats.
// Both walk ids 1..count of the dataset for a seed, one record at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "workload/products.h"

namespace memstand {

enum class ProductFormat {
  kJsonl,  // ProductJson of ids 1..count, each line ending "\n"
  kCsv,    // ProductCsvHeader, then ProductCsvRow of ids 1..count, each line ending "\n"
};

/// Feeds the export of ids 1..count to `sink` in pieces of about 1 MiB, in order; stops
/// at the first piece `sink` returns false for, and returns false then.
/// REQUIRES: count <= kProductCount.
bool ExportProducts(uint64_t seed, uint32_t count, ProductFormat format,
                    const std::function<bool(std::string_view)>& sink);

struct ProductStats {
  uint64_t seed = 0;
  uint32_t count = 0;
  /// Records per category, in the order of kProductCategories (zeros included).
  std::vector<uint32_t> per_category;
  /// Sizes of ProductJson (the stored value), in bytes.
  size_t min_json_bytes = 0;
  size_t max_json_bytes = 0;
  uint64_t total_json_bytes = 0;
  double mean_json_bytes() const { return count ? double(total_json_bytes) / count : 0; }
  /// The JSONL export: total_json_bytes + count newlines, and its SHA-256 (what
  /// `memstand dataset export --format jsonl | sha256sum` prints).
  uint64_t jsonl_bytes = 0;
  std::string jsonl_sha256;
};

/// REQUIRES: count <= kProductCount.
ProductStats ComputeProductStats(uint64_t seed, uint32_t count);

}  // namespace memstand
