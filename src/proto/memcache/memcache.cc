#include "proto/memcache/memcache.h"

#include <algorithm>
#include <cstring>

#include "proto/wire_text.h"

namespace memstand::memcache {

namespace {

using proto::Quote;

constexpr size_t kMaxErrorCopy = 256;  // Summary::error keeps this many bytes
constexpr size_t kMaxNumber = 21;      // a signed 64-bit number with its sign
constexpr size_t kMaxDataReserve = 1 << 20;

// Writes a command at a raw pointer; the caller reserved the room.
class LineWriter {
 public:
  explicit LineWriter(char* p) : p_(p) {}
  LineWriter& Put(std::string_view s) {
    if (!s.empty()) std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
    return *this;
  }
  LineWriter& Space() { return Put(" "); }
  LineWriter& Number(uint64_t n) {
    p_ = proto::WriteDecimal(p_, n);
    return *this;
  }
  LineWriter& Signed(int64_t n) {
    if (n < 0) *p_++ = '-';
    return Number(n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n));
  }
  LineWriter& End(bool noreply) {
    if (noreply) Put(" noreply");
    return Put("\r\n");
  }
  char* end() const { return p_; }

 private:
  char* p_;
};

// Reserves max_size bytes in out, lets write() fill them and commits what it wrote.
template <typename Fn>
void Emit(Buffer* out, size_t max_size, Fn write) {
  out->EnsureWritable(max_size);
  char* start = out->WritePtr();
  LineWriter w(start);
  write(w);
  out->Commit(static_cast<size_t>(w.end() - start));
}

constexpr size_t kNoreply = 10;  // " noreply\r\n"

void AppendKeyCommand(Buffer* out, std::string_view cmd, std::string_view key,
                      const int64_t* number, bool noreply) {
  Emit(out, cmd.size() + 1 + key.size() + 1 + kMaxNumber + kNoreply, [&](LineWriter& w) {
    w.Put(cmd).Space().Put(key);
    if (number != nullptr) w.Space().Signed(*number);
    w.End(noreply);
  });
}

void AppendArith(Buffer* out, std::string_view cmd, std::string_view key, uint64_t delta,
                 bool noreply) {
  Emit(out, cmd.size() + 1 + key.size() + 1 + kMaxNumber + kNoreply, [&](LineWriter& w) {
    w.Put(cmd).Space().Put(key).Space().Number(delta).End(noreply);
  });
}

void AppendStorage(Buffer* out, std::string_view cmd, std::string_view key, uint32_t flags,
                   int64_t exptime, std::string_view value, const uint64_t* cas, bool noreply) {
  const size_t max = cmd.size() + key.size() + 5 * (kMaxNumber + 1) + kNoreply + value.size() + 2;
  Emit(out, max, [&](LineWriter& w) {
    w.Put(cmd).Space().Put(key).Space().Number(flags).Space().Signed(exptime);
    w.Space().Number(value.size());
    if (cas != nullptr) w.Space().Number(*cas);
    w.End(noreply).Put(value).Put("\r\n");
  });
}

bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Splits off the first space-separated token of *rest.
std::string_view NextToken(std::string_view* rest) {
  const size_t sp = rest->find(' ');
  std::string_view token = rest->substr(0, sp);
  rest->remove_prefix(sp == std::string_view::npos ? rest->size() : sp + 1);
  return token;
}

struct SingleLine {
  std::string_view word;
  Kind kind;
};
constexpr SingleLine kSingles[] = {
    {"STORED", Kind::kStored},       {"NOT_STORED", Kind::kNotStored},
    {"EXISTS", Kind::kExists},       {"NOT_FOUND", Kind::kNotFound},
    {"DELETED", Kind::kDeleted},     {"TOUCHED", Kind::kTouched},
    {"OK", Kind::kOk},
};

// Mode::kFull's reset of the reply, out of line so that StartReply, run per reply, stays
// small enough for the compiler to put in line in Feed (bench/count_instructions.sh).
[[gnu::noinline, gnu::cold]] void ClearReply(Reply* reply) { *reply = Reply(); }

}  // namespace

