#include "workload/products.h"

#include <fmt/format.h>

#include <array>
#include <cassert>
#include <string_view>
#include <nlohmann/json.hpp>

#include "util/csv.h"
#include "util/rng.h"

namespace memstand {
namespace {

struct Category {
  std::string_view name;
  uint32_t count;  // records of the full dataset, for every seed
};

// Fixed counts: the category of record `id` is the bucket its position in a seeded
// permutation of the ids falls in, so each count holds for every seed.
constexpr std::array<Category, 12> kCategories = {{
    {"electronics", 24000},
    {"books", 21000},
    {"tools", 33276},
    {"kitchen", 18500},
    {"garden", 16000},
    {"toys", 15000},
    {"sports", 14500},
    {"clothing", 13800},
    {"beauty", 12400},
    {"automotive", 11200},
    {"office", 10600},
    {"grocery", 9724},
}};

constexpr uint32_t SumOfCounts() {
  uint32_t sum = 0;
  for (const Category& c : kCategories) sum += c.count;
  return sum;
}
static_assert(SumOfCounts() == kProductCount);

// Title words: 3..8 lowercase ASCII letters, so a title never needs escaping.
constexpr std::array<std::string_view, 64> kWords = {
    "compact",  "heavy",    "duty",     "steel",    "cordless", "digital",  "classic", "premium",
    "portable", "wireless", "smart",    "mini",     "pro",      "ultra",    "eco",     "deluxe",
    "rugged",   "slim",     "magnetic", "folding",  "electric", "manual",   "vintage", "modern",
    "drill",    "hammer",   "wrench",   "kettle",   "lamp",     "chair",    "blender", "speaker",
    "charger",  "cable",    "backpack", "jacket",   "sneaker",  "novel",    "atlas",   "puzzle",
    "garden",   "hose",     "shovel",   "pillow",   "blanket",  "mug",      "bottle",  "towel",
    "brush",    "mirror",   "stapler",  "notebook", "monitor",  "keyboard", "mouse",   "router",
    "camera",   "tripod",   "helmet",   "glove",    "racket",   "set",      "kit",     "pack",
};

constexpr bool AllWordsLowercase() {
  for (std::string_view w : kWords) {
    if (w.size() < 3 || w.size() > 8) return false;
    for (char c : w) {
      if (c < 'a' || c > 'z') return false;
    }
  }
  return true;
}
static_assert(AllWordsLowercase());

constexpr size_t kMinTitle = 20;
constexpr size_t kMaxTitle = 60;

// What each draw of a record is for: the stream number of DeriveSeed(record key, field).
enum Field : uint64_t {
  kSkuField = 1,
  kTitleLengthField = 2,
  kPriceTierField = 3,
  kPriceField = 4,
  kViewsTierField = 5,
  kViewsField = 6,
  kTitleWordField = 16,  // + the word's index
};

constexpr uint64_t kPermutationStream = 0x70726f6475637473ULL;  // "products"

// [0, n) from a well-mixed 64-bit x: the high word of x * n (bias below n / 2^64).
uint64_t Below(uint64_t x, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) * n) >> 64);
}

// A 4-round Feistel network over 18-bit values (two 9-bit halves), keyed by `key`:
// a permutation of [0, 2^18).
constexpr int kHalfBits = 9;
constexpr uint32_t kHalfMask = (1u << kHalfBits) - 1;

uint32_t Feistel(uint64_t key, uint32_t x) {
  uint32_t left = x >> kHalfBits;
  uint32_t right = x & kHalfMask;
  for (uint64_t round = 0; round < 4; ++round) {
    const uint32_t f =
        static_cast<uint32_t>(DeriveSeed(key, (round << kHalfBits) | right)) & kHalfMask;
    const uint32_t next = left ^ f;
    left = right;
    right = next;
  }
  return (left << kHalfBits) | right;
}

static_assert(kProductCount <= (1u << (2 * kHalfBits)));

// A permutation of [0, kProductCount): the Feistel permutation walked along its cycle
// until it lands inside the range (about 1.3 steps on average).
uint32_t Permute(uint64_t seed, uint32_t index) {
  const uint64_t key = DeriveSeed(seed, kPermutationStream);
  uint32_t x = index;
  do {
    x = Feistel(key, x);
  } while (x >= kProductCount);
  return x;
}

const Category& CategoryAt(uint32_t position) {
  for (const Category& c : kCategories) {
    if (position < c.count) return c;
    position -= c.count;
  }
  assert(false && "position >= kProductCount");
  return kCategories.back();
}

std::string Sku(uint32_t id, uint64_t draw) {
  return fmt::format("SKU-{:06d}-{:04X}", id, draw & 0xffff);
}

