#include "relay/segment_map.h"

#include <algorithm>

namespace memstand {

void SegmentMap::Anchor(uint32_t seq_at_cursor) {
  anchored_ = true;
  cursor_seq_ = seq_at_cursor;
}

void SegmentMap::OnSyn(uint32_t isn) {
  if (anchored_) return;
  // Offset 0 is isn + 1; the cursor may already be past it (bytes read before the map
  // was anchored), and sequence numbers count modulo 2^32.
  Anchor(static_cast<uint32_t>(isn + 1 + static_cast<uint32_t>(cursor_)));
}

void SegmentMap::OnSegment(uint32_t seq, uint32_t len, int64_t arrival_ns) {
  if (len == 0) return;
  if (!anchored_) Anchor(seq);  // the first segment seen starts at the cursor
  // Relative to the cursor as a signed 32-bit distance: wraparound-safe within 2 GiB.
  const auto delta = static_cast<int32_t>(seq - cursor_seq_);
  const int64_t start = static_cast<int64_t>(cursor_) + delta;
  const int64_t end = start + len;
  if (end <= static_cast<int64_t>(cursor_)) {  // all of it read already: a retransmission
    ++duplicates_;
    return;
  }
  Insert(static_cast<uint64_t>(std::max<int64_t>(start, static_cast<int64_t>(cursor_))),
         static_cast<uint64_t>(end), arrival_ns);
}

// Adds [start, end) where the map holds nothing yet; bytes held keep their first arrival.
void SegmentMap::Insert(uint64_t start, uint64_t end, int64_t arrival_ns) {
  if (entries_.empty() || start >= entries_.back().end) {  // in order: the common case
    if (entries_.size() >= max_entries_) {
      ++dropped_;
      return;
    }
    entries_.push_back({start, end, arrival_ns});
    return;
  }
  // Out of order or overlapping: insert the uncovered parts one by one.
  bool overlapped = false;
  auto it = std::lower_bound(entries_.begin(), entries_.end(), start,
                             [](const Entry& e, uint64_t s) { return e.end <= s; });
  uint64_t pos = start;
  while (pos < end) {
    if (it == entries_.end() || it->start >= end) {
      if (entries_.size() >= max_entries_) {
        ++dropped_;
        return;
      }
      entries_.insert(it, {pos, end, arrival_ns});
      break;
    }
    if (it->start > pos) {
      if (entries_.size() >= max_entries_) {
        ++dropped_;
        return;
      }
      it = entries_.insert(it, {pos, it->start, arrival_ns});
      ++it;
    }
    overlapped = true;
    pos = it->end;
    ++it;
  }
  if (overlapped) ++duplicates_;
}

void SegmentMap::Pieces(size_t n, std::vector<SegmentPiece>* out) const {
  out->clear();
  const uint64_t end = cursor_ + n;
  uint64_t pos = cursor_;
  const auto add = [out](size_t bytes, bool covered, int64_t arrival_ns) {
    if (!covered && !out->empty() && !out->back().covered) {
      out->back().bytes += bytes;
      return;
    }
    out->push_back({bytes, covered, arrival_ns});
  };
  for (const Entry& e : entries_) {
    if (pos >= end) break;
    if (e.start >= end) break;
    if (e.start > pos) {
      add(e.start - pos, false, 0);
      pos = e.start;
    }
    const uint64_t stop = std::min(e.end, end);
    add(stop - pos, true, e.arrival_ns);
    pos = stop;
  }
  if (pos < end) add(end - pos, false, 0);
}

size_t SegmentMap::SerialChunk(int64_t leave_ns, bool* more) const {
  *more = false;
  if (entries_.empty() || entries_.front().start > cursor_) return 0;
  const int64_t by = std::max(entries_.front().arrival_ns, leave_ns);
  uint64_t pos = cursor_;
  // The first entry may start before the cursor: a read the relay's cap cut inside it.
  for (const Entry& e : entries_) {
    if (e.start > pos || e.arrival_ns > by) {
      *more = true;
      break;
    }
    pos = e.end;
  }
  return static_cast<size_t>(pos - cursor_);
}

void SegmentMap::Consume(size_t n) {
  cursor_ += n;
  cursor_seq_ += static_cast<uint32_t>(n);
  while (!entries_.empty() && entries_.front().end <= cursor_) entries_.pop_front();
}

}  // namespace memstand
