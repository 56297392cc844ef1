// Lookups the checks share: the write behind a value, each key's operations, and the
// real-time order of two operations.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "history/record.h"

namespace memstand::history {

/// `a` certainly took effect before `b` began: a ended ok before b was invoked. An
/// unknown operation is never certainly before anything (it may take effect at any time
/// after its invoke); equal times are concurrent.
inline bool CertainlyBefore(const Record& a, const Record& b) {
  return a.outcome == Outcome::kOk && a.complete_ns < b.invoke_ns;
}

class HistoryIndex {
 public:
  /// REQUIRES: h outlives the index (it keeps pointers into h.records).
  explicit HistoryIndex(const History& h);

  /// The write or cas that puts `value_id` (any outcome), or null: no operation of this
  /// history wrote it.
  const Record* WriteOf(uint64_t value_id) const {
    const auto it = writes_.find(value_id);
    return it == writes_.end() ? nullptr : it->second;
  }
  /// Each key's operations (pointers into the history), in invoke order (ties: op id),
  /// keys ascending.
  const std::map<uint64_t, std::vector<const Record*>>& by_key() const { return by_key_; }
  /// Each client's operations in seq order, clients ascending.
  const std::map<uint32_t, std::vector<const Record*>>& by_client() const { return by_client_; }

 private:
  std::unordered_map<uint64_t, const Record*> writes_;
  std::map<uint64_t, std::vector<const Record*>> by_key_;
  std::map<uint32_t, std::vector<const Record*>> by_client_;
};

}  // namespace memstand::history
