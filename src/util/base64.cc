#include "util/base64.h"

#include <array>
#include <cstdint>

namespace memstand {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Byte -> 6-bit value, or -1 outside the alphabet.
constexpr std::array<int8_t, 256> kDecode = [] {
  std::array<int8_t, 256> t{};
  t.fill(-1);
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  return t;
}();

}  // namespace

char* Base64Write(char* out, std::string_view in) {
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8) | p[i + 2];
    *out++ = kAlphabet[v >> 18];
    *out++ = kAlphabet[(v >> 12) & 63];
    *out++ = kAlphabet[(v >> 6) & 63];
    *out++ = kAlphabet[v & 63];
  }
  const size_t rest = in.size() - i;
  if (rest == 0) return out;
  const uint32_t v = (uint32_t{p[i]} << 16) | (rest == 2 ? uint32_t{p[i + 1]} << 8 : 0);
  *out++ = kAlphabet[v >> 18];
  *out++ = kAlphabet[(v >> 12) & 63];
  *out++ = rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
  *out++ = '=';
  return out;
}

std::string Base64Encode(std::string_view in) {
  std::string out(Base64Size(in.size()), '\0');
  Base64Write(out.data(), in);
  return out;
}

bool Base64Decode(std::string_view in, std::string* out) {
  out->clear();
  if (in.size() % 4 != 0) return false;
  out->reserve(in.size() / 4 * 3);
  for (size_t i = 0; i < in.size(); i += 4) {
    const bool last = i + 4 == in.size();
    const int pad = last ? (in[i + 3] == '=') + (in[i + 2] == '=') : 0;
    if (pad == 1 && in[i + 2] == '=') return false;  // "x=y=" is not padding
    uint32_t v = 0;
    for (int k = 0; k < 4 - pad; ++k) {
      const int8_t d = kDecode[static_cast<unsigned char>(in[i + k])];
      if (d < 0) return false;
      v |= static_cast<uint32_t>(d) << (18 - 6 * k);
    }
    out->push_back(static_cast<char>(v >> 16));
    if (pad < 2) out->push_back(static_cast<char>((v >> 8) & 0xff));
    if (pad < 1) out->push_back(static_cast<char>(v & 0xff));
  }
  return true;
}

}  // namespace memstand
