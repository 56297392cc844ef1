#include "history/value_tag.h"

#include <array>
#include <cstring>

#include "history/record.h"

namespace memstand::history {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

// splitmix64's finalizer over the value's id and the run's tag: a check that changes
// with every bit of the three.
uint32_t TagCheck(uint32_t run_tag, uint64_t value_id) {
  uint64_t z = value_id ^ (uint64_t{run_tag} * 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<uint32_t>(z ^ (z >> 31));
}

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

}  // namespace

void StampValueTag(uint32_t run_tag, uint32_t client, uint32_t seq, char* value, size_t size) {
  (void)size;
  std::memcpy(value, "ms1:", 4);
  PutHex32(client, value + 4);
  value[12] = ':';
  PutHex32(seq, value + 13);
  value[21] = ':';
  PutHex32(TagCheck(run_tag, ValueId(client, seq)), value + 22);
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
