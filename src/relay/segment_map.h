// One received TCP stream as the segment tap saw it arrive (segment_tap.h): which bytes of
// the stream came in which segment, and when. The relay reads the stream with plain reads,
// in which TCP has merged segments that waited in the socket together; this map splits a
// read back at the segment boundaries and gives each piece its own arrival time.
//
// Offsets are stream offsets: byte 0 is the connection's first payload byte. A segment's
// 32-bit sequence number is turned into an offset relative to the read cursor (the next
// byte the relay will read), so sequence numbers may wrap. The map learns where offset 0
// is from the connection's SYN (ISN + 1) or, when the tap did not see the SYN, from the
// first payload segment it saw: that one is taken to start at the read cursor.
//
// No I/O, no clock: the caller passes arrival times, so it is tested a segment at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace memstand {

/// A stretch of a read: `bytes` that arrived in one segment at arrival_ns, or (covered
/// false) bytes the tap did not see arrive.
struct SegmentPiece {
  size_t bytes = 0;
  bool covered = false;
  int64_t arrival_ns = 0;
};

class SegmentMap {
 public:
  /// max_entries bounds the segments held (read cursor and beyond): a segment that would
  /// pass it is dropped and counted, and its bytes fall back (not covered).
  explicit SegmentMap(size_t max_entries = kDefaultMaxEntries) : max_entries_(max_entries) {}

  static constexpr size_t kDefaultMaxEntries = 16384;

  /// The connection's SYN (or SYN-ACK) with its initial sequence number: offset 0 is
  /// isn + 1. Ignored once the map is anchored (a retransmitted SYN, or one after data).
  void OnSyn(uint32_t isn);
  /// A segment of `len` payload bytes starting at `seq`, arrived at arrival_ns. Bytes
  /// already read or already in the map keep their first arrival (retransmissions,
  /// duplicates from two interfaces); a segment 2^31 bytes or more away from the cursor
  /// is dropped as not this stream's.
  void OnSegment(uint32_t seq, uint32_t len, int64_t arrival_ns);

  /// The next n bytes from the read cursor, split at segment boundaries, in order;
  /// consecutive bytes the map does not hold form one uncovered piece. Clears *out first.
  void Pieces(size_t n, std::vector<SegmentPiece>* out) const;
  /// Serializing (docs/relay.md, "The segment tap"): how many bytes from the cursor form
  /// the next chunk, the contiguous segments that had arrived by max(first segment's
  /// arrival, leave_ns); 0 when the byte at the cursor is not in the map. *more: the map
  /// holds bytes past the chunk (the chunk is cut before them).
  size_t SerialChunk(int64_t leave_ns, bool* more) const;
  /// The relay read n bytes: the cursor moves past them and what they covered is freed.
  void Consume(size_t n);

  bool anchored() const { return anchored_; }
  uint64_t cursor() const { return cursor_; }
  size_t entries() const { return entries_.size(); }
  /// Segments dropped at max_entries; segments (or parts) already read or already held.
  int64_t dropped() const { return dropped_; }
  int64_t duplicates() const { return duplicates_; }

 private:
  struct Entry {
    uint64_t start;  // stream offset
    uint64_t end;
    int64_t arrival_ns;
  };
  void Anchor(uint32_t seq_at_cursor);
  void Insert(uint64_t start, uint64_t end, int64_t arrival_ns);

  size_t max_entries_;
  bool anchored_ = false;
  uint32_t cursor_seq_ = 0;  // the sequence number of the byte at cursor_
  uint64_t cursor_ = 0;
  std::deque<Entry> entries_;  // sorted, disjoint, none ending at or below cursor_
  int64_t dropped_ = 0;
  int64_t duplicates_ = 0;
};

}  // namespace memstand