size_t FirstInvalidKeyByte(std::string_view key) {
  for (size_t i = 0; i < key.size(); ++i) {
    const auto u = static_cast<unsigned char>(key[i]);
    if (u <= 0x20 || u == 0x7f) return i;
  }
  return std::string_view::npos;
}

bool IsValidKey(std::string_view key) {
  return !key.empty() && key.size() <= kMaxKeyLength &&
         FirstInvalidKeyByte(key) == std::string_view::npos;
}

const char* StoreCommandName(StoreCommand c) {
  static constexpr const char* kNames[] = {"set", "add", "replace", "append", "prepend"};
  return kNames[static_cast<size_t>(c)];
}

const char* KindName(Kind k) {
  static constexpr const char* kNames[] = {
      "values", "stored", "not-stored", "exists",       "not-found",    "deleted", "touched",
      "ok",     "number", "version",    "stats",        "error",        "client-error",
      "server-error",
  };
  static_assert(std::size(kNames) == static_cast<size_t>(Kind::kServerError) + 1);
  const auto i = static_cast<size_t>(k);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

void AppendGet(Buffer* out, std::span<const std::string_view> keys, bool with_cas) {
  size_t max = 4 + 2;
  for (std::string_view k : keys) max += 1 + k.size();
  Emit(out, max, [&](LineWriter& w) {
    w.Put(with_cas ? "gets" : "get");
    for (std::string_view k : keys) w.Space().Put(k);
    w.End(false);
  });
}

void AppendGet(Buffer* out, std::string_view key, bool with_cas) {
  AppendGet(out, std::span<const std::string_view>(&key, 1), with_cas);
}

void AppendStore(Buffer* out, StoreCommand cmd, std::string_view key, uint32_t flags,
                 int64_t exptime, std::string_view value, bool noreply) {
  AppendStorage(out, StoreCommandName(cmd), key, flags, exptime, value, nullptr, noreply);
}

void AppendCas(Buffer* out, std::string_view key, uint32_t flags, int64_t exptime,
               std::string_view value, uint64_t cas_unique, bool noreply) {
  AppendStorage(out, "cas", key, flags, exptime, value, &cas_unique, noreply);
}

void AppendDelete(Buffer* out, std::string_view key, bool noreply) {
  AppendKeyCommand(out, "delete", key, nullptr, noreply);
}

void AppendIncr(Buffer* out, std::string_view key, uint64_t delta, bool noreply) {
  AppendArith(out, "incr", key, delta, noreply);
}

void AppendDecr(Buffer* out, std::string_view key, uint64_t delta, bool noreply) {
  AppendArith(out, "decr", key, delta, noreply);
}

void AppendTouch(Buffer* out, std::string_view key, int64_t exptime, bool noreply) {
  AppendKeyCommand(out, "touch", key, &exptime, noreply);
}

void AppendVersion(Buffer* out) { out->Append("version\r\n"); }

void AppendStats(Buffer* out, std::string_view group) {
  Emit(out, 6 + 1 + group.size() + 2, [&](LineWriter& w) {
    w.Put("stats");
    if (!group.empty()) w.Space().Put(group);
    w.End(false);
  });
}

std::map<std::string, std::string> StatsMap(const Reply& reply) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : reply.stats) out[name] = value;
  return out;
}

Reader::Reader(Mode mode, Limits limits)
    : mode_(mode), limits_(limits), lines_(limits.max_line, /*reserve=*/64) {}

void Reader::Reset() {
  StartReply();
  error_.clear();
  failed_ = false;
  phase_ = Phase::kLine;
  lines_.Clear();
}

