#include "history/value_tag.h"

#include "history/record.h"

namespace memstand::history {
namespace {

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

uint32_t LoadU32(const char* in) {
  uint32_t v;
  std::memcpy(&v, in, 4);
  return v;
}

// Version 1: "ms1:" client ":" seq ":" check ";", the numbers in lower-case hex.
std::optional<uint64_t> ReadTextTag(uint32_t run_tag, std::string_view value) {
  if (value.size() < kValueTagV1Size || value[12] != ':' || value[21] != ':' || value[30] != ';') {
    return std::nullopt;
  }
  const auto client = GetHex32(value.data() + 4);
  const auto seq = GetHex32(value.data() + 13);
  const auto check = GetHex32(value.data() + 22);
  if (!client || !seq || !check || *check != TagCheckV1(TagSalt(run_tag), *client, *seq)) return std::nullopt;
  return ValueId(*client, *seq);
}

}  // namespace

Result<std::string> TaggedValue(uint32_t run_tag, uint32_t client, uint32_t seq, size_t size) {
  if (size < kValueTagSize) {
    return Status::InvalidArgument("a value of " + std::to_string(size) + " bytes cannot carry its tag (" +
                                   std::to_string(kValueTagSize) + " bytes at least)");
  }
  std::string value(size, '.');
  StampValueTag(TagIds(client, seq), TagClientCheck(TagSalt(run_tag), client), value.data());
  return value;
}

std::optional<uint64_t> ReadValueTag(uint32_t run_tag, std::string_view value) {
  if (value.size() < kValueTagSize) return std::nullopt;
  if (value.starts_with("ms1:")) return ReadTextTag(run_tag, value);
  if (!value.starts_with("ms2:")) return std::nullopt;
  const uint32_t client = LoadU32(value.data() + 4);
  const uint32_t seq = LoadU32(value.data() + 8);
  if (LoadU32(value.data() + 12) != TagCheckV2(TagClientCheck(TagSalt(run_tag), client), seq)) return std::nullopt;
  return ValueId(client, seq);
}

}  // namespace memstand::history
