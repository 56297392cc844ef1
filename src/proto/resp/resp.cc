#include "proto/resp/resp.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <system_error>

namespace memstand::resp {

namespace {

constexpr size_t kMaxErrorCopy = 256;  // Summary::error keeps this many bytes
constexpr size_t kVerbatimPrefix = 4;  // "txt:"
constexpr size_t kMaxReserve = 1024;   // elements reserved up front for an aggregate
constexpr size_t kMaxBulkReserve = 1 << 20;
constexpr const char* kStreamed = "streamed RESP3 types are not supported";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The first bytes of every RESP2/RESP3 line, streamed-chunk markers (; .) included.
constexpr std::array<bool, 256> kTypeBytes = [] {
  std::array<bool, 256> table{};
  for (char c : std::string_view("+-:$*_,#(!=%~|>;.")) table[static_cast<unsigned char>(c)] = true;
  return table;
}();

bool IsTypeByte(char c) { return kTypeBytes[static_cast<unsigned char>(c)]; }

// Parses decimal digits with at most 19 significant ones (leading zeros are skipped, as
// FastSummary's std::from_chars skips them); false on anything else.
bool ParseDigits(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  while (s.size() > 1 && s[0] == '0') s.remove_prefix(1);
  if (s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

// Parses [+-]digits into an int64_t; false on overflow or a stray byte.
bool ParseInt64(std::string_view s, int64_t* out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  uint64_t v = 0;
  if (!ParseDigits(s, &v)) return false;
  const uint64_t limit = static_cast<uint64_t>(INT64_MAX) + (negative ? 1 : 0);
  if (v > limit) return false;
  *out = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

// A length field: "-1" or plain digits.
bool ParseLength(std::string_view s, int64_t* out) {
  if (s == "-1") {
    *out = -1;
    return true;
  }
  uint64_t v = 0;
  if (!ParseDigits(s, &v) || v > static_cast<uint64_t>(INT64_MAX)) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

bool IsDouble(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  double d = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  bool parsed = ec == std::errc() || ec == std::errc::result_out_of_range;
  return parsed && end == s.data() + s.size();
}

bool IsBigNumber(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), IsDigit);
}

void AppendHex(std::string* out, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->append("\\x");
  out->push_back(kHex[c >> 4]);
  out->push_back(kHex[c & 15]);
}

// 's' quoted for an error message: non-printable bytes as \xHH, long text cut.
std::string Quote(std::string_view s) {
  constexpr size_t kMaxQuoted = 40;
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < kMaxQuoted; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      AppendHex(&out, c);
    }
  }
  out += s.size() > kMaxQuoted ? "'..." : "'";
  return out;
}

// Writes n in decimal at p, without snprintf; returns the end. Lengths and counts in
// commands are mostly under 1000, so those take no loop.
char* WriteDecimal(char* p, uint64_t n) {
  if (n < 10) {
    *p = static_cast<char>('0' + n);
    return p + 1;
  }
  if (n < 100) {
    p[0] = static_cast<char>('0' + n / 10);
    p[1] = static_cast<char>('0' + n % 10);
    return p + 2;
  }
  if (n < 1000) {
    p[0] = static_cast<char>('0' + n / 100);
    p[1] = static_cast<char>('0' + n / 10 % 10);
    p[2] = static_cast<char>('0' + n % 10);
    return p + 3;
  }
  char tmp[20];
  char* t = tmp + sizeof(tmp);
  do {
    *--t = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  const size_t len = static_cast<size_t>(tmp + sizeof(tmp) - t);
  std::memcpy(p, t, len);
  return p + len;
}

constexpr size_t kMaxHeader = 1 + 20 + 2;  // type, up to 20 digits, CRLF

char* WriteHeader(char* p, char type, size_t n) {
  *p++ = type;
  p = WriteDecimal(p, n);
  *p++ = '\r';
  *p++ = '\n';
  return p;
}

char* WriteBulk(char* p, std::string_view s) {
  p = WriteHeader(p, '$', s.size());
  if (!s.empty()) std::memcpy(p, s.data(), s.size());
  p += s.size();
  *p++ = '\r';
  *p++ = '\n';
  return p;
}

// An upper bound of the encoded size of a command (exact but for the digits).
template <typename Args>
size_t MaxCommandSize(const Args& args) {
  size_t total = kMaxHeader;
  for (std::string_view a : args) total += kMaxHeader + a.size() + 2;
  return total;
}

// Encodes the command at p; returns the end.
template <typename Args>
char* WriteCommand(char* p, const Args& args) {
  p = WriteHeader(p, '*', args.size());
  for (std::string_view a : args) p = WriteBulk(p, a);
  return p;
}

}  // namespace

const char* TypeName(Type t) {
  static constexpr const char* kNames[] = {
      "simple-string", "error",     "integer",    "bulk-string", "array",           "null",
      "double",        "boolean",   "big-number", "blob-error",  "verbatim-string", "map",
      "set",           "attribute", "push",
  };
  static_assert(std::size(kNames) == static_cast<size_t>(Type::kPush) + 1);
  const auto i = static_cast<size_t>(t);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

const Reply* Reply::Find(std::string_view key) const {
  if (type != Type::kMap) return nullptr;
  for (size_t i = 0; i + 1 < elements.size(); i += 2) {
    if (!elements[i].is_null && elements[i].str == key) return &elements[i + 1];
  }
  return nullptr;
}

Reader::Reader(Mode mode, Limits limits) : mode_(mode), limits_(limits) {
  frames_.reserve(static_cast<size_t>(std::clamp(limits_.max_depth, 1, 16)));
  line_.reserve(64);
}

void Reader::Reset() {
  StartReply();
  error_.clear();
  failed_ = false;
  phase_ = Phase::kLine;
  line_.clear();
  frames_.clear();
  bulk_.clear();
  building_.clear();
  result_ = Reply();
}

void Reader::StartReply() {
  summary_.type = Type::kNull;
  summary_.is_null = false;
  summary_.is_error = false;
  summary_.integer = 0;
  summary_.error.clear();
  summary_.wire_bytes = 0;
  emitted_ = false;
}

// The load engine's common replies (+OK, :N, $N bulk, -ERR) whole in the input, at a
// reply boundary, in summary mode: parsed in one pass. Returns the reply's size, or 0
// to let the general state machine handle it (split input, aggregates, faults).
size_t Reader::FastSummary(const char* data, size_t len) {
  if (len < 4 || len > (size_t{1} << 40)) return 0;
  const char type = data[0];
  if (type == '+' || type == '-' || type == ':') {
    const size_t max = std::min(len, limits_.max_line + 3);
    // Most such replies are short ("+OK", ":1"): a plain scan of their first bytes
    // costs less than a call to memchr.
    const char* nl = nullptr;
    const size_t quick = std::min(max, size_t{16});
    for (size_t i = 1; i < quick; ++i) {
      if (data[i] == '\n') {
        nl = data + i;
        break;
      }
    }
    if (nl == nullptr && quick < max) {
      nl = static_cast<const char*>(std::memchr(data + quick, '\n', max - quick));
    }
    if (nl == nullptr || nl[-1] != '\r' || nl - data < 2) return 0;
    std::string_view text(data + 1, static_cast<size_t>(nl - data - 2));
    if (type == ':') {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size()) return 0;
      NoteTopLevel(Type::kInteger, false, v, {});
    } else {
      NoteTopLevel(type == '+' ? Type::kSimpleString : Type::kError, false, 0, text);
    }
    return static_cast<size_t>(nl - data + 1);
  }
  if (type != '$') return 0;
  size_t i = 1;
  int64_t n = 0;
  if (data[1] == '-') {
    if (len < 5 || data[2] != '1' || data[3] != '\r' || data[4] != '\n') return 0;
    NoteTopLevel(Type::kNull, true, 0, {});
    return 5;
  }
  // At most 18 digits, so n cannot overflow; longer lengths take the general path.
  while (i < len && i < 19 && data[i] >= '0' && data[i] <= '9') n = n * 10 + (data[i++] - '0');
  if (i == 1 || i + 1 >= len || data[i] != '\r' || data[i + 1] != '\n') return 0;
  if (n > limits_.max_bulk) return 0;
  const size_t total = i + 2 + static_cast<size_t>(n) + 2;
  if (total > len || data[total - 2] != '\r' || data[total - 1] != '\n') return 0;
  NoteTopLevel(Type::kBulkString, false, 0, {});
  if (head_max_ > 0) [[unlikely]] summary_.head.assign(data + i + 2, std::min(static_cast<size_t>(n), head_max_));
  return total;
}

Reader::Event Reader::FeedAny(const char* data, size_t len, size_t* consumed) {
  *consumed = 0;
  if (failed_) return Event::kProtocolError;
  if (emitted_) StartReply();
  if (mode_ == Mode::kSummary && phase_ == Phase::kLine && line_.empty() && frames_.empty() &&
      summary_.wire_bytes == 0) {
    if (size_t n = FastSummary(data, len); n > 0) {
      *consumed = n;
      summary_.wire_bytes = n;
      emitted_ = true;
      return Event::kReply;
    }
  }
  base_ = summary_.wire_bytes;
  size_t pos = 0;
  while (pos < len) {
    Step step = phase_ == Phase::kLine ? FeedLine(data, len, &pos) : FeedBulk(data, len, &pos);
    if (step == Step::kMore) continue;
    *consumed = pos;
    summary_.wire_bytes = base_ + pos;
    if (step == Step::kError) return Event::kProtocolError;
    emitted_ = true;
    return Event::kReply;
  }
  *consumed = len;
  summary_.wire_bytes = base_ + len;
  return Event::kNeedMore;
}

Reply Reader::TakeReply() { return std::move(result_); }

Reader::Step Reader::Fail(const std::string& what, size_t offset) {
  error_ = what + " at byte " + std::to_string(offset) + " of the reply";
  failed_ = true;
  return Step::kError;
}

Reader::Step Reader::FeedLine(const char* data, size_t len, size_t* pos) {
  const char* start = data + *pos;
  const size_t avail = len - *pos;
  if (line_.empty()) {
    line_start_ = base_ + *pos;
    if (!IsTypeByte(*start)) return Fail("unknown type byte " + Quote({start, 1}), line_start_);
  }
  const char* nl = static_cast<const char*>(std::memchr(start, '\n', avail));
  if (nl == nullptr) {
    if (line_.size() + avail > limits_.max_line + 2) {  // type byte + line + CR
      return Fail("line longer than " + std::to_string(limits_.max_line) + " bytes", line_start_);
    }
    line_.append(start, avail);
    *pos = len;
    return Step::kMore;
  }
  const size_t n = static_cast<size_t>(nl - start);
  *pos += n + 1;
  if (line_.empty()) return ProcessLine({start, n});
  line_.append(start, n);
  Step step = ProcessLine(line_);
  line_.clear();
  return step;
}

Reader::Step Reader::ProcessLine(std::string_view line) {
  if (line.size() > limits_.max_line + 2) {  // type byte + line + CR
    return Fail("line longer than " + std::to_string(limits_.max_line) + " bytes", line_start_);
  }
  if (line.size() < 2 || line.back() != '\r') {
    return Fail("line not terminated by CRLF", line_start_ + line.size());
  }
  const std::string_view arg = line.substr(1, line.size() - 2);
  switch (line[0]) {
    case '+':
      return Leaf(Type::kSimpleString, arg, 0, false);
    case '-':
      return Leaf(Type::kError, arg, 0, false);
    case '$':
      return StartBulk(Type::kBulkString, arg);
    case '*':
      return StartAggregate(Type::kArray, arg);
    case '!':
      return StartBulk(Type::kBlobError, arg);
    case '=':
      return StartBulk(Type::kVerbatim, arg);
    case '%':
      return StartAggregate(Type::kMap, arg);
    case '~':
      return StartAggregate(Type::kSet, arg);
    case '|':
      return StartAggregate(Type::kAttribute, arg);
    case '>':
      return StartAggregate(Type::kPush, arg);
    case ';':
    case '.':
      return Fail(kStreamed, line_start_);
    default:
      break;
  }
  return ProcessScalar(line[0], arg);
}

Reader::Step Reader::ProcessScalar(char type, std::string_view arg) {
  int64_t v = 0;
  switch (type) {
    case ':':
      if (!ParseInt64(arg, &v)) return Fail("bad integer " + Quote(arg), line_start_);
      return Leaf(Type::kInteger, {}, v, false);
    case '_':
      if (!arg.empty()) return Fail("null with a payload " + Quote(arg), line_start_);
      return Leaf(Type::kNull, {}, 0, true);
    case ',':
      if (!IsDouble(arg)) return Fail("bad double " + Quote(arg), line_start_);
      return Leaf(Type::kDouble, arg, 0, false);
    case '#':
      if (arg != "t" && arg != "f") return Fail("bad boolean " + Quote(arg), line_start_);
      return Leaf(Type::kBoolean, {}, arg == "t" ? 1 : 0, false);
    case '(':
      if (!IsBigNumber(arg)) return Fail("bad big number " + Quote(arg), line_start_);
      return Leaf(Type::kBigNumber, arg, 0, false);
    default:
      return Fail("unknown type byte " + Quote({&type, 1}), line_start_);
  }
}

Reader::Step Reader::StartBulk(Type type, std::string_view arg) {
  if (arg == "?" && type == Type::kBulkString) return Fail(kStreamed, line_start_);
  int64_t n = 0;
  if (!ParseLength(arg, &n) || (n < 0 && type != Type::kBulkString)) {
    return Fail(std::string("bad ") + TypeName(type) + " length " + Quote(arg), line_start_);
  }
  if (n < 0) return Leaf(Type::kNull, {}, 0, true);
  if (n > limits_.max_bulk) {
    return Fail("bulk length " + std::to_string(n) + " over the limit of " +
                    std::to_string(limits_.max_bulk),
                line_start_);
  }
  if (frames_.empty()) {
    NoteTopLevel(type, false, 0, {});
    summary_.head.clear();
  }
  bulk_type_ = type;
  bulk_size_ = n;
  bulk_left_ = n;
  crlf_left_ = 2;
  phase_ = Phase::kBulk;
  bulk_.clear();
  if (mode_ == Mode::kFull) bulk_.reserve(std::min(static_cast<size_t>(n), kMaxBulkReserve));
  return Step::kMore;
}

Reader::Step Reader::StartAggregate(Type type, std::string_view arg) {
  if (arg == "?") return Fail(kStreamed, line_start_);
  int64_t n = 0;
  if (!ParseLength(arg, &n) || (n < 0 && type != Type::kArray)) {
    return Fail(std::string("bad ") + TypeName(type) + " length " + Quote(arg), line_start_);
  }
  if (n < 0) return Leaf(Type::kNull, {}, 0, true);
  if (n > limits_.max_elements) {
    return Fail(std::string(TypeName(type)) + " of " + std::to_string(n) +
                    " elements over the limit of " + std::to_string(limits_.max_elements),
                line_start_);
  }
  if (type == Type::kAttribute && n == 0) return Step::kMore;
  if (n == 0) return Leaf(type, {}, 0, false);
  if (frames_.size() >= static_cast<size_t>(std::max(limits_.max_depth, 0))) {
    return Fail("nesting deeper than " + std::to_string(limits_.max_depth), line_start_);
  }
  if (frames_.empty() && type != Type::kAttribute) NoteTopLevel(type, false, 0, {});
  const bool paired = type == Type::kMap || type == Type::kAttribute;
  const int64_t count = paired ? 2 * n : n;
  frames_.push_back({type, count});
  if (mode_ == Mode::kFull) {
    building_.emplace_back();
    building_.back().type = type;
    building_.back().elements.reserve(std::min(static_cast<size_t>(count), kMaxReserve));
  }
  return Step::kMore;
}

Reader::Step Reader::FeedBulk(const char* data, size_t len, size_t* pos) {
  if (bulk_left_ > 0) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(bulk_left_, len - *pos));
    CopyBulkBytes(data + *pos, n);
    *pos += n;
    bulk_left_ -= static_cast<int64_t>(n);
  }
  while (bulk_left_ == 0 && crlf_left_ > 0 && *pos < len) {
    const char want = crlf_left_ == 2 ? '\r' : '\n';
    if (data[*pos] != want) {
      return Fail("bulk string of " + std::to_string(bulk_size_) + " bytes not followed by CRLF",
                  base_ + *pos);
    }
    ++*pos;
    --crlf_left_;
  }
  if (bulk_left_ > 0 || crlf_left_ > 0) return Step::kMore;
  phase_ = Phase::kLine;
  return FinishBulk();
}

