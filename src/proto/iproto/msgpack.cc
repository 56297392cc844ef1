#include "proto/iproto/msgpack.h"

#include <msgpuck.h>

#include <cstdint>

namespace memstand::iproto {

const char* Cursor::TypeName(Type t) {
  static constexpr const char* kNames[] = {"nil",  "uint",  "int",   "str",    "bin", "array",
                                           "map",  "bool",  "float", "double", "ext"};
  const auto i = static_cast<size_t>(t);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

Cursor::Type Cursor::Peek() const { return static_cast<Type>(mp_typeof(*p_)); }

bool Cursor::ReadUint(uint64_t* v) {
  if (AtEnd() || Peek() != Type::kUint || !CheckHeader(mp_check_uint(p_, end_))) return false;
  *v = mp_decode_uint(&p_);
  return true;
}

bool Cursor::ReadInt(int64_t* v) {
  if (AtEnd()) return false;
  if (Peek() == Type::kInt) {
    if (!CheckHeader(mp_check_int(p_, end_))) return false;
    *v = mp_decode_int(&p_);
    return true;
  }
  const char* saved = p_;
  uint64_t u = 0;
  if (!ReadUint(&u)) return false;
  if (u > static_cast<uint64_t>(INT64_MAX)) {
    p_ = saved;
    return false;
  }
  *v = static_cast<int64_t>(u);
  return true;
}

bool Cursor::ReadStr(std::string_view* s) {
  if (AtEnd() || Peek() != Type::kStr || !CheckHeader(mp_check_strl(p_, end_))) return false;
  const char* q = p_;
  const uint32_t len = mp_decode_strl(&q);
  if (len > static_cast<size_t>(end_ - q)) return false;
  *s = std::string_view(q, len);
  p_ = q + len;
  return true;
}

bool Cursor::ReadArray(uint32_t* count) {
  if (AtEnd() || Peek() != Type::kArray || !CheckHeader(mp_check_array(p_, end_))) return false;
  const char* q = p_;
  const uint32_t n = mp_decode_array(&q);
  if (n > static_cast<size_t>(end_ - q)) return false;
  *count = n;
  p_ = q;
  return true;
}

bool Cursor::ReadMap(uint32_t* count) {
  if (AtEnd() || Peek() != Type::kMap || !CheckHeader(mp_check_map(p_, end_))) return false;
  const char* q = p_;
  const uint32_t n = mp_decode_map(&q);
  if (n > static_cast<size_t>(end_ - q) / 2) return false;
  *count = n;
  p_ = q;
  return true;
}

// Iterative: `pending` counts the values still to skip at all levels; `depth` bounds
// how many containers are open, tracked by the counts each one still holds.
bool Cursor::Skip(int max_depth) {
  const char* saved = p_;
  // Elements left in each open container, innermost last.
  uint64_t left[65];
  const int depth_cap = max_depth < 0 ? 0 : (max_depth > 64 ? 64 : max_depth);
  int depth = 0;
  uint64_t pending = 1;
  while (pending > 0) {
    while (depth > 0 && left[depth - 1] == 0) --depth;
    if (AtEnd()) {
      p_ = saved;
      return false;
    }
    --pending;
    if (depth > 0) --left[depth - 1];
    const Type t = Peek();
    uint32_t n = 0;
    if (t == Type::kArray || t == Type::kMap) {
      const bool ok = t == Type::kArray ? ReadArray(&n) : ReadMap(&n);
      if (!ok || (n > 0 && depth >= depth_cap)) {
        p_ = saved;
        return false;
      }
      const uint64_t items = t == Type::kMap ? 2 * uint64_t{n} : n;
      if (items > 0) left[depth++] = items;
      pending += items;
      continue;
    }
    const char* q = p_;
    // A scalar: no count to overflow. 0xc1 is unused in MessagePack and msgpuck's
    // mp_check does not expect it.
    if (static_cast<unsigned char>(*p_) == 0xc1 || mp_check(&q, end_) != 0) {
      p_ = saved;
      return false;
    }
    p_ = q;
  }
  return true;
}

}  // namespace memstand::iproto
