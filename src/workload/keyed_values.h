// Values chosen by key instead of drawn from the pool: the value written for key index
// k is value(k), the same bytes every time. Scenarios use it to store a dataset's
// records (product:<id> -> that record's JSON line) through the load engine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memstand {

/// Immutable after Add()s; read by every load thread.
class KeyedValues {
 public:
  /// The first key index; Add() appends the value of first, first + 1, ...
  explicit KeyedValues(uint64_t first) : first_(first) { offsets_.push_back(0); }
  void Add(std::string_view value) {
    bytes_.append(value);
    offsets_.push_back(bytes_.size());
  }
  uint64_t first() const { return first_; }
  /// The last key index with a value. REQUIRES: size() > 0.
  uint64_t last() const { return first_ + size() - 1; }
  uint64_t size() const { return offsets_.size() - 1; }
  /// REQUIRES: first() <= key <= last().
  std::string_view At(uint64_t key) const {
    const uint64_t i = key - first_;
    return {bytes_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]};
  }
  size_t max_size() const {
    size_t m = 0;
    for (size_t i = 0; i + 1 < offsets_.size(); ++i) m = std::max(m, offsets_[i + 1] - offsets_[i]);
    return m;
  }

 private:
  uint64_t first_;
  std::string bytes_;
  std::vector<size_t> offsets_;  // size() + 1 entries
};

}  // namespace memstand
