#include "proto/iproto/iproto.h"

#include <msgpuck.h>

#include <algorithm>
#include <initializer_list>

#include "proto/iproto/msgpack.h"
#include "proto/wire_text.h"

namespace memstand::iproto {

namespace {

constexpr size_t kMaxErrorCopy = 256;
constexpr uint32_t kErrorCodeMask = 0x7fff;

// One body field: a uint, a string, or bytes already encoded as MessagePack.
struct Field {
  enum class Kind : uint8_t { kUint, kStr, kRaw };
  uint8_t key;
  Kind kind;
  uint64_t u = 0;
  std::string_view s = {};

  static Field Uint(uint8_t key, uint64_t u) { return {key, Kind::kUint, u}; }
  static Field Str(uint8_t key, std::string_view s) { return {key, Kind::kStr, 0, s}; }
  static Field Raw(uint8_t key, std::string_view s) { return {key, Kind::kRaw, 0, s}; }

  size_t Size() const {
    const size_t value = kind == Kind::kUint  ? mp_sizeof_uint(u)
                         : kind == Kind::kStr ? mp_sizeof_str(static_cast<uint32_t>(s.size()))
                                              : s.size();
    return mp_sizeof_uint(key) + value;
  }
  char* Write(char* p) const {
    p = mp_encode_uint(p, key);
    if (kind == Kind::kUint) return mp_encode_uint(p, u);
    if (kind == Kind::kStr) return mp_encode_str(p, s.data(), static_cast<uint32_t>(s.size()));
    std::copy(s.begin(), s.end(), p);
    return p + s.size();
  }
};

// Appends prefix, header {REQUEST_TYPE: type, SYNC: sync} and, when there are fields,
// the body map. Sizes are computed first, so the packet is written once, in place.
void AppendRequest(Buffer* out, uint32_t type, uint64_t sync, std::initializer_list<Field> body) {
  size_t len = mp_sizeof_map(2) + mp_sizeof_uint(kRequestTypeKey) + mp_sizeof_uint(type) +
               mp_sizeof_uint(kSyncKey) + mp_sizeof_uint(sync);
  if (body.size() > 0) {
    len += mp_sizeof_map(static_cast<uint32_t>(body.size()));
    for (const Field& f : body) len += f.Size();
  }
  out->EnsureWritable(kPrefixSize + len);
  char* p = out->WritePtr();
  *p++ = static_cast<char>(0xce);
  for (int shift = 24; shift >= 0; shift -= 8) *p++ = static_cast<char>((len >> shift) & 0xff);
  p = mp_encode_map(p, 2);
  p = mp_encode_uint(mp_encode_uint(p, kRequestTypeKey), type);
  p = mp_encode_uint(mp_encode_uint(p, kSyncKey), sync);
  if (body.size() > 0) {
    p = mp_encode_map(p, static_cast<uint32_t>(body.size()));
    for (const Field& f : body) p = f.Write(p);
  }
  out->Commit(kPrefixSize + len);
}

void AppendTupleRequest(Buffer* out, uint32_t type, uint64_t sync, uint32_t space_id,
                        std::string_view tuple) {
  AppendRequest(out, type, sync, {Field::Uint(kSpaceIdKey, space_id), Field::Raw(kTupleKey, tuple)});
}

void AppendExprRequest(Buffer* out, uint32_t type, uint8_t key, uint64_t sync,
                       std::string_view text, std::string_view args) {
  AppendRequest(out, type, sync, {Field::Str(key, text), Field::Raw(kTupleKey, args)});
}

// Why a map header could not be read: another type, or a count the bytes cannot hold.
std::string NotAMap(const Cursor& c, const std::string& what) {
  const bool is_map = !c.AtEnd() && c.Peek() == Cursor::Type::kMap;
  return what + (is_map ? " is a truncated MessagePack map" : " is not a MessagePack map");
}

std::string Hex(uint64_t v) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kHex[v & 15]);
    v >>= 4;
  } while (v != 0);
  return "0x" + out;
}

// Mode::kFull's reset of the data, out of line so that StartPacket, run per packet, stays
// small enough for the compiler to put in line in Feed (bench/count_instructions.sh).
[[gnu::noinline, gnu::cold]] void ClearData(Value* data) { *data = Value(); }

}  // namespace

