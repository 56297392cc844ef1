#include "workload/product_export.h"

#include <algorithm>
#include <cassert>

#include "util/sha256.h"

namespace memstand {
namespace {

constexpr size_t kPieceBytes = 1 << 20;

size_t CategoryIndex(const std::string& name) {
  const std::vector<std::string>& names = ProductCategories();
  return std::find(names.begin(), names.end(), name) - names.begin();
}

}  // namespace

bool ExportProducts(uint64_t seed, uint32_t count, ProductFormat format,
                    const std::function<bool(std::string_view)>& sink) {
  assert(count <= kProductCount);
  std::string piece;
  piece.reserve(kPieceBytes + 1024);
  if (format == ProductFormat::kCsv) piece += ProductCsvHeader() + '\n';
  for (uint32_t id = 1; id <= count; ++id) {
    const Product p = MakeProduct(seed, id);
    piece += format == ProductFormat::kCsv ? ProductCsvRow(p) : ProductJson(p);
    piece += '\n';
    if (piece.size() >= kPieceBytes) {
      if (!sink(piece)) return false;
      piece.clear();
    }
  }
  return piece.empty() || sink(piece);
}

ProductStats ComputeProductStats(uint64_t seed, uint32_t count) {
  assert(count <= kProductCount);
  ProductStats s;
  s.seed = seed;
  s.count = count;
  s.per_category.assign(ProductCategories().size(), 0);
  s.min_json_bytes = count ? SIZE_MAX : 0;
  Sha256 sha;
  for (uint32_t id = 1; id <= count; ++id) {
    const Product p = MakeProduct(seed, id);
    ++s.per_category[CategoryIndex(p.category)];
    const std::string json = ProductJson(p);
    s.min_json_bytes = std::min(s.min_json_bytes, json.size());
    s.max_json_bytes = std::max(s.max_json_bytes, json.size());
    s.total_json_bytes += json.size();
    sha.Update(json);
    sha.Update("\n");
  }
  s.jsonl_bytes = s.total_json_bytes + count;
  s.jsonl_sha256 = sha.HexDigest();
  return s;
}

}  // namespace memstand
