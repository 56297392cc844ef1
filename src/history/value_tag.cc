#include "history/value_tag.h"

#include <array>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "history/record.h"

namespace memstand::history {
namespace {

// splitmix64's finalizer over the value's id and the run's tag: a check that changes
// with every bit of the three.
uint32_t TagCheck(uint32_t run_tag, uint64_t value_id) {
  uint64_t z = value_id ^ (uint64_t{run_tag} * 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<uint32_t>(z ^ (z >> 31));
}

// Eight lower-case hex digits, or nullopt.
std::optional<uint32_t> GetHex32(const char* in) {
  uint32_t v = 0;
  for (int i = 0; i < 8; ++i) {
    const char c = in[i];
    uint32_t d;
    if (c >= '0' && c <= '9') {
      d = static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      d = static_cast<uint32_t>(c - 'a' + 10);
    } else {
      return std::nullopt;
    }
    v = (v << 4) | d;
  }
  return v;
}

#if defined(__SSE2__)
// The tag's 24 hex digits at once (SSE2, on every x86-64): the bytes of client, seq and
// check, most significant first, split into their high and low nibbles side by side, then
// each nibble made a digit. A history's load thread stamps every write: ~40 instructions
// instead of ~95 two digits at a time (bench/README.md, "The history's cost").
void PutTagDigits(uint64_t id, uint32_t check, char* value) {
  static_assert(std::endian::native == std::endian::little);
  const __m128i bytes = _mm_unpacklo_epi64(_mm_cvtsi64_si128(static_cast<int64_t>(__builtin_bswap64(id))),
                                           _mm_cvtsi32_si128(static_cast<int>(__builtin_bswap32(check))));
  const __m128i low4 = _mm_set1_epi8(0x0f);
  const __m128i high = _mm_and_si128(_mm_srli_epi16(bytes, 4), low4);
  const __m128i low = _mm_and_si128(bytes, low4);
  // A nibble's digit: '0' + n, and 'a' - '0' - 10 more above 9.
  const auto digits = [](__m128i n) {
    const __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(n, _mm_set1_epi8(9)), _mm_set1_epi8('a' - '0' - 10));
    return _mm_add_epi8(_mm_add_epi8(n, _mm_set1_epi8('0')), letter);
  };
  const __m128i client_seq = digits(_mm_unpacklo_epi8(high, low));  // 16 digits
  const __m128i check_digits = digits(_mm_unpackhi_epi8(high, low));  // 8 digits, then 8 of nothing
  _mm_storel_epi64(reinterpret_cast<__m128i*>(value + 4), client_seq);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(value + 13), _mm_unpackhi_epi64(client_seq, client_seq));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(value + 22), check_digits);
}
#else
constexpr char kHexDigits[] = "0123456789abcdef";

// Eight lower-case hex digits, most significant first. Every write of a run with
// --history stamps three of them (bench/README.md, "The history's cost").
constexpr std::array<char, 512> MakeHexPairs() {
  std::array<char, 512> pairs{};
  for (int i = 0; i < 256; ++i) {
    pairs[2 * i] = kHexDigits[i >> 4];
    pairs[2 * i + 1] = kHexDigits[i & 0xf];
  }
  return pairs;
}

// Every byte's two digits: a tag's three numbers are written two digits at a time.
constexpr std::array<char, 512> kHexPairs = MakeHexPairs();

void PutHex32(uint32_t v, char* out) {
  for (int i = 3; i >= 0; --i) {
    std::memcpy(out + 2 * i, &kHexPairs[2 * (v & 0xff)], 2);
    v >>= 8;
  }
}

void PutTagDigits(uint64_t id, uint32_t check, char* value) {
  PutHex32(ValueClient(id), value + 4);
  PutHex32(ValueSeq(id), value + 13);
  PutHex32(check, value + 22);
}
#endif

}  // namespace

void StampValueTag(uint32_t run_tag, uint32_t client, uint32_t seq, char* value, size_t size) {
  (void)size;
  const uint64_t id = ValueId(client, seq);
  std::memcpy(value, "ms1:", 4);
  PutTagDigits(id, TagCheck(run_tag, id), value);
  value[12] = ':';
  value[21] = ':';
  value[30] = ';';
}

Result<std::string> TaggedValue(uint32_t run_tag, uint32_t client, uint32_t seq, size_t size) {
  if (size < kValueTagSize) {
    return Status::InvalidArgument("a value of " + std::to_string(size) + " bytes cannot carry its tag (" +
                                   std::to_string(kValueTagSize) + " bytes at least)");
  }
  std::string value(size, '.');
  StampValueTag(run_tag, client, seq, value.data(), value.size());
  return value;
}

std::optional<uint64_t> ReadValueTag(uint32_t run_tag, std::string_view value) {
  if (value.size() < kValueTagSize || value.substr(0, 4) != "ms1:" || value[12] != ':' || value[21] != ':' ||
      value[30] != ';') {
    return std::nullopt;
  }
  const auto client = GetHex32(value.data() + 4);
  const auto seq = GetHex32(value.data() + 13);
  const auto check = GetHex32(value.data() + 22);
  if (!client || !seq || !check) return std::nullopt;
  const uint64_t id = ValueId(*client, *seq);
  if (*check != TagCheck(run_tag, id)) return std::nullopt;
  return id;
}

}  // namespace memstand::history
