#include "proto/iproto/request_template.h"

#include <msgpuck.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <utility>

#include "proto/iproto/value.h"
#include "util/redact.h"

namespace memstand::iproto {

namespace {

constexpr size_t kMaxUintSize = 9;    // the most an integer takes in MessagePack
constexpr size_t kMaxStrHeader = 5;   // 0xdb + uint32
constexpr size_t kMaxDigits = 20;     // of a uint64
constexpr int kMaxDepth = 32;         // nesting of [ ] and { }
constexpr uint32_t kMaxRand = 1 << 20;  // memtx_max_tuple_size's default: 1 MiB
constexpr size_t kMaxRequest = 16 << 20;  // 16 tuples of the largest size Tarantool takes
// 64 printable characters: one draw of the rng gives ten of them.
constexpr char kRandAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// ---- Tokens. ----

struct Token {
  enum class Kind : uint8_t { kEnd, kWord, kString, kPunct, kPlaceholder };
  Kind kind = Kind::kEnd;
  std::string_view text;  // as written (a string with its quotes)
  std::string str;        // kString: the content, escapes resolved
  size_t column = 0;      // 1-based
};

std::string Quote(std::string_view s) { return "'" + Abbreviate(s) + "'"; }

bool IsPunct(char c) { return std::strchr("[]{},:", c) != nullptr && c != '\0'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsWordChar(char c) { return !IsSpace(c) && !IsPunct(c) && c != '\'' && c != '"'; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == ':' || c == '-'; }

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

template <typename T>
bool ParseNumber(std::string_view s, T* out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

// ---- A parsed value: literal MessagePack, or a placeholder filled per request. ----

struct Placeholder {
  enum class Kind : uint8_t { kKey, kKeyNum, kData, kSeq, kRand, kInt };
  Kind kind = Kind::kKey;
  uint32_t rand_len = 0;
  int64_t int_min = 0;
  uint64_t int_span = 0;
};

struct Node {
  enum class Kind : uint8_t { kScalar, kArray, kMap, kPlaceholder };
  Kind kind = Kind::kScalar;
  Value scalar;
  std::vector<Node> items;  // array elements; map: key, value, key, value, ...
  Placeholder placeholder;
  size_t column = 0;
};

bool IsArrayOfArrays(const Node& n) {
  return n.kind == Node::Kind::kArray &&
         std::all_of(n.items.begin(), n.items.end(),
                     [](const Node& i) { return i.kind == Node::Kind::kArray; });
}

// ---- The parser: tokens in, Nodes and numbers out; the first fault is kept. ----

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  const Status& error() const { return error_; }
  bool Fail(const std::string& what, size_t column) {
    if (error_.ok()) error_ = Status::InvalidArgument(what + " at column " + std::to_string(column));
    return false;
  }

  bool Next(Token* t);
  bool Peek(Token* t) {
    const size_t pos = pos_;
    const bool ok = Next(t);
    pos_ = pos;
    return ok;
  }
  /// A run of non-blank characters, or a quoted string (a function name).
  bool NextName(Token* t);

  bool ParseValue(Node* out, int depth = 0);
  bool ParseArray(const char* what, const char* example, Node* out);
  bool ParseOps(Node* out);
  bool ParseUint32(const char* what, uint32_t* out);
  bool ParseIterator(Iterator* out, bool* found);
  bool ExpectEnd();

 private:
  bool LexString(Token* t);
  bool LexPlaceholder(Token* t);
  bool ParsePlaceholder(const Token& t, Placeholder* out);
  bool ParseWord(const Token& t, Node* out);
  bool ParseList(Node* out, char close, int depth);

  std::string_view text_;
  size_t pos_ = 0;
  Status error_;
};

bool Parser::Next(Token* t) {
  while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
  *t = Token();
  t->column = pos_ + 1;
  if (pos_ == text_.size()) return true;
  const char c = text_[pos_];
  if (c == '\'' || c == '"') return LexString(t);
  if (text_.substr(pos_, 2) == "__") return LexPlaceholder(t);
  const size_t start = pos_;
  if (IsPunct(c)) {
    ++pos_;
    t->kind = Token::Kind::kPunct;
  } else {
    while (pos_ < text_.size() && IsWordChar(text_[pos_])) ++pos_;
    t->kind = Token::Kind::kWord;
  }
  t->text = text_.substr(start, pos_ - start);
  return true;
}

// 'single' or "double" quoted; escapes \\ \' \" \n \r \t \0 \xHH.
bool Parser::LexString(Token* t) {
  const size_t start = pos_;
  const char quote = text_[pos_++];
  t->kind = Token::Kind::kString;
  while (pos_ < text_.size() && text_[pos_] != quote) {
    char c = text_[pos_++];
    if (c == '\\') {
      if (pos_ == text_.size()) break;
      const char e = text_[pos_++];
      static constexpr std::string_view kFrom = "\\'\"nrt0", kTo = std::string_view("\\'\"\n\r\t\0", 7);
      if (const size_t k = kFrom.find(e); k != std::string_view::npos) {
        c = kTo[k];
      } else if (e == 'x' && pos_ + 2 <= text_.size() && HexDigit(text_[pos_]) >= 0 &&
                 HexDigit(text_[pos_ + 1]) >= 0) {
        c = static_cast<char>(HexDigit(text_[pos_]) * 16 + HexDigit(text_[pos_ + 1]));
        pos_ += 2;
      } else {
        return Fail("unknown escape '\\" + std::string(1, e) + "' in a string", pos_);
      }
    }
    t->str.push_back(c);
  }
  if (pos_ == text_.size()) return Fail("unterminated string (no closing " + std::string(1, quote) + ")", start + 1);
  ++pos_;
  t->text = text_.substr(start, pos_ - start);
  return true;
}

bool Parser::LexPlaceholder(Token* t) {
  const size_t start = pos_;
  size_t end = start + 2;
  while (end < text_.size() && IsNameChar(text_[end])) ++end;
  if (text_.substr(end, 2) != "__" || end == start + 2) {
    size_t shown = end;
    while (shown < text_.size() && IsWordChar(text_[shown])) ++shown;
    return Fail("malformed placeholder " + Quote(text_.substr(start, shown - start)) +
                    " (placeholders: __key__, __keynum__, __data__, __seq__, __rand:N__, __int:A:B__)",
                start + 1);
  }
  pos_ = end + 2;
  t->kind = Token::Kind::kPlaceholder;
  t->text = text_.substr(start, pos_ - start);
  return true;
}

bool Parser::NextName(Token* t) {
  while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
  if (pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"')) return Next(t);
  *t = Token();
  t->column = pos_ + 1;
  const size_t start = pos_;
  while (pos_ < text_.size() && !IsSpace(text_[pos_])) ++pos_;
  if (pos_ == start) return true;  // kEnd
  if (IsPunct(text_[start])) return Fail("a function name cannot start with " + Quote(text_.substr(start, 1)), start + 1);
  t->kind = Token::Kind::kString;
  t->text = text_.substr(start, pos_ - start);
  t->str = std::string(t->text);
  return true;
}

bool Parser::ParsePlaceholder(const Token& t, Placeholder* out) {
  const std::string_view name = t.text.substr(2, t.text.size() - 4);
  using K = Placeholder::Kind;
  if (name == "key") return out->kind = K::kKey, true;
  if (name == "keynum") return out->kind = K::kKeyNum, true;
  if (name == "data") return out->kind = K::kData, true;
  if (name == "seq") return out->kind = K::kSeq, true;
  if (name.substr(0, 5) == "rand:") {
    out->kind = K::kRand;
    if (ParseNumber(name.substr(5), &out->rand_len) && out->rand_len >= 1 && out->rand_len <= kMaxRand) return true;
    return Fail("__rand:N__ needs a length N from 1 to " + std::to_string(kMaxRand) + ", got " + Quote(t.text),
                t.column);
  }
  if (name.substr(0, 4) == "int:") {
    out->kind = K::kInt;
    const std::string_view range = name.substr(4);
    const size_t colon = range.find(':', 1);  // a leading '-' is a sign, not a colon
    int64_t lo = 0, hi = 0;
    if (colon == std::string_view::npos || !ParseNumber(range.substr(0, colon), &lo) ||
        !ParseNumber(range.substr(colon + 1), &hi) || lo > hi) {
      return Fail("__int:A:B__ needs integers A <= B, got " + Quote(t.text), t.column);
    }
    out->int_min = lo;
    out->int_span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    return true;
  }
  return Fail("unknown placeholder " + Quote(t.text) +
                  " (known: __key__, __keynum__, __data__, __seq__, __rand:N__, __int:A:B__)",
              t.column);
}

// nil, true, false, an integer or a float.
bool Parser::ParseWord(const Token& t, Node* out) {
  const std::string_view w = t.text;
  if (w == "nil" || w == "null") return true;
  if (w == "true" || w == "false") return out->scalar = Value::Bool(w == "true"), true;
  if (uint64_t u = 0; ParseNumber(w, &u)) return out->scalar = Value::Uint(u), true;
  if (int64_t i = 0; ParseNumber(w, &i)) return out->scalar = Value::Int(i), true;
  const std::string_view digits = w.substr(w[0] == '-' || w[0] == '+' ? 1 : 0);
  if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos) {
    return Fail("integer " + Quote(w) + " is out of range (int64 or uint64)", t.column);
  }
  const bool numeric = w.find_first_of("0123456789") != std::string_view::npos &&
                       w.find_first_not_of("0123456789+-.eE") == std::string_view::npos;
  if (double d = 0; numeric && ParseNumber(w, &d)) return out->scalar = Value::Double(d), true;
  if (numeric) return Fail("number " + Quote(w) + " is out of range or malformed", t.column);
  return Fail("unknown word " + Quote(w) + " (strings are quoted: " + Quote(w) + ")", t.column);
}

bool Parser::ParseValue(Node* out, int depth) {
  Token t;
  if (!Next(&t)) return false;
  *out = Node();
  out->column = t.column;
  switch (t.kind) {
    case Token::Kind::kEnd:
      return Fail("missing value (the template ends)", t.column);
    case Token::Kind::kString:
      out->scalar = Value::String(std::move(t.str));
      return true;
    case Token::Kind::kPlaceholder:
      out->kind = Node::Kind::kPlaceholder;
      return ParsePlaceholder(t, &out->placeholder);
    case Token::Kind::kWord:
      return ParseWord(t, out);
    case Token::Kind::kPunct:
      break;
  }
  if (t.text != "[" && t.text != "{") return Fail("unexpected " + Quote(t.text), t.column);
  if (depth >= kMaxDepth) return Fail("nesting deeper than " + std::to_string(kMaxDepth), t.column);
  out->kind = t.text == "[" ? Node::Kind::kArray : Node::Kind::kMap;
  return ParseList(out, t.text == "[" ? ']' : '}', depth);
}

// Elements after '[' (or key: value pairs after '{') up to the closing bracket.
bool Parser::ParseList(Node* out, char close, int depth) {
  const bool is_map = close == '}';
  const size_t open_column = out->column;
  Token t;
  if (!Peek(&t)) return false;
  if (t.kind == Token::Kind::kPunct && t.text[0] == close) return Next(&t);
  for (;;) {
    out->items.emplace_back();
    if (!ParseValue(&out->items.back(), depth + 1)) return false;
    if (is_map) {
      if (!Next(&t)) return false;
      if (t.text != ":") {
        return t.kind == Token::Kind::kEnd
                   ? Fail("unbalanced '{' (the template ends before its '}')", open_column)
                   : Fail("expected ':' after a map key, got " + Quote(t.text), t.column);
      }
      out->items.emplace_back();
      if (!ParseValue(&out->items.back(), depth + 1)) return false;
    }
    if (!Next(&t)) return false;
    if (t.kind == Token::Kind::kPunct && t.text[0] == close) return true;
    if (t.kind == Token::Kind::kEnd) {
      return Fail(std::string("unbalanced '") + (is_map ? '{' : '[') + "' (the template ends before its '" +
                      close + "')",
                  open_column);
    }
    if (t.text != ",") {
      return Fail(std::string("expected ',' or '") + close + "', got " + Quote(t.text), t.column);
    }
  }
}

bool Parser::ParseArray(const char* what, const char* example, Node* out) {
  Token t;
  if (!Peek(&t)) return false;
  if (t.kind == Token::Kind::kEnd) return Fail(std::string("missing ") + what + ", e.g. " + example, t.column);
  if (!ParseValue(out)) return false;
  if (out->kind == Node::Kind::kArray) return true;
  return Fail(std::string(what) + " must be an array, e.g. " + example, out->column);
}

bool Parser::ParseOps(Node* out) {
  constexpr const char* kExample = "[['=', 2, __data__]]";
  if (!ParseArray("the update operations", kExample, out)) return false;
  if (IsArrayOfArrays(*out)) return true;
  return Fail(std::string("the update operations must be an array of arrays, e.g. ") + kExample, out->column);
}

bool Parser::ParseUint32(const char* what, uint32_t* out) {
  Token t;
  if (!Next(&t)) return false;
  if (t.kind == Token::Kind::kEnd) return Fail(std::string("missing ") + what, t.column);
  if (t.kind == Token::Kind::kWord && t.text[0] != '+' && ParseNumber(t.text, out)) return true;
  return Fail(std::string(what) + " must be a number from 0 to 4294967295, got " + Quote(t.text), t.column);
}

constexpr std::pair<std::string_view, Iterator> kIterators[] = {
    {"eq", Iterator::kEq}, {"req", Iterator::kReq}, {"all", Iterator::kAll},
    {"lt", Iterator::kLt}, {"le", Iterator::kLe}, {"ge", Iterator::kGe},
    {"gt", Iterator::kGt}, {"bits_all_set", Iterator::kBitsAllSet},
    {"bits_any_set", Iterator::kBitsAnySet}, {"bits_all_not_set", Iterator::kBitsAllNotSet},
    {"overlaps", Iterator::kOverlaps}, {"neighbor", Iterator::kNeighbor},
};

// An optional iterator name before the key: a word that is not a value.
bool Parser::ParseIterator(Iterator* out, bool* found) {
  Token t;
  if (!Peek(&t)) return false;
  *found = false;
  if (t.kind != Token::Kind::kWord) return true;
  for (const auto& [name, it] : kIterators) {
    if (EqualsIgnoreCase(t.text, name)) {
      *out = it;
      *found = true;
      return Next(&t);
    }
  }
  return Fail("unknown iterator " + Quote(t.text) +
                  " (eq, req, all, lt, le, ge, gt, bits_all_set, bits_any_set, bits_all_not_set, "
                  "overlaps, neighbor)",
              t.column);
}

bool Parser::ExpectEnd() {
  Token t;
  if (!Next(&t)) return false;
  if (t.kind == Token::Kind::kEnd) return true;
  return Fail("unexpected " + Quote(t.text) + " after the end of the request", t.column);
}

}  // namespace

// ---- The encoder: writes literal bytes into bytes_ and records ops. ----

class RequestTemplate::Encoder {
 public:
  explicit Encoder(RequestTemplate* t) : t_(t) {}