void Reader::CopyBulkBytes(const char* p, size_t n) {
  if (bulk_type_ == Type::kBlobError && frames_.empty()) {
    std::string& e = summary_.error;
    e.append(p, std::min(n, kMaxErrorCopy - e.size()));
  }
  if (head_max_ > 0 && bulk_type_ == Type::kBulkString && frames_.empty()) {
    std::string& h = summary_.head;
    h.append(p, std::min(n, head_max_ - h.size()));
  }
  if (mode_ == Mode::kFull) {
    bulk_.append(p, n);
  } else if (bulk_type_ == Type::kVerbatim) {
    bulk_.append(p, std::min(n, kVerbatimPrefix - bulk_.size()));
  }
}

Reader::Step Reader::FinishBulk() {
  if (bulk_type_ == Type::kVerbatim) {
    if (bulk_.size() < kVerbatimPrefix || bulk_[kVerbatimPrefix - 1] != ':') {
      return Fail("verbatim string without a 'xxx:' format prefix", line_start_);
    }
    if (mode_ == Mode::kFull) bulk_.erase(0, kVerbatimPrefix);
  }
  if (mode_ == Mode::kSummary) return Complete(nullptr);
  Reply r;
  r.type = bulk_type_;
  r.str = std::move(bulk_);
  bulk_.clear();
  return Complete(&r);
}

