// Which command a connection sends next: a fixed cycle that meets the ratios exactly
// (smooth weighted round robin), shared read-only by all connections, each starting at
// its own offset.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace memstand {

/// Parses "1:10" or "3:2:1" into weights; each >= 0, at least one > 0, sum <= 1e6.
Result<std::vector<uint32_t>> ParseRatio(std::string_view text, size_t expected_count);

class CommandMix {
 public:
  /// REQUIRES: weights as ParseRatio returns them.
  explicit CommandMix(const std::vector<uint32_t>& weights);
  size_t cycle_length() const { return cycle_.size(); }
  /// The command index at position `pos` of the cycle (pos taken modulo the length).
  uint32_t At(uint64_t pos) const { return cycle_[pos % cycle_.size()]; }
  /// The command index at position pos. REQUIRES: pos < cycle_length() (no division).
  uint32_t AtInCycle(size_t pos) const { return cycle_[pos]; }

 private:
  std::vector<uint32_t> cycle_;
};

}  // namespace memstand
