// libFuzzer target: the relay's segment tap on what the kernel hands it. The input is a
// packet for ParseTcpPacket (it must never read past the captured length), then, read as
// 12-byte steps, what a stream's SegmentMap is told and asked: SYNs, segments with any
// sequence numbers, reads of any size and serial chunks at any leave time. After every
// step the map's answers must hold together (the checks below); a broken one traps.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "relay/segment_map.h"
#include "relay/segment_tap.h"

namespace {

using memstand::SegmentMap;
using memstand::SegmentPiece;

uint32_t U32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Pieces of n bytes: they add up to n, no two uncovered pieces side by side, no empty one.
void CheckPieces(const SegmentMap& m, size_t n, std::vector<SegmentPiece>* pieces) {
  m.Pieces(n, pieces);
  size_t sum = 0;
  for (size_t i = 0; i < pieces->size(); ++i) {
    const SegmentPiece& p = (*pieces)[i];
    if (p.bytes == 0) __builtin_trap();
    if (i > 0 && !p.covered && !(*pieces)[i - 1].covered) __builtin_trap();
    sum += p.bytes;
  }
  if (sum != n) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  memstand::TapSegment seg;
  if (memstand::ParseTcpPacket(data, size, &seg) && seg.payload > 65535) __builtin_trap();

  constexpr size_t kMaxEntries = 8;
  SegmentMap m(kMaxEntries);
  std::vector<SegmentPiece> pieces;
  for (size_t off = 0; off + 12 <= size; off += 12) {
    const uint8_t* s = data + off;
    const uint32_t a = U32(s + 4);
    const uint32_t b = U32(s + 8) % 4096;  // lengths and read sizes
    const int64_t t = static_cast<int64_t>(U32(s + 8) >> 12);
    switch (s[0] % 4) {
      case 0: m.OnSyn(a); break;
      case 1: m.OnSegment(a, b, t); break;
      case 2: {  // a read of b bytes
        CheckPieces(m, b, &pieces);
        const uint64_t before = m.cursor();
        m.Consume(b);
        if (m.cursor() != before + b) __builtin_trap();
        break;
      }
      case 3: {  // a serial chunk at leave time t
        bool more = false;
        const size_t chunk = m.SerialChunk(t, &more);
        CheckPieces(m, 1, &pieces);
        // The byte at the cursor held: a chunk of it at least; not held: none.
        if ((chunk > 0) != pieces[0].covered) __builtin_trap();
        if (chunk > 0) {  // all of the chunk held
          CheckPieces(m, chunk, &pieces);
          for (const SegmentPiece& p : pieces) {
            if (!p.covered) __builtin_trap();
          }
        } else if (more) {
          __builtin_trap();
        }
        break;
      }
    }
    if (m.entries() > kMaxEntries) __builtin_trap();
  }
  return 0;
}
