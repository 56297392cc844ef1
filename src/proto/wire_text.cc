#include "proto/wire_text.h"

#include <cstring>

namespace memstand::proto {

std::string Quote(std::string_view s, size_t max_bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < max_bytes; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
      continue;
    }
    out += "\\x";
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  out += s.size() > max_bytes ? "'..." : "'";
  return out;
}

bool ParseUint64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

char* WriteDecimal(char* p, uint64_t n) {
  if (n < 10) {
    *p = static_cast<char>('0' + n);
    return p + 1;
  }
  char tmp[20];
  char* t = tmp + sizeof(tmp);
  do {
    *--t = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  const auto len = static_cast<size_t>(tmp + sizeof(tmp) - t);
  std::memcpy(p, t, len);
  return p + len;
}

size_t DecimalSize(uint64_t n) {
  size_t digits = 1;
  while (n >= 10) {
    n /= 10;
    ++digits;
  }
  return digits;
}

}  // namespace memstand::proto