void Reader::StartReply() {
  summary_.kind = Kind::kError;
  summary_.is_error = false;
  summary_.values = 0;
  summary_.value_bytes = 0;
  summary_.number = 0;
  summary_.error.clear();
  summary_.wire_bytes = 0;
  if (mode_ == Mode::kFull) [[unlikely]] ClearReply(&reply_);
  in_block_ = false;
  emitted_ = false;
}

Reader::Event Reader::Feed(const char* data, size_t len, size_t* consumed) {
  *consumed = 0;
  if (failed_) return Event::kProtocolError;
  if (emitted_) StartReply();
  base_ = summary_.wire_bytes;
  size_t pos = 0;
  while (pos < len) {
    Step step = phase_ == Phase::kLine ? FeedLine(data, len, &pos) : FeedData(data, len, &pos);
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

Reply Reader::TakeReply() { return std::move(reply_); }

Reader::Step Reader::Fail(const std::string& what, size_t offset) {
  error_ = what + " at byte " + std::to_string(offset) + " of the reply";
  failed_ = true;
  return Step::kError;
}

Reader::Step Reader::FeedLine(const char* data, size_t len, size_t* pos) {
  using LineStep = proto::LineAccumulator::Step;
  const LineStep step = lines_.Feed(data, len, base_, pos);
  if (step == LineStep::kLine) return ProcessLine(lines_.line());
  if (step == LineStep::kMore) return Step::kMore;
  return Fail(lines_.error(), lines_.error_offset());
}

Reader::Step Reader::ProcessLine(std::string_view line) {
  std::string_view rest = line;
  const std::string_view word = NextToken(&rest);
  if (word == "ERROR" && rest.empty() && line.size() == 5) return ErrorLine(Kind::kError, {});
  if (word == "CLIENT_ERROR") return ErrorLine(Kind::kClientError, rest);
  if (word == "SERVER_ERROR") return ErrorLine(Kind::kServerError, rest);
  if (word == "VALUE" || word == "STAT" || word == "END") return ProcessBlockLine(line);
  if (in_block_) {
    return Fail(std::string("unexpected ") + Quote(line) + " inside a " +
                    KindName(summary_.kind) + " reply",
                line_start());
  }
  for (const SingleLine& s : kSingles) {
    if (line == s.word) return Single(s.kind, {});
  }
  if (word == "VERSION" && !rest.empty()) return Single(Kind::kVersion, rest);
  if (IsDigits(line)) {
    uint64_t v = 0;
    if (!proto::ParseUint64(line, &v)) return Fail("number " + Quote(line) + " over 2^64", line_start());
    summary_.number = v;
    if (mode_ == Mode::kFull) reply_.number = v;
    return Single(Kind::kNumber, {});
  }
  return Fail("unknown reply line " + Quote(line), line_start());
}

Reader::Step Reader::ProcessBlockLine(std::string_view line) {
  std::string_view rest = line;
  const std::string_view word = NextToken(&rest);
  const Kind kind = word == "STAT" ? Kind::kStats : Kind::kValues;
  if (word == "END") {
    if (!rest.empty() || line.size() != 3) return Fail("bad END line " + Quote(line), line_start());
    if (!in_block_) summary_.kind = Kind::kValues;
    if (mode_ == Mode::kFull) reply_.kind = summary_.kind;
    return Step::kReply;
  }
  if (in_block_ && summary_.kind != kind) {
    return Fail("unexpected " + Quote(line) + " inside a " + KindName(summary_.kind) + " reply",
                line_start());
  }
  summary_.kind = kind;
  in_block_ = true;
  if (summary_.values >= limits_.max_values) {
    return Fail("more than " + std::to_string(limits_.max_values) + " lines in one reply",
                line_start());
  }
  ++summary_.values;
  return kind == Kind::kStats ? AddStat(rest) : StartValue(rest);
}

// `VALUE <key> <flags> <bytes>[ <cas>]`
Reader::Step Reader::StartValue(std::string_view args) {
  const std::string_view all = args;
  const std::string_view key = NextToken(&args);
  const std::string_view flags = NextToken(&args);
  const std::string_view bytes = NextToken(&args);
  const std::string_view cas = NextToken(&args);
  uint64_t flags_v = 0;
  uint64_t bytes_v = 0;
  uint64_t cas_v = 0;
  if (key.empty() || !args.empty() || !proto::ParseUint64(flags, &flags_v) ||
      flags_v > UINT32_MAX || !proto::ParseUint64(bytes, &bytes_v) ||
      (!cas.empty() && !proto::ParseUint64(cas, &cas_v))) {
    return Fail("bad VALUE line " + Quote("VALUE " + std::string(all)), line_start());
  }
  if (bytes_v > limits_.max_value) {
    return Fail("value of " + std::to_string(bytes_v) + " bytes over the limit of " +
                    std::to_string(limits_.max_value),
                line_start());
  }
  if (mode_ == Mode::kFull) {
    Value& v = reply_.values.emplace_back();
    v.key.assign(key);
    v.flags = static_cast<uint32_t>(flags_v);
    v.has_cas = !cas.empty();
    v.cas = cas_v;
    v.data.reserve(std::min<uint64_t>(bytes_v, kMaxDataReserve));
  }
  if (head_max_ > 0 && summary_.values == 1) [[unlikely]] summary_.head.clear();
  summary_.value_bytes += bytes_v;
  data_size_ = bytes_v;
  data_left_ = bytes_v;
  crlf_left_ = 2;
  phase_ = Phase::kData;
  return Step::kMore;
}

// `STAT <name> <value>`; the value may hold spaces (e.g. `STAT version 1.6.18`).
Reader::Step Reader::AddStat(std::string_view args) {
  const size_t sp = args.find(' ');
  if (sp == 0 || sp == std::string_view::npos) {
    return Fail("bad STAT line " + Quote("STAT " + std::string(args)), line_start());
  }
  if (mode_ == Mode::kFull) reply_.stats.emplace_back(args.substr(0, sp), args.substr(sp + 1));
  return Step::kMore;
}

Reader::Step Reader::FeedData(const char* data, size_t len, size_t* pos) {
  if (data_left_ > 0) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(data_left_, len - *pos));
    if (mode_ == Mode::kFull) reply_.values.back().data.append(data + *pos, n);
    if (summary_.head.size() < head_max_ && summary_.values == 1) [[unlikely]] {
      summary_.head.append(data + *pos, std::min(n, head_max_ - summary_.head.size()));
    }
    *pos += n;
    data_left_ -= n;
  }
  while (data_left_ == 0 && crlf_left_ > 0 && *pos < len) {
    const char want = crlf_left_ == 2 ? '\r' : '\n';
    if (data[*pos] != want) {
      return Fail("value of " + std::to_string(data_size_) + " bytes not followed by CRLF",
                  base_ + *pos);
    }
    ++*pos;
    --crlf_left_;
  }
  if (data_left_ == 0 && crlf_left_ == 0) phase_ = Phase::kLine;
  return Step::kMore;
}

Reader::Step Reader::Single(Kind kind, std::string_view text) {
  summary_.kind = kind;
  if (mode_ == Mode::kFull) {
    reply_.kind = kind;
    reply_.text.assign(text);
  }
  return Step::kReply;
}

Reader::Step Reader::ErrorLine(Kind kind, std::string_view message) {
  summary_.kind = kind;
  summary_.is_error = true;
  summary_.values = 0;
  summary_.value_bytes = 0;
  summary_.error.assign(kind == Kind::kError ? std::string_view("ERROR") : message.substr(0, kMaxErrorCopy));
  if (mode_ == Mode::kFull) {
    reply_ = Reply();
    reply_.kind = kind;
    reply_.text.assign(message);
  }
  return Step::kReply;
}

}  // namespace memstand::memcache