Reader::Step Reader::Leaf(Type type, std::string_view text, int64_t integer, bool is_null) {
  if (frames_.empty()) NoteTopLevel(type, is_null, integer, text);
  if (mode_ == Mode::kSummary) return Complete(nullptr);
  Reply r;
  r.type = type;
  r.is_null = is_null;
  r.integer = integer;
  r.str.assign(text);
  return Complete(&r);
}

void Reader::NoteTopLevel(Type type, bool is_null, int64_t integer, std::string_view text) {
  summary_.type = type;
  summary_.is_null = is_null;
  summary_.integer = integer;
  summary_.is_error = type == Type::kError || type == Type::kBlobError;
  if (type == Type::kError) summary_.error.assign(text.substr(0, kMaxErrorCopy));
}

Reader::Step Reader::Complete(Reply* value) {
  if (mode_ == Mode::kSummary) return CompleteSummary();
  Reply done;
  while (!frames_.empty()) {
    building_.back().elements.push_back(std::move(*value));
    if (--frames_.back().remaining > 0) return Step::kMore;
    const bool attribute = frames_.back().type == Type::kAttribute;
    frames_.pop_back();
    done = std::move(building_.back());
    building_.pop_back();
    value = &done;
    if (attribute) return Step::kMore;
  }
  result_ = std::move(*value);
  return Step::kReply;
}

