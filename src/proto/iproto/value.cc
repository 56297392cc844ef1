#include "proto/iproto/value.h"

#include <msgpuck.h>

#include <cstdio>

#include "proto/iproto/msgpack.h"

namespace memstand::iproto {

Value Value::Bool(bool b) {
  Value v;
  v.type_ = Type::kBool;
  v.b_ = b;
  return v;
}

Value Value::Int(int64_t i) {
  Value v;
  v.type_ = Type::kInt;
  v.i_ = i;
  return v;
}

Value Value::Uint(uint64_t u) {
  Value v;
  v.type_ = Type::kUint;
  v.u_ = u;
  return v;
}

Value Value::Double(double d) {
  Value v;
  v.type_ = Type::kDouble;
  v.d_ = d;
  return v;
}

Value Value::String(std::string s) {
  Value v;
  v.type_ = Type::kString;
  v.s_ = std::move(s);
  return v;
}

Value Value::Array(std::vector<Value> items) {
  Value v;
  v.type_ = Type::kArray;
  v.items_ = std::move(items);
  return v;
}

Value Value::Map(std::vector<std::pair<Value, Value>> pairs) {
  Value v;
  v.type_ = Type::kMap;
  v.items_.reserve(pairs.size() * 2);
  for (auto& [k, val] : pairs) {
    v.items_.push_back(std::move(k));
    v.items_.push_back(std::move(val));
  }
  return v;
}

size_t EncodedSize(const Value& v) {
  switch (v.type()) {
    case Value::Type::kNil:
      return mp_sizeof_nil();
    case Value::Type::kBool:
      return mp_sizeof_bool(v.boolean());
    case Value::Type::kInt:
      return v.int_value() < 0 ? mp_sizeof_int(v.int_value())
                               : mp_sizeof_uint(static_cast<uint64_t>(v.int_value()));
    case Value::Type::kUint:
      return mp_sizeof_uint(v.uint_value());
    case Value::Type::kDouble:
      return mp_sizeof_double(v.double_value());
    case Value::Type::kString:
      return mp_sizeof_str(static_cast<uint32_t>(v.str().size()));
    case Value::Type::kArray:
    case Value::Type::kMap: {
      size_t n = v.type() == Value::Type::kArray ? mp_sizeof_array(static_cast<uint32_t>(v.size()))
                                                 : mp_sizeof_map(static_cast<uint32_t>(v.size()));
      for (const Value& item : v.items()) n += EncodedSize(item);
      return n;
    }
  }
  return 0;
}

char* Encode(char* p, const Value& v) {
  switch (v.type()) {
    case Value::Type::kNil:
      return mp_encode_nil(p);
    case Value::Type::kBool:
      return mp_encode_bool(p, v.boolean());
    case Value::Type::kInt:
      return v.int_value() < 0 ? mp_encode_int(p, v.int_value())
                               : mp_encode_uint(p, static_cast<uint64_t>(v.int_value()));
    case Value::Type::kUint:
      return mp_encode_uint(p, v.uint_value());
    case Value::Type::kDouble:
      return mp_encode_double(p, v.double_value());
    case Value::Type::kString:
      return mp_encode_str(p, v.str().data(), static_cast<uint32_t>(v.str().size()));
    case Value::Type::kArray:
    case Value::Type::kMap:
      p = v.type() == Value::Type::kArray ? mp_encode_array(p, static_cast<uint32_t>(v.size()))
                                          : mp_encode_map(p, static_cast<uint32_t>(v.size()));
      for (const Value& item : v.items()) p = Encode(p, item);
      return p;
  }
  return p;
}

void Append(Buffer* out, const Value& v) {
  const size_t n = EncodedSize(v);
  out->EnsureWritable(n);
  Encode(out->WritePtr(), v);
  out->Commit(n);
}

std::string Encode(const Value& v) {
  std::string out(EncodedSize(v), '\0');
  Encode(out.data(), v);
  return out;
}

namespace {

Result<Value> DecodeAt(Cursor* c, int depth_left);

Result<Value> DecodeItems(Cursor* c, uint32_t n, bool map, int depth_left) {
  if (n > 0 && depth_left <= 0) return Status::Protocol("MessagePack nested too deep");
  std::vector<Value> items;
  items.reserve(map ? 2 * size_t{n} : n);
  for (uint64_t i = 0; i < (map ? 2 * uint64_t{n} : n); ++i) {
    Result<Value> item = DecodeAt(c, depth_left - 1);
    if (!item.ok()) return item.status();
    items.push_back(std::move(*item));
  }
  Value v = map ? Value::Map({}) : Value::Array({});
  v.mutable_items() = std::move(items);
  return v;
}

Result<Value> DecodeAt(Cursor* c, int depth_left) {
  if (c->AtEnd()) return Status::Protocol("MessagePack value truncated");
  const Cursor::Type t = c->Peek();
  const char* p = c->position();
  const size_t left = c->left();
  uint64_t u = 0;
  int64_t i = 0;
  std::string_view s;
  uint32_t n = 0;
  switch (t) {
    case Cursor::Type::kUint:
      if (c->ReadUint(&u)) return Value::Uint(u);
      break;
    case Cursor::Type::kInt:
      if (c->ReadInt(&i)) return Value::Int(i);
      break;
    case Cursor::Type::kStr:
      if (c->ReadStr(&s)) return Value::String(std::string(s));
      break;
    case Cursor::Type::kArray:
      if (c->ReadArray(&n)) return DecodeItems(c, n, false, depth_left);
      break;
    case Cursor::Type::kMap:
      if (c->ReadMap(&n)) return DecodeItems(c, n, true, depth_left);
      break;
    case Cursor::Type::kNil:
    case Cursor::Type::kBool:
    case Cursor::Type::kFloat:
    case Cursor::Type::kDouble:
    case Cursor::Type::kBin: {
      Cursor probe(p, p + left);
      if (!probe.Skip(0)) break;
      *c = Cursor(probe.position(), p + left);
      const char* q = p;
      if (t == Cursor::Type::kNil) return Value::Nil();
      if (t == Cursor::Type::kBool) return Value::Bool(mp_decode_bool(&q));
      if (t == Cursor::Type::kFloat) return Value::Double(mp_decode_float(&q));
      if (t == Cursor::Type::kDouble) return Value::Double(mp_decode_double(&q));
      uint32_t len = 0;
      const char* bin = mp_decode_bin(&q, &len);
      return Value::String(std::string(bin, len));
    }
    case Cursor::Type::kExt:
      return Status::Protocol("MessagePack ext values are not supported");
  }
  return Status::Protocol(std::string("MessagePack ") + Cursor::TypeName(t) + " truncated");
}

void AppendString(std::string* out, const std::string& s) {
  out->push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(ch);
    } else if (c < 0x20 || c >= 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out->append(hex);
    } else {
      out->push_back(ch);
    }
  }
  out->push_back('"');
}