  void Uint(uint64_t u) {
    char b[kMaxUintSize];
    t_->bytes_.append(b, static_cast<size_t>(mp_encode_uint(b, u) - b));
  }
  void Str(std::string_view s) {
    char b[kMaxStrHeader];
    t_->bytes_.append(b, static_cast<size_t>(mp_encode_strl(b, static_cast<uint32_t>(s.size())) - b));
    t_->bytes_.append(s);
  }
  void Map(uint32_t n) {
    char b[kMaxStrHeader];
    t_->bytes_.append(b, static_cast<size_t>(mp_encode_map(b, n) - b));
  }
  void Array(uint32_t n) {
    char b[kMaxStrHeader];
    t_->bytes_.append(b, static_cast<size_t>(mp_encode_array(b, n) - b));
  }
  void Pair(uint8_t key, uint64_t u) {
    Uint(key);
    Uint(u);
  }
  void Pair(uint8_t key, const Node& n) {
    Uint(key);
    EncodeNode(n);
  }

  void EncodeNode(const Node& n) {
    switch (n.kind) {
      case Node::Kind::kScalar:
        t_->bytes_ += Encode(n.scalar);
        return;
      case Node::Kind::kArray:
        Array(static_cast<uint32_t>(n.items.size()));
        break;
      case Node::Kind::kMap:
        Map(static_cast<uint32_t>(n.items.size() / 2));
        break;
      case Node::Kind::kPlaceholder:
        AddPlaceholder(n.placeholder);
        return;
    }
    for (const Node& i : n.items) EncodeNode(i);
  }

