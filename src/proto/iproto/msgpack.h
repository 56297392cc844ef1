// A bounds-checked MessagePack cursor over bytes we hold whole (an IPROTO packet framed
// by its length prefix). Decoding is msgpuck's (mp_typeof, mp_check_*, mp_decode_*);
// this class adds the end-of-buffer checks msgpuck's decoders leave to the caller, and a
// Skip() that bounds every array and map count by the bytes left, so a hostile count
// cannot overflow (msgpuck's own mp_check adds 32-bit counts to an int: an array header
// claiming 2^32-1 elements wraps it and passes as valid).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace memstand::iproto {

class Cursor {
 public:
  /// The bytes [p, end) must outlive the cursor.
  Cursor(const char* p, const char* end) : p_(p), end_(end) {}

  enum class Type : uint8_t { kNil, kUint, kInt, kStr, kBin, kArray, kMap, kBool, kFloat, kDouble, kExt };
  static const char* TypeName(Type t);

  bool AtEnd() const { return p_ >= end_; }
  const char* position() const { return p_; }
  size_t left() const { return static_cast<size_t>(end_ - p_); }

  /// The type of the next value. REQUIRES: !AtEnd().
  Type Peek() const;

  // Each Read* consumes one value of its type and returns true; on a type mismatch or a
  // truncated value it returns false and leaves the cursor where it was.
  bool ReadUint(uint64_t* v);
  /// A negative int, or a uint up to INT64_MAX.
  bool ReadInt(int64_t* v);
  bool ReadStr(std::string_view* s);
  /// Array or map header; a count above the bytes left is refused (each element takes
  /// one byte at least).
  bool ReadArray(uint32_t* count);
  bool ReadMap(uint32_t* count);

  /// Skips one whole value, nested ones included, at most max_depth levels deep.
  bool Skip(int max_depth = 64);

 private:
  bool CheckHeader(ptrdiff_t missing) const { return missing <= 0; }

  const char* p_;
  const char* end_;
};

}  // namespace memstand::iproto
