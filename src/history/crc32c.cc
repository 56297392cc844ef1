#include "history/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace memstand::history {
namespace {

constexpr std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    table[i] = c;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kCrcTable = MakeCrcTable();

#if defined(__x86_64__)
// SSE4.2's crc32 instruction computes this very CRC (Castagnoli, reflected), 8 bytes at a
// time: a history's writer thread checksums every record it writes (bench/README.md).
// 128 bytes a turn of the loop, each word's load in its crc32: the loop's own three
// instructions (pointer, count, branch) were as many as the crc32s they stepped over
// (~45 instructions a record, 72 bytes); at 32 bytes a turn still ~7 of its ~16.
__attribute__((target("sse4.2"))) uint32_t Crc32cSse42(const unsigned char* p, size_t n, uint32_t c) {
  const auto word = [](const unsigned char* at) {
    uint64_t v;
    std::memcpy(&v, at, 8);
    return v;
  };
  uint64_t c64 = c;
  for (; n >= 128; p += 128, n -= 128) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) c64 = _mm_crc32_u64(c64, word(p + 8 * i));
  }
  c = static_cast<uint32_t>(c64);
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c = static_cast<uint32_t>(_mm_crc32_u64(c, v));
  }
  for (; n > 0; ++p, --n) c = _mm_crc32_u8(c, *p);
  return c;
}
#endif

}  // namespace

uint32_t Crc32cPortable(std::string_view data, uint32_t crc) {
  uint32_t c = ~crc;
  for (unsigned char b : data) c = kCrcTable[(c ^ b) & 0xff] ^ (c >> 8);
  return ~c;
}

uint32_t Crc32c(std::string_view data, uint32_t crc) {
#if defined(__x86_64__)
  static const bool sse42 = __builtin_cpu_supports("sse4.2");
  if (sse42) return ~Crc32cSse42(reinterpret_cast<const unsigned char*>(data.data()), data.size(), ~crc);
#endif
  return Crc32cPortable(data, crc);
}

}  // namespace memstand::history
