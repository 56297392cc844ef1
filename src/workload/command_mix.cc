#include "workload/command_mix.h"

#include <cassert>
#include <string>

#include "util/redact.h"

namespace memstand {
namespace {

constexpr uint64_t kMaxTotal = 1000000;

Status BadRatio(std::string_view text, const std::string& why) {
  return Status::InvalidArgument("bad ratio '" + Abbreviate(text) + "': " + why);
}

// Parses a field of decimal digits; false if it is empty, has another char, or
// exceeds kMaxTotal (which also keeps it far from overflowing).
bool ParseWeight(std::string_view field, uint64_t& weight) {
  if (field.empty()) return false;
  weight = 0;
  for (char c : field) {
    if (c < '0' || c > '9') return false;
    weight = weight * 10 + static_cast<uint64_t>(c - '0');
    if (weight > kMaxTotal) return false;
  }
  return true;
}

std::vector<std::string_view> SplitFields(std::string_view text) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    const size_t colon = text.find(':', start);
    fields.push_back(text.substr(start, colon - start));
    if (colon == std::string_view::npos) return fields;
    start = colon + 1;
  }
}

}  // namespace

Result<std::vector<uint32_t>> ParseRatio(std::string_view text, size_t expected_count) {
  const std::vector<std::string_view> fields = SplitFields(text);
  if (fields.size() != expected_count) {
    return BadRatio(text, "expected " + std::to_string(expected_count) +
                              " weights separated by ':', got " + std::to_string(fields.size()));
  }
  std::vector<uint32_t> weights;
  uint64_t total = 0;
  for (std::string_view field : fields) {
    uint64_t weight = 0;
    if (!field.empty() && field[0] == '-') {
      return BadRatio(text, "weight '" + std::string(field) + "' is negative");
    }
    if (!ParseWeight(field, weight)) {
      return BadRatio(text, "weight '" + std::string(field) + "' is not a whole number in 0.." +
                                std::to_string(kMaxTotal));
    }
    total += weight;
    weights.push_back(static_cast<uint32_t>(weight));
  }
  if (total == 0) return BadRatio(text, "at least one weight must be > 0");
  if (total > kMaxTotal) {
    return BadRatio(text, "weights sum to " + std::to_string(total) + ", more than " +
                              std::to_string(kMaxTotal));
  }
  return weights;
}

CommandMix::CommandMix(const std::vector<uint32_t>& weights) {
  // Smooth weighted round robin (nginx): each step every entry gains its weight, the
  // largest current value (lowest index on ties) is chosen and loses the total. Over
  // one cycle of `total` steps each entry is chosen exactly `weight` times, spread out.
  uint64_t total = 0;
  for (uint32_t w : weights) total += w;
  assert(total > 0);
  std::vector<int64_t> current(weights.size(), 0);
  cycle_.reserve(total);
  for (uint64_t step = 0; step < total; ++step) {
    size_t best = 0;
    for (size_t i = 0; i < weights.size(); ++i) {
      current[i] += weights[i];
      if (current[i] > current[best]) best = i;
    }
    current[best] -= static_cast<int64_t>(total);
    cycle_.push_back(static_cast<uint32_t>(best));
  }
  if (cycle_.empty()) cycle_.push_back(0);  // REQUIRES violated: keep At() defined
}

}  // namespace memstand
