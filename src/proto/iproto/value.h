// A small MessagePack value for tuples, keys, update operations and call arguments:
// nil, bool, int, uint, double, string, array, map. Built once (from a template) and
// encoded many times; encoding writes straight into a Buffer with msgpuck, without
// allocating. Integers are encoded in the smallest form, and a non-negative int as a
// uint, as Tarantool itself encodes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/buffer.h"
#include "util/status.h"

namespace memstand::iproto {

class Value {
 public:
  enum class Type : uint8_t { kNil, kBool, kInt, kUint, kDouble, kString, kArray, kMap };

  Value() = default;  // nil
  static Value Nil() { return Value(); }
  static Value Bool(bool b);
  static Value Int(int64_t i);
  static Value Uint(uint64_t u);
  static Value Double(double d);
  static Value String(std::string s);
  static Value Array(std::vector<Value> items);
  /// Pairs in order; keys may be any value.
  static Value Map(std::vector<std::pair<Value, Value>> pairs);

  Type type() const { return type_; }
  bool boolean() const { return b_; }
  int64_t int_value() const { return i_; }
  uint64_t uint_value() const { return u_; }
  double double_value() const { return d_; }
  const std::string& str() const { return s_; }
  /// Array elements; for a map: key, value, key, value, ...
  const std::vector<Value>& items() const { return items_; }
  std::vector<Value>& mutable_items() { return items_; }
  std::string& mutable_str() { return s_; }
  void set_int(int64_t i) { i_ = i; }
  void set_uint(uint64_t u) { u_ = u; }
  /// Elements of an array, pairs of a map.
  size_t size() const { return type_ == Type::kMap ? items_.size() / 2 : items_.size(); }

  bool operator==(const Value&) const = default;

 private:
  Type type_ = Type::kNil;
  bool b_ = false;
  int64_t i_ = 0;
  uint64_t u_ = 0;
  double d_ = 0;
  std::string s_;
  std::vector<Value> items_;
};

/// Bytes of the MessagePack encoding of v.
size_t EncodedSize(const Value& v);
/// Writes the encoding at p; returns the end. REQUIRES: EncodedSize(v) bytes of room.
char* Encode(char* p, const Value& v);
/// Appends the encoding to out.
void Append(Buffer* out, const Value& v);
std::string Encode(const Value& v);

/// Decodes one value from the front of `bytes` (advanced past it). Bin becomes a
/// string, float a double; ext is refused. Protocol error on anything malformed or
/// nested deeper than max_depth.
Result<Value> Decode(std::string_view* bytes, int max_depth = 64);

/// A compact JSON-like rendering for tests and messages: [1, "a", null, {2: true}].
std::string ToString(const Value& v);

/// Whether `bytes` holds exactly one MessagePack value that is an array.
bool IsEncodedArray(std::string_view bytes);

}  // namespace memstand::iproto