Reader::Step Reader::CompleteSummary() {
  while (!frames_.empty()) {
    if (--frames_.back().remaining > 0) return Step::kMore;
    const bool attribute = frames_.back().type == Type::kAttribute;
    frames_.pop_back();
    if (attribute) return Step::kMore;
  }
  return Step::kReply;
}

void AppendArrayHeader(Buffer* out, size_t n) {
  out->EnsureWritable(kMaxHeader);
  char* start = out->WritePtr();
  out->Commit(static_cast<size_t>(WriteHeader(start, '*', n) - start));
}

void AppendBulk(Buffer* out, std::string_view bytes) {
  out->EnsureWritable(kMaxHeader + bytes.size() + 2);
  char* start = out->WritePtr();
  out->Commit(static_cast<size_t>(WriteBulk(start, bytes) - start));
}

void AppendCommand(Buffer* out, std::span<const std::string_view> args) {
  out->EnsureWritable(MaxCommandSize(args));
  char* start = out->WritePtr();
  out->Commit(static_cast<size_t>(WriteCommand(start, args) - start));
}

std::string EncodeCommand(std::initializer_list<std::string_view> args) {
  std::string out(MaxCommandSize(args), '\0');
  out.resize(static_cast<size_t>(WriteCommand(out.data(), args) - out.data()));
  return out;
}

}  // namespace memstand::resp
