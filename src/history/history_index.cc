#include "history/history_index.h"

#include <algorithm>

namespace memstand::history {

HistoryIndex::HistoryIndex(const History& h) {
  writes_.reserve(h.records.size());
  for (const Record& r : h.records) {
    if (r.writes()) writes_.emplace(r.written(), &r);
    by_key_[r.key].push_back(&r);
    by_client_[r.client].push_back(&r);
  }
  for (auto& [key, ops] : by_key_) {
    std::sort(ops.begin(), ops.end(), [](const Record* a, const Record* b) {
      return a->invoke_ns != b->invoke_ns ? a->invoke_ns < b->invoke_ns : a->op_id < b->op_id;
    });
  }
  for (auto& [client, ops] : by_client_) {
    std::sort(ops.begin(), ops.end(), [](const Record* a, const Record* b) { return a->seq < b->seq; });
  }
}

}  // namespace memstand::history