  void AddPlaceholder(const Placeholder& p) {
    using K = Placeholder::Kind;
    Op op;
    op.kind = p.kind == K::kKey      ? Op::Kind::kKey
              : p.kind == K::kKeyNum ? Op::Kind::kKeyNum
              : p.kind == K::kData   ? Op::Kind::kData
              : p.kind == K::kSeq    ? Op::Kind::kSeq
              : p.kind == K::kRand   ? Op::Kind::kRand
                                     : Op::Kind::kInt;
    op.rand_len = p.rand_len;
    op.int_min = p.int_min;
    op.int_span = p.int_span;
    AddOp(op);
  }

  void AddOp(Op op) {
    op.literal = static_cast<uint32_t>(t_->bytes_.size() - mark_);
    mark_ = t_->bytes_.size();
    t_->ops_.push_back(op);
    switch (op.kind) {
      case Op::Kind::kKey: ++t_->key_ops_; return;
      case Op::Kind::kData: ++t_->data_ops_; return;
      case Op::Kind::kRand: t_->uses_rng_ = true; bound_ += kMaxStrHeader + op.rand_len; return;
      case Op::Kind::kInt: t_->uses_rng_ = true; break;
      case Op::Kind::kSeq: t_->uses_seq_ = true; break;
      case Op::Kind::kKeyNum: t_->uses_keynum_ = true; break;
      case Op::Kind::kSync: break;
    }
    bound_ += kMaxUintSize;
  }