void AppendPing(Buffer* out, uint64_t sync) { AppendRequest(out, kPing, sync, {}); }

void AppendAuth(Buffer* out, uint64_t sync, std::string_view user, std::string_view scramble) {
  constexpr std::string_view kMethod = "chap-sha1";
  char tuple[64];  // array(2) + str(9) + str(20)
  char* p = mp_encode_array(tuple, 2);
  p = mp_encode_str(p, kMethod.data(), static_cast<uint32_t>(kMethod.size()));
  p = mp_encode_str(p, scramble.data(), static_cast<uint32_t>(std::min<size_t>(scramble.size(), 40)));
  AppendRequest(out, kAuth, sync,
                {Field::Str(kUserNameKey, user),
                 Field::Raw(kTupleKey, std::string_view(tuple, static_cast<size_t>(p - tuple)))});
}

void AppendSelect(Buffer* out, uint64_t sync, const SelectRequest& r) {
  AppendRequest(out, kSelect, sync,
                {Field::Uint(kSpaceIdKey, r.space_id), Field::Uint(kIndexIdKey, r.index_id),
                 Field::Uint(kLimitKey, r.limit), Field::Uint(kOffsetKey, r.offset),
                 Field::Uint(kIteratorKey, static_cast<uint64_t>(r.iterator)),
                 Field::Raw(kKeyKey, r.key)});
}

void AppendInsert(Buffer* out, uint64_t sync, uint32_t space_id, std::string_view tuple) {
  AppendTupleRequest(out, kInsert, sync, space_id, tuple);
}

void AppendReplace(Buffer* out, uint64_t sync, uint32_t space_id, std::string_view tuple) {
  AppendTupleRequest(out, kReplace, sync, space_id, tuple);
}

void AppendDelete(Buffer* out, uint64_t sync, uint32_t space_id, uint32_t index_id,
                  std::string_view key) {
  AppendRequest(out, kDelete, sync,
                {Field::Uint(kSpaceIdKey, space_id), Field::Uint(kIndexIdKey, index_id),
                 Field::Raw(kKeyKey, key)});
}

void AppendUpdate(Buffer* out, uint64_t sync, uint32_t space_id, uint32_t index_id,
                  std::string_view key, std::string_view ops) {
  // UPDATE carries its operations under IPROTO_TUPLE (UPSERT under IPROTO_OPS).
  AppendRequest(out, kUpdate, sync,
                {Field::Uint(kSpaceIdKey, space_id), Field::Uint(kIndexIdKey, index_id),
                 Field::Uint(kIndexBaseKey, 1), Field::Raw(kKeyKey, key),
                 Field::Raw(kTupleKey, ops)});
}

void AppendUpsert(Buffer* out, uint64_t sync, uint32_t space_id, std::string_view tuple,
                  std::string_view ops) {
  AppendRequest(out, kUpsert, sync,
                {Field::Uint(kSpaceIdKey, space_id), Field::Uint(kIndexBaseKey, 1),
                 Field::Raw(kTupleKey, tuple), Field::Raw(kOpsKey, ops)});
}

void AppendCall(Buffer* out, uint64_t sync, std::string_view function, std::string_view args) {
  AppendExprRequest(out, kCall, kFunctionNameKey, sync, function, args);
}

void AppendEval(Buffer* out, uint64_t sync, std::string_view expr, std::string_view args) {
  AppendExprRequest(out, kEval, kExprKey, sync, expr, args);
}

Reader::Reader(Mode mode, Limits limits) : mode_(mode), limits_(limits) {}

void Reader::Reset() {
  StartPacket();
  error_.clear();
  failed_ = false;
}

void Reader::StartPacket() {
  // Field by field, so the error strings keep their capacity.
  summary_.sync = 0;
  summary_.status = 0;
  summary_.is_error = false;
  summary_.is_push = false;
  summary_.error_code = 0;
  summary_.error.clear();
  summary_.error_type.clear();
  summary_.schema_version = 0;
  summary_.has_data = false;
  summary_.data_count = 0;
  summary_.data = {};
  summary_.wire_bytes = 0;
  if (mode_ == Mode::kFull) [[unlikely]] ClearData(&data_);
  prefix_len_ = 0;
  body_len_ = 0;
  packet_.clear();
  emitted_ = false;
}

Value Reader::TakeData() { return std::move(data_); }