void AppendText(std::string* out, const Value& v) {
  switch (v.type()) {
    case Value::Type::kNil:
      *out += "null";
      return;
    case Value::Type::kBool:
      *out += v.boolean() ? "true" : "false";
      return;
    case Value::Type::kInt:
      *out += std::to_string(v.int_value());
      return;
    case Value::Type::kUint:
      *out += std::to_string(v.uint_value());
      return;
    case Value::Type::kDouble: {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.17g", v.double_value());
      *out += buf;
      return;
    }
    case Value::Type::kString:
      AppendString(out, v.str());
      return;
    case Value::Type::kArray:
    case Value::Type::kMap:
      break;
  }
  const bool map = v.type() == Value::Type::kMap;
  out->push_back(map ? '{' : '[');
  for (size_t i = 0; i < v.items().size(); ++i) {
    if (i > 0) *out += map && i % 2 == 1 ? ": " : ", ";
    AppendText(out, v.items()[i]);
  }
  out->push_back(map ? '}' : ']');
}

}  // namespace

Result<Value> Decode(std::string_view* bytes, int max_depth) {
  Cursor c(bytes->data(), bytes->data() + bytes->size());
  Result<Value> v = DecodeAt(&c, max_depth);
  if (v.ok()) bytes->remove_prefix(static_cast<size_t>(c.position() - bytes->data()));
  return v;
}

std::string ToString(const Value& v) {
  std::string out;
  AppendText(&out, v);
  return out;
}

bool IsEncodedArray(std::string_view bytes) {
  Cursor c(bytes.data(), bytes.data() + bytes.size());
  if (c.AtEnd() || c.Peek() != Cursor::Type::kArray) return false;
  return c.Skip() && c.AtEnd();
}

}  // namespace memstand::iproto
