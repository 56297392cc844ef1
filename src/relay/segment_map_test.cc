// The segment map a segment at a time, as a codec is tested: made-up sequence numbers and
// arrival times, no sockets.
#include "relay/segment_map.h"

#include <vector>

#include <gtest/gtest.h>

namespace memstand {
namespace segment_map_test {

std::vector<SegmentPiece> PiecesOf(const SegmentMap& m, size_t n) {
  std::vector<SegmentPiece> out;
  m.Pieces(n, &out);
  return out;
}

void ExpectPiece(const SegmentPiece& p, size_t bytes, bool covered, int64_t arrival) {
  EXPECT_EQ(p.bytes, bytes);
  EXPECT_EQ(p.covered, covered);
  if (covered) {
    EXPECT_EQ(p.arrival_ns, arrival);
  }
}

TEST(SegmentMap, SplitsAReadAtSegmentBoundariesFromTheSyn) {
  SegmentMap m;
  m.OnSyn(999);  // offset 0 is seq 1000
  m.OnSegment(1000, 4, 10);
  m.OnSegment(1004, 6, 20);
  const auto p = PiecesOf(m, 10);
  ASSERT_EQ(p.size(), 2u);
  ExpectPiece(p[0], 4, true, 10);
  ExpectPiece(p[1], 6, true, 20);
  m.Consume(10);
  EXPECT_EQ(m.entries(), 0u);
  EXPECT_EQ(m.cursor(), 10u);
}

TEST(SegmentMap, WithoutASynTheFirstSegmentStartsAtTheCursor) {
  SegmentMap m;
  EXPECT_FALSE(m.anchored());
  m.OnSegment(5000, 3, 7);
  EXPECT_TRUE(m.anchored());
  const auto p = PiecesOf(m, 3);
  ASSERT_EQ(p.size(), 1u);
  ExpectPiece(p[0], 3, true, 7);
}

TEST(SegmentMap, AReadEndingInsideASegmentLeavesItsRestWithTheSameArrival) {
  SegmentMap m;
  m.OnSyn(0);
  m.OnSegment(1, 10, 5);
  auto p = PiecesOf(m, 4);
  ASSERT_EQ(p.size(), 1u);
  ExpectPiece(p[0], 4, true, 5);
  m.Consume(4);
  p = PiecesOf(m, 6);
  ASSERT_EQ(p.size(), 1u);
  ExpectPiece(p[0], 6, true, 5);
}

TEST(SegmentMap, RetransmissionsAndDuplicatesKeepTheFirstArrival) {
  SegmentMap m;
  m.OnSyn(0);
  m.OnSegment(1, 4, 10);
  m.OnSegment(1, 4, 99);  // the same segment again (a second interface, a retransmission)
  m.OnSegment(3, 6, 30);  // overlaps the first's tail: only bytes 4..7 are new
  const auto p = PiecesOf(m, 8);
  ASSERT_EQ(p.size(), 2u);
  ExpectPiece(p[0], 4, true, 10);
  ExpectPiece(p[1], 4, true, 30);
  EXPECT_EQ(m.duplicates(), 2);
  m.Consume(8);
  m.OnSegment(1, 8, 50);  // all of it read already
  EXPECT_EQ(m.entries(), 0u);
  EXPECT_EQ(m.duplicates(), 3);
}

TEST(SegmentMap, SequenceNumbersWrapAround) {
  SegmentMap m;
  m.OnSyn(0xfffffffa);  // offset 0 at 0xfffffffb
  m.OnSegment(0xfffffffb, 10, 1);  // crosses 2^32
  m.OnSegment(5, 3, 2);            // offsets 10..12
  const auto p = PiecesOf(m, 13);
  ASSERT_EQ(p.size(), 2u);
  ExpectPiece(p[0], 10, true, 1);
  ExpectPiece(p[1], 3, true, 2);
  m.Consume(13);
  m.OnSegment(8, 2, 3);
  ASSERT_EQ(PiecesOf(m, 2).size(), 1u);
  ExpectPiece(PiecesOf(m, 2)[0], 2, true, 3);
}

TEST(SegmentMap, AMissedSegmentIsAnUncoveredPieceBetweenCoveredOnes) {
  SegmentMap m;
  m.OnSyn(0);
  m.OnSegment(1, 3, 10);
  m.OnSegment(8, 2, 30);  // bytes 3..6 never seen
  const auto p = PiecesOf(m, 12);
  ASSERT_EQ(p.size(), 4u);
  ExpectPiece(p[0], 3, true, 10);
  ExpectPiece(p[1], 4, false, 0);
  ExpectPiece(p[2], 2, true, 30);
  ExpectPiece(p[3], 3, false, 0);  // and beyond what the map holds
  bool more = false;
  EXPECT_EQ(m.SerialChunk(0, &more), 3u);  // stops at the gap
  EXPECT_TRUE(more);
  m.Consume(3);
  EXPECT_EQ(m.SerialChunk(0, &more), 0u);  // the cursor's byte is not held: fall back
}

TEST(SegmentMap, AnOutOfOrderSegmentFillsItsGap) {
  SegmentMap m;
  m.OnSyn(0);
  m.OnSegment(1, 2, 10);
  m.OnSegment(5, 2, 30);
  m.OnSegment(3, 2, 20);  // arrives late, in the gap
  const auto p = PiecesOf(m, 6);
  ASSERT_EQ(p.size(), 3u);
  ExpectPiece(p[0], 2, true, 10);
  ExpectPiece(p[1], 2, true, 20);
  ExpectPiece(p[2], 2, true, 30);
}

// Serializing: the chunk is what had arrived by max(first arrival, previous leave).
TEST(SegmentMap, ASerialChunkTakesTheSegmentsThatWaitedForThePreviousLeave) {
  SegmentMap m;
  m.OnSyn(0);
  m.OnSegment(1, 5, 100);   // waited while the previous chunk was in flight
  m.OnSegment(6, 5, 200);   // so did this one
  m.OnSegment(11, 5, 400);  // came after the leave at 300
  bool more = false;
  EXPECT_EQ(m.SerialChunk(300, &more), 10u);
  EXPECT_TRUE(more);
  m.Consume(10);
  EXPECT_EQ(m.SerialChunk(300, &more), 5u);
  EXPECT_FALSE(more);
  // Nothing in flight before (leave long past): the first segment alone, a later one waits.
  SegmentMap n;
  n.OnSyn(0);
  n.OnSegment(1, 5, 100);
  n.OnSegment(6, 5, 101);
  EXPECT_EQ(n.SerialChunk(0, &more), 5u);
  EXPECT_TRUE(more);
}

// A read cut inside a segment (the relay's read size) leaves the rest of it at the cursor:
// the next serial chunk starts there, not a fallback.
TEST(SegmentMap, ASerialChunkStartsInsideASegmentAReadCut) {
  SegmentMap m;
  m.OnSyn(0);
  m.OnSegment(1, 10, 100);
  m.OnSegment(11, 5, 400);
  m.Consume(4);
  bool more = false;
  EXPECT_EQ(m.SerialChunk(300, &more), 6u);  // the first segment's rest; the second came later
  EXPECT_TRUE(more);
  EXPECT_EQ(m.SerialChunk(500, &more), 11u);  // both had arrived by the leave
  EXPECT_FALSE(more);
}

TEST(SegmentMap, TheCapDropsNewSegmentsAndCountsThem) {
  SegmentMap m(2);
  m.OnSyn(0);
  m.OnSegment(1, 1, 1);
  m.OnSegment(2, 1, 2);
  m.OnSegment(3, 1, 3);  // over the cap
  EXPECT_EQ(m.dropped(), 1);
  EXPECT_EQ(m.entries(), 2u);
  const auto p = PiecesOf(m, 3);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_FALSE(p[2].covered);
  m.Consume(2);  // read: room again
  m.OnSegment(4, 1, 4);
  EXPECT_EQ(m.dropped(), 1);
  EXPECT_EQ(m.entries(), 1u);  // byte 2 (dropped) is gone, byte 3 is held
}

// Input the tap could hand over from a broken or hostile frame: never a crash, and the
// map stays consistent.
TEST(SegmentMap, NonsenseSequenceNumbersAreHarmless) {
  SegmentMap m(64);
  m.OnSyn(100);
  m.OnSegment(101, 0, 1);           // no payload: nothing
  m.OnSegment(101 + 0x80000000u, 5, 2);  // half the sequence space away: taken as old
  m.OnSegment(101 - 50, 10, 3);     // before offset 0: read already
  m.OnSegment(101 + 0x7ffffff0u, 0xffffffffu, 4);  // absurd length far ahead
  m.OnSyn(5);                       // a second SYN after anchoring: ignored
  const auto p = PiecesOf(m, 4);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_FALSE(p[0].covered);
  EXPECT_EQ(m.cursor(), 0u);
  m.Consume(4);
  EXPECT_LE(m.entries(), 1u);
}

}  // namespace segment_map_test
}  // namespace memstand