Reader::Step Reader::Fail(const std::string& what, size_t offset) {
  error_ = what + " at byte " + std::to_string(offset) + " of the response";
  failed_ = true;
  return Step::kError;
}

Reader::Event Reader::Feed(const char* data, size_t len, size_t* consumed) {
  *consumed = 0;
  if (failed_) return Event::kProtocolError;
  if (emitted_) StartPacket();
  size_t pos = 0;
  while (pos < len) {
    Step step = prefix_len_ < kPrefixSize ? FeedPrefix(data, len, &pos) : FeedBody(data, len, &pos);
    if (step == Step::kMore) continue;
    *consumed = pos;
    if (step == Step::kError) return Event::kProtocolError;
    summary_.wire_bytes = kPrefixSize + body_len_;
    emitted_ = true;
    return Event::kReply;
  }
  *consumed = len;
  return Event::kNeedMore;
}

Reader::Step Reader::FeedPrefix(const char* data, size_t len, size_t* pos) {
  if (prefix_len_ == 0 && static_cast<unsigned char>(data[*pos]) != 0xce) {
    const auto c = static_cast<unsigned char>(data[*pos]);
    return Fail("response starts with " + proto::Quote(std::string_view(data + *pos, 1)) + " (" +
                    Hex(c) + "), not the 0xce length prefix of IPROTO,",
                0);
  }
  const size_t n = std::min(kPrefixSize - prefix_len_, len - *pos);
  std::copy_n(data + *pos, n, prefix_ + prefix_len_);
  prefix_len_ += n;
  *pos += n;
  if (prefix_len_ < kPrefixSize) return Step::kMore;
  body_len_ = 0;
  for (size_t i = 1; i < kPrefixSize; ++i) {
    body_len_ = (body_len_ << 8) | static_cast<unsigned char>(prefix_[i]);
  }
  if (body_len_ == 0) return Fail("empty packet (length 0)", 0);
  if (body_len_ > limits_.max_packet) {
    return Fail("packet of " + std::to_string(body_len_) + " bytes over the limit of " +
                    std::to_string(limits_.max_packet),
                0);
  }
  return Step::kMore;
}

Reader::Step Reader::FeedBody(const char* data, size_t len, size_t* pos) {
  const size_t avail = len - *pos;
  if (packet_.empty() && avail >= body_len_) {  // whole in the input: decode in place
    const char* p = data + *pos;
    *pos += body_len_;
    return DecodePacket(p, p + body_len_);
  }
  const size_t n = std::min<size_t>(body_len_ - packet_.size(), avail);
  packet_.append(data + *pos, n);
  *pos += n;
  if (packet_.size() < body_len_) return Step::kMore;
  return DecodePacket(packet_.data(), packet_.data() + packet_.size());
}

Reader::Step Reader::DecodePacket(const char* p, const char* end) {
  Cursor c(p, end);
  if (Step s = DecodeHeader(&c, p); s != Step::kMore) return s;
  if (!c.AtEnd()) {
    if (Step s = DecodeBody(&c, p); s != Step::kMore) return s;
  }
  if (!c.AtEnd()) {
    return Fail(std::to_string(c.left()) + " bytes after the body",
                kPrefixSize + static_cast<size_t>(c.position() - p));
  }
  if ((summary_.status & kTypeError) != 0) {
    summary_.is_error = true;
    summary_.error_code = summary_.status & kErrorCodeMask;
  }
  summary_.is_push = summary_.status == kChunk;
  return Step::kReply;
}

Reader::Step Reader::DecodeHeader(Cursor* c, const char* start) {
  auto offset = [&] { return kPrefixSize + static_cast<size_t>(c->position() - start); };
  uint32_t n = 0;
  if (!c->ReadMap(&n)) return Fail(NotAMap(*c, "header"), offset());
  bool has_status = false;
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t key = 0;
    if (!c->ReadUint(&key)) return Fail("header key is not an unsigned integer", offset());
    uint64_t v = 0;
    if (key == kRequestTypeKey || key == kSyncKey || key == kSchemaVersionKey) {
      if (!c->ReadUint(&v)) return Fail("header value " + Hex(key) + " is not an unsigned integer", offset());
      if (key == kRequestTypeKey) {
        if (v > UINT32_MAX) return Fail("response status " + Hex(v) + " out of range", offset());
        summary_.status = static_cast<uint32_t>(v);
        has_status = true;
      }
      if (key == kSyncKey) summary_.sync = v;
      if (key == kSchemaVersionKey) summary_.schema_version = v;
    } else if (!c->Skip(limits_.max_depth)) {
      return Fail("bad header value for key " + Hex(key), offset());
    }
  }
  if (!has_status) return Fail("header without IPROTO_REQUEST_TYPE", kPrefixSize);
  return Step::kMore;
}