// Words until the drawn length in [20, 60] is reached, never past 60: a word that would
// cross 60 ends the title (then it is already past 49), so 20 <= size <= 60.
std::string Title(uint64_t record_key) {
  const size_t target =
      kMinTitle + Below(DeriveSeed(record_key, kTitleLengthField), kMaxTitle - kMinTitle + 1);
  std::string title;
  for (uint64_t i = 0; title.size() < target; ++i) {
    const std::string_view word =
        kWords[Below(DeriveSeed(record_key, kTitleWordField + i), kWords.size())];
    const size_t added = word.size() + (title.empty() ? 0 : 1);
    if (title.size() + added > kMaxTitle) break;
    if (!title.empty()) title += ' ';
    title += word;
  }
  title[0] = static_cast<char>(title[0] - 'a' + 'A');
  return title;
}

// Dollars uniform in [0, 5 * 2^tier), tier uniform in 0..9: most prices are small.
int64_t PriceCents(uint64_t record_key) {
  const uint64_t tier = Below(DeriveSeed(record_key, kPriceTierField), 10);
  const uint64_t dollars = Below(DeriveSeed(record_key, kPriceField), uint64_t{5} << tier);
  return static_cast<int64_t>(dollars * 100 + 99);
}

// Uniform in [0, 50000 >> tier], tier uniform in 0..8: skewed towards small counts, and
// 200,000 records over 50,001 values share many.
int64_t Views(uint64_t record_key) {
  const uint64_t tier = Below(DeriveSeed(record_key, kViewsTierField), 9);
  return static_cast<int64_t>(Below(DeriveSeed(record_key, kViewsField), (50000 >> tier) + 1));
}

std::vector<std::string> CategoryNames() {
  std::vector<std::string> names;
  for (const Category& c : kCategories) names.emplace_back(c.name);
  return names;
}

}  // namespace

const std::vector<std::string> kProductCategories = CategoryNames();

const std::vector<std::string>& ProductCategories() {
  static const std::vector<std::string> names = CategoryNames();
  return names;
}

uint32_t ProductCategoryCount(size_t i) {
  return i < kCategories.size() ? kCategories[i].count : 0;
}

uint32_t ProductCategoryCount(std::string_view name) {
  for (const Category& c : kCategories) {
    if (c.name == name) return c.count;
  }
  return 0;
}

Product MakeProduct(uint64_t seed, uint32_t id) {
  assert(id >= 1 && id <= kProductCount);
  const uint64_t record_key = DeriveSeed(seed, id);
  Product p;
  p.id = id;
  p.sku = Sku(id, DeriveSeed(record_key, kSkuField));
  p.title = Title(record_key);
  p.category = std::string(CategoryAt(Permute(seed, id - 1)).name);
  p.price_cents = PriceCents(record_key);
  p.views = Views(record_key);
  return p;
}

namespace {

// `text` as a JSON string, escaped as nlohmann's dump() does (its short escapes, \u00xx
// in lowercase for the other control characters); ASCII only (JsonAsciiFits).
void AppendJsonString(std::string_view text, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  *out += '"';
  for (const char ch : text) {
    switch (ch) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          *out += "\\u00";
          *out += kHex[static_cast<unsigned char>(ch) >> 4];
          *out += kHex[static_cast<unsigned char>(ch) & 0xf];
        } else {
          *out += ch;
        }
    }
  }
  *out += '"';
}

bool JsonAsciiFits(const Product& p) {
  for (std::string_view text :
       {std::string_view(p.sku), std::string_view(p.title), std::string_view(p.category)}) {
    for (const char ch : text) {
      if (static_cast<unsigned char>(ch) >= 0x80) return false;
    }
  }
  return true;
}

}  // namespace

// Written directly, byte for byte what the ordered_json below dumps: the export, its
// digest and the Redis load write 200,000 of these, and building a JSON object per
// record was most of their CPU. Text beyond ASCII (never in the dataset) goes through
// nlohmann, which checks its UTF-8.
std::string ProductJson(const Product& p) {
  if (JsonAsciiFits(p)) {
    std::string out = "{\"id\":" + std::to_string(p.id) + ",\"sku\":";
    out.reserve(160);
    AppendJsonString(p.sku, &out);
    out += ",\"title\":";
    AppendJsonString(p.title, &out);
    out += ",\"category\":";
    AppendJsonString(p.category, &out);
    out += ",\"price_cents\":" + std::to_string(p.price_cents);
    out += ",\"views\":" + std::to_string(p.views) + "}";
    return out;
  }
  nlohmann::ordered_json j;
  j["id"] = p.id;
  j["sku"] = p.sku;
  j["title"] = p.title;
  j["category"] = p.category;
  j["price_cents"] = p.price_cents;
  j["views"] = p.views;
  return j.dump();
}

std::string ProductKey(uint32_t id) { return "product:" + std::to_string(id); }

std::string ProductCsvHeader() { return "id,sku,title,category,price_cents,views"; }

std::string ProductCsvRow(const Product& p) {
  std::string row = std::to_string(p.id);
  for (std::string_view text :
       {std::string_view(p.sku), std::string_view(p.title), std::string_view(p.category)}) {
    row += ',' + CsvField(text);
  }
  row += fmt::format(",{},{}", p.price_cents, p.views);
  return row;
}

}  // namespace memstand