  /// The header {REQUEST_TYPE: type, SYNC: sync}, then a body map of `fields` pairs
  /// (none at all for 0).
  void Header(RequestType type, uint32_t fields) {
    t_->type_ = type;
    Map(2);
    Pair(kRequestTypeKey, type);
    Uint(kSyncKey);
    AddOp(Op{});
    if (fields > 0) Map(fields);
  }

  void Finish() { t_->fixed_bound_ = kPrefixSize + t_->bytes_.size() + bound_; }

 private:
  RequestTemplate* t_;
  size_t mark_ = 0;
  size_t bound_ = 0;
};

namespace {

struct SelectArgs {
  uint32_t index = 0;
  Iterator iterator = Iterator::kEq;
  uint32_t limit = UINT32_MAX;  // Tarantool's own default
  uint32_t offset = 0;
  Node key;
};

// After the key: "limit N" and "offset N" in any order, each at most once.
bool ParseSelectTail(Parser* p, SelectArgs* s) {
  bool seen_limit = false, seen_offset = false;
  for (;;) {
    Token t;
    if (!p->Peek(&t)) return false;
    const bool limit = t.kind == Token::Kind::kWord && EqualsIgnoreCase(t.text, "limit");
    const bool offset = t.kind == Token::Kind::kWord && EqualsIgnoreCase(t.text, "offset");
    if (!limit && !offset) return true;
    bool* seen = limit ? &seen_limit : &seen_offset;
    if (*seen) return p->Fail(std::string(t.text) + " given twice", t.column);
    *seen = true;
    p->Next(&t);
    if (!p->ParseUint32(limit ? "the limit" : "the offset", limit ? &s->limit : &s->offset)) return false;
  }
}

// The one key placeholder a node is: __key__ or __keynum__; nullopt otherwise.
std::optional<bool> KeyNumber(const Node& n) {
  if (n.kind != Node::Kind::kPlaceholder) return std::nullopt;
  if (n.placeholder.kind == Placeholder::Kind::kKey) return false;
  if (n.placeholder.kind == Placeholder::Kind::kKeyNum) return true;
  return std::nullopt;
}

// select SPACE 0 eq [KEY] with a limit above 0 and no offset: a read of KEY's register.
std::optional<RegisterForm> SelectRegister(uint32_t space, const SelectArgs& s) {
  if (s.index != 0 || s.iterator != Iterator::kEq || s.limit == 0 || s.offset != 0) return std::nullopt;
  if (s.key.kind != Node::Kind::kArray || s.key.items.size() != 1) return std::nullopt;
  const std::optional<bool> number = KeyNumber(s.key.items[0]);
  if (!number) return std::nullopt;
  return RegisterForm{false, space, *number, 0};
}

// replace SPACE [KEY, ..., __data__, ...]: KEY first, one __data__, the rest constants.
std::optional<RegisterForm> ReplaceRegister(uint32_t space, const Node& tuple) {
  if (tuple.items.size() < 2) return std::nullopt;
  const std::optional<bool> number = KeyNumber(tuple.items[0]);
  if (!number) return std::nullopt;
  std::optional<uint32_t> data;
  for (size_t i = 1; i < tuple.items.size(); ++i) {
    const Node& f = tuple.items[i];
    if (f.kind == Node::Kind::kScalar) continue;
    if (f.kind != Node::Kind::kPlaceholder || f.placeholder.kind != Placeholder::Kind::kData || data) {
      return std::nullopt;
    }
    data = static_cast<uint32_t>(i);
  }
  if (!data) return std::nullopt;
  return RegisterForm{true, space, *number, *data};
}

constexpr const char* kKindList = "ping, select, insert, replace, upsert, update, delete, call, eval";

}  // namespace

Result<RequestTemplate> RequestTemplate::Parse(std::string_view text) {
  Parser p(text);
  RequestTemplate t;
  Encoder e(&t);
  Token kind;
  if (!p.Next(&kind)) return p.error();
  if (kind.kind == Token::Kind::kEnd) {
    return Status::InvalidArgument("empty Tarantool request template (want one of: " + std::string(kKindList) + ")");
  }
  std::string name(kind.text);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  t.label_ = name;
  std::transform(t.label_.begin(), t.label_.end(), t.label_.begin(), [](unsigned char c) { return std::toupper(c); });
  uint32_t space = 0, index = 0;
  Node a, b;
  auto space_id = [&] { return p.ParseUint32("space id", &space); };
  auto index_id = [&] { return p.ParseUint32("index id", &index); };
  bool ok = true;
  if (name == "ping") {
    e.Header(kPing, 0);
  } else if (name == "select") {
    SelectArgs s;
    bool has_iterator = false;
    ok = space_id() && p.ParseUint32("index id", &s.index) && p.ParseIterator(&s.iterator, &has_iterator) &&
         p.ParseArray("the key", "[__key__]", &s.key) && ParseSelectTail(&p, &s);
    if (ok) {
      e.Header(kSelect, 6);
      e.Pair(kSpaceIdKey, space), e.Pair(kIndexIdKey, s.index), e.Pair(kLimitKey, s.limit);
      e.Pair(kOffsetKey, s.offset), e.Pair(kIteratorKey, static_cast<uint64_t>(s.iterator));
      e.Pair(kKeyKey, s.key);
      t.register_form_ = SelectRegister(space, s);
    }
  } else if (name == "insert" || name == "replace") {
    ok = space_id() && p.ParseArray("the tuple", "[__key__, __data__]", &a);
    if (ok) {
      e.Header(name == "insert" ? kInsert : kReplace, 2);
      e.Pair(kSpaceIdKey, space), e.Pair(kTupleKey, a);
      if (name == "replace") t.register_form_ = ReplaceRegister(space, a);
    }
  } else if (name == "upsert") {
    ok = space_id() && p.ParseArray("the tuple", "[__key__, 1]", &a) && p.ParseOps(&b);
    if (ok) {
      e.Header(kUpsert, 4);
      e.Pair(kSpaceIdKey, space), e.Pair(kIndexBaseKey, 1), e.Pair(kTupleKey, a), e.Pair(kOpsKey, b);
    }
  } else if (name == "update") {
    ok = space_id() && index_id() && p.ParseArray("the key", "[__key__]", &a) && p.ParseOps(&b);
    if (ok) {  // UPDATE carries its operations under IPROTO_TUPLE
      e.Header(kUpdate, 5);
      e.Pair(kSpaceIdKey, space), e.Pair(kIndexIdKey, index), e.Pair(kIndexBaseKey, 1);
      e.Pair(kKeyKey, a), e.Pair(kTupleKey, b);
    }
  } else if (name == "delete") {
    ok = space_id() && index_id() && p.ParseArray("the key", "[__key__]", &a);
    if (ok) {
      e.Header(kDelete, 3);
      e.Pair(kSpaceIdKey, space), e.Pair(kIndexIdKey, index), e.Pair(kKeyKey, a);
    }
  } else if (name == "call" || name == "eval") {
    const bool call = name == "call";
    Token fn;
    ok = call ? p.NextName(&fn) : p.Next(&fn);
    if (ok && fn.kind != Token::Kind::kString) {
      ok = p.Fail(call ? "missing function name after call"
                       : "eval needs a quoted Lua expression, e.g. eval 'return ...'",
                  fn.column);
    }
    a.kind = Node::Kind::kArray;  // the arguments: every value up to the end
    for (Token t; ok && p.Peek(&t) && t.kind != Token::Kind::kEnd;) {
      a.items.emplace_back();
      ok = p.ParseValue(&a.items.back());
    }
    ok = ok && p.error().ok();
    if (ok) {
      if (call) t.label_ += " " + fn.str;
      e.Header(call ? kCall : kEval, 2);
      e.Uint(call ? kFunctionNameKey : kExprKey), e.Str(fn.str), e.Pair(kTupleKey, a);
    }
  } else {
    return Status::InvalidArgument("unknown Tarantool request " + Quote(kind.text) + " at column " +
                                   std::to_string(kind.column) + " (want one of: " + kKindList + ")");
  }
  if (!ok || !p.ExpectEnd()) return p.error();
  e.Finish();
  if (!t.ops_.empty() && t.ops_.back().kind == Op::Kind::kData) {
    size_t literals = 0;
    for (const Op& op : t.ops_) literals += op.literal;
    t.data_tail_ = t.bytes_.size() - literals;
  }
  if (t.fixed_bound_ > kMaxRequest) {
    return Status::InvalidArgument("the request would be larger than " + std::to_string(kMaxRequest >> 20) +
                                   " MiB before __key__ and __data__ (too many or too long __rand:N__)");
  }
  return t;
}

namespace {

int DigitCount(uint64_t v) {
  int n = 1;
  while (v >= 10) v /= 10, ++n;
  return n;
}

char* WriteDecimal(char* p, uint64_t v, int digits) {
  for (char* w = p + digits; w > p; v /= 10) *--w = static_cast<char>('0' + v % 10);
  return p + digits;
}

}  // namespace

char* RequestTemplate::WriteOp(char* p, const Op& op, uint64_t sync, const TemplateArgs& a) const {
  switch (op.kind) {
    case Op::Kind::kSync:
      return mp_encode_uint(p, sync);
    case Op::Kind::kSeq:
      return mp_encode_uint(p, a.seq);
    case Op::Kind::kKeyNum:
      return mp_encode_uint(p, a.key_index);
    case Op::Kind::kKey: {
      const int digits = DigitCount(a.key_index);
      p = mp_encode_strl(p, static_cast<uint32_t>(a.key_prefix.size() + digits));
      // An empty prefix may be a null view: memcpy from null is undefined even for 0 bytes.
      if (!a.key_prefix.empty()) std::memcpy(p, a.key_prefix.data(), a.key_prefix.size());
      return WriteDecimal(p + a.key_prefix.size(), a.key_index, digits);
    }
    case Op::Kind::kData:
      if (a.data.empty()) return mp_encode_strl(p, 0);  // as above: data may be null
      return mp_encode_str(p, a.data.data(), static_cast<uint32_t>(a.data.size()));
    case Op::Kind::kRand: {
      p = mp_encode_strl(p, op.rand_len);
      char* const end = p + op.rand_len;
      for (; end - p >= 10; p += 10) {  // ten characters per draw
        const uint64_t r = a.rng->Next();
        for (int j = 0; j < 10; ++j) p[j] = kRandAlphabet[(r >> (6 * j)) & 63];
      }
      for (uint64_t r = p < end ? a.rng->Next() : 0; p < end; r >>= 6) *p++ = kRandAlphabet[r & 63];
      return end;
    }
    case Op::Kind::kInt: {
      const uint64_t draw = op.int_span == UINT64_MAX ? a.rng->Next() : a.rng->Uniform(op.int_span + 1);
      const uint64_t v = static_cast<uint64_t>(op.int_min) + draw;  // wraps into [min, max]
      return static_cast<int64_t>(v) >= 0 ? mp_encode_uint(p, v) : mp_encode_int(p, static_cast<int64_t>(v));
    }
  }
  return p;
}

size_t RequestTemplate::MaxSize(size_t key_prefix_len, size_t data_len) const {
  const size_t key_len = key_prefix_len + kMaxDigits;
  return fixed_bound_ + key_ops_ * (kMaxStrHeader + key_len) + data_ops_ * (kMaxStrHeader + data_len);
}

size_t RequestTemplate::Append(Buffer* out, uint64_t sync, const TemplateArgs& a) const {
  out->EnsureWritable(MaxSize(a));
  char* const start = out->WritePtr();
  char* p = start + kPrefixSize;
  const char* literal = bytes_.data();
  for (const Op& op : ops_) {
    std::memcpy(p, literal, op.literal);
    p += op.literal;
    literal += op.literal;
    p = WriteOp(p, op, sync, a);
  }
  const size_t rest = static_cast<size_t>(bytes_.data() + bytes_.size() - literal);
  std::memcpy(p, literal, rest);
  p += rest;
  const auto len = static_cast<uint32_t>(p - start - kPrefixSize);
  start[0] = static_cast<char>(0xce);
  for (int i = 0; i < 4; ++i) start[1 + i] = static_cast<char>(len >> (24 - 8 * i));
  const auto total = static_cast<size_t>(p - start);
  out->Commit(total);
  return total;
}

}  // namespace memstand::iproto