Reader::Step Reader::DecodeBody(Cursor* c, const char* start) {
  auto offset = [&] { return kPrefixSize + static_cast<size_t>(c->position() - start); };
  uint32_t n = 0;
  if (!c->ReadMap(&n)) return Fail(NotAMap(*c, "body"), offset());
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t key = 0;
    if (!c->ReadUint(&key)) return Fail("body key is not an unsigned integer", offset());
    const size_t at = offset();
    if (key == kDataKey) {
      const char* data_start = c->position();
      Cursor header(data_start, data_start + c->left());
      uint32_t count = 0;
      if (!header.ReadArray(&count)) return Fail("IPROTO_DATA is not an array", at);
      if (!c->Skip(limits_.max_depth)) return Fail("bad MessagePack in IPROTO_DATA", at);
      summary_.has_data = true;
      summary_.data_count = count;
      summary_.data = std::string_view(data_start, static_cast<size_t>(c->position() - data_start));
      if (mode_ == Mode::kFull) {
        std::string_view bytes = summary_.data;
        Result<Value> v = Decode(&bytes, limits_.max_depth);
        if (!v.ok()) return Fail(v.status().message() + " in IPROTO_DATA", at);
        data_ = std::move(*v);
      }
    } else if (key == kError24Key) {
      std::string_view s;
      if (!c->ReadStr(&s)) return Fail("IPROTO_ERROR_24 is not a string", at);
      summary_.error.assign(s.substr(0, kMaxErrorCopy));
    } else if (key == kErrorKey) {
      if (Step s = DecodeErrorStack(c, start); s != Step::kMore) return s;
    } else if (!c->Skip(limits_.max_depth)) {
      return Fail("bad body value for key " + Hex(key), at);
    }
  }
  return Step::kMore;
}

// IPROTO_ERROR: {MP_ERROR_STACK: [{MP_ERROR_TYPE: str, MP_ERROR_MESSAGE: str,
// MP_ERROR_CODE: uint, ...}, ...]}. The first entry is the error itself; its message
// fills in for a missing IPROTO_ERROR_24.
Reader::Step Reader::DecodeErrorStack(Cursor* c, const char* start) {
  const size_t at = kPrefixSize + static_cast<size_t>(c->position() - start);
  const char* begin = c->position();
  if (!c->Skip(limits_.max_depth)) return Fail("bad MessagePack in IPROTO_ERROR", at);
  Cursor e(begin, c->position());
  uint32_t n = 0;
  if (!e.ReadMap(&n)) return Fail("IPROTO_ERROR is not a map", at);
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t key = 0;
    uint32_t entries = 0;
    if (!e.ReadUint(&key)) return Fail("IPROTO_ERROR key is not an unsigned integer", at);
    if (key != kErrorStack) {
      e.Skip(limits_.max_depth);
      continue;
    }
    if (!e.ReadArray(&entries)) return Fail("MP_ERROR_STACK is not an array", at);
    if (entries == 0) return Step::kMore;
    uint32_t fields = 0;
    if (!e.ReadMap(&fields)) return Fail("MP_ERROR_STACK entry is not a map", at);
    for (uint32_t f = 0; f < fields; ++f) {
      uint64_t fkey = 0;
      std::string_view s;
      if (!e.ReadUint(&fkey)) return Fail("MP_ERROR key is not an unsigned integer", at);
      if (fkey == kErrorType && e.ReadStr(&s)) {
        summary_.error_type.assign(s.substr(0, kMaxErrorCopy));
      } else if (fkey == kErrorMessage && e.ReadStr(&s)) {
        if (summary_.error.empty()) summary_.error.assign(s.substr(0, kMaxErrorCopy));
      } else {
        e.Skip(limits_.max_depth);
      }
    }
    return Step::kMore;
  }
  return Step::kMore;
}

}  // namespace memstand::iproto
