#include "history/history_format.h"

#include <bit>
#include <cstddef>
#include <cstring>

#include "history/crc32c.h"

namespace memstand::history::format {

size_t MaxPayload(uint8_t type, uint32_t version) {
  switch (static_cast<EntryType>(type)) {
    case EntryType::kRunHeader: return RunHeaderFixed(version) + 3 * (2 + kMaxHeaderText);
    case EntryType::kString: return 2 + kMaxStringBytes;
    case EntryType::kRecords: return version == 1 ? kMaxRecordsPerEntryV1 * kRecordSizeV1 : kMaxRecordsPayloadV2;
    case EntryType::kEnd: return kEndPayload;
    case EntryType::kEvent: return kMaxEventPayload;
  }
  return 0;
}

void PutU16(uint16_t v, std::string* out) {
  for (int i = 0; i < 2; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
void PutU32(uint32_t v, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
void PutU64(uint64_t v, std::string* out) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

uint16_t GetU16(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint16_t>(b[0] | (b[1] << 8));
}
uint32_t GetU32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return uint32_t{b[0]} | (uint32_t{b[1]} << 8) | (uint32_t{b[2]} << 16) | (uint32_t{b[3]} << 24);
}
uint64_t GetU64(const char* p) { return uint64_t{GetU32(p)} | (uint64_t{GetU32(p + 4)} << 32); }

std::string FileHeader(uint32_t version) {
  std::string out(kMagic);
  PutU32(version, &out);
  PutU32(0, &out);
  return out;
}

uint32_t EntryCrc(uint8_t type, uint32_t length, std::string_view payload) {
  std::string head(1, static_cast<char>(type));
  PutU32(length, &head);
  return Crc32c(payload, Crc32c(head));
}

void PutEntry(EntryType type, std::string_view payload, std::string* out) {
  const auto t = static_cast<uint8_t>(type);
  const auto length = static_cast<uint32_t>(payload.size());
  out->push_back(static_cast<char>(t));
  PutU32(length, out);
  PutU32(EntryCrc(t, length, payload), out);
  out->append(payload);
}

std::string RunHeaderPayload(const RunHeader& h, uint32_t version) {
  std::string out;
  out.push_back(static_cast<char>(h.target_kind));
  out.push_back(static_cast<char>((h.open_loop ? kFlagOpenLoop : 0) | (h.keys_fresh ? kFlagKeysFresh : 0) |
                                  (h.key_numbers ? kFlagKeyNumbers : 0)));
  PutU16(h.value_field, &out);
  PutU32(h.run_tag, &out);
  PutU64(static_cast<uint64_t>(h.start_unix_ns), &out);
  PutU32(h.space, &out);
  if (version != 1) PutU64(static_cast<uint64_t>(h.start_mono_ns), &out);
  for (const std::string* text : {&h.key_prefix, &h.target, &h.writer}) {
    PutU16(static_cast<uint16_t>(text->size()), &out);
    out += *text;
  }
  return out;
}

std::string EventPayload(const Event& e) {
  std::string out;
  PutU64(static_cast<uint64_t>(e.start_ns), &out);
  PutU64(static_cast<uint64_t>(e.end_ns), &out);
  for (const std::string* text : {&e.action, &e.target, &e.detail}) {
    PutU16(static_cast<uint16_t>(text->size()), &out);
    out += *text;
  }
  return out;
}

void PutRecordsEntryHeader(std::string_view payload, std::string* out) {
  const auto length = static_cast<uint32_t>(payload.size());
  const auto type = static_cast<uint8_t>(EntryType::kRecords);
  out->push_back(static_cast<char>(type));
  PutU32(length, out);
  PutU32(EntryCrc(type, length, payload), out);
}

void PutRecordV1(const Record& r, std::string* out) {
  PutU64(r.op_id, out);
  PutU32(r.client, out);
  PutU32(r.seq, out);
  PutU64(static_cast<uint64_t>(r.invoke_ns), out);
  PutU64(static_cast<uint64_t>(r.complete_ns), out);
  PutU64(static_cast<uint64_t>(r.intended_ns), out);
  PutU64(r.key, out);
  PutU64(r.value, out);
  PutU64(static_cast<uint64_t>(r.revision), out);
  PutU16(r.node, out);
  PutU16(r.error, out);
  out->push_back(static_cast<char>(r.f));
  out->push_back(static_cast<char>(r.outcome));
  out->push_back(static_cast<char>(r.seen));
  out->push_back(static_cast<char>(r.reserved));
}

Record GetRecordV1(const char* p, uint8_t* reserved) {
  Record r;
  r.op_id = GetU64(p);
  r.client = GetU32(p + 8);
  r.seq = GetU32(p + 12);
  r.invoke_ns = static_cast<int64_t>(GetU64(p + 16));
  r.complete_ns = static_cast<int64_t>(GetU64(p + 24));
  r.intended_ns = static_cast<int64_t>(GetU64(p + 32));
  r.key = GetU64(p + 40);
  r.value = GetU64(p + 48);
  r.revision = static_cast<int64_t>(GetU64(p + 56));
  r.node = GetU16(p + 64);
  r.error = GetU16(p + 66);
  // The enums are read as bytes: memcpy keeps an out-of-range byte for CheckRecord to
  // name (assigning it through static_cast would be fine too, but this says it).
  std::memcpy(&r.f, p + 68, 1);
  std::memcpy(&r.outcome, p + 69, 1);
  std::memcpy(&r.seen, p + 70, 1);
  *reserved = static_cast<uint8_t>(p[71]);
  return r;
}

void PutRecordV2(const Record& r, bool open_loop, int64_t start_mono_ns, std::string* out) {
  const uint8_t extras = ExtrasV2(r.value, r.revision, open_loop);
  PutU32(r.client, out);
  PutU32(r.seq, out);
  PutU64(static_cast<uint64_t>(r.invoke_ns) + static_cast<uint64_t>(start_mono_ns), out);
  PutU64(static_cast<uint64_t>(r.complete_ns) + static_cast<uint64_t>(start_mono_ns), out);
  PutU64(r.key, out);
  PutU64(TailV2(r.node, r.error, r.f, r.outcome, r.seen, extras), out);
  if ((extras & kExtraValue) != 0) PutU64(r.value, out);
  if ((extras & kExtraRevision) != 0) PutU64(static_cast<uint64_t>(r.revision), out);
  if ((extras & kExtraIntended) != 0) {
    PutU64(static_cast<uint64_t>(r.intended_ns) + static_cast<uint64_t>(start_mono_ns), out);
  }
}

Record GetRecordV2(const char* p, size_t left, size_t* size, uint8_t* extras) {
  Record r;
  *size = 0;
  *extras = 0;
  if (left < kRecordBaseV2) return r;
  const auto x = static_cast<uint8_t>(p[39]);
  const size_t n = kRecordBaseV2 + 8 * static_cast<size_t>(std::popcount(static_cast<unsigned>(x & kExtrasAll)));
  if (left < n) return r;
  *size = n;
  *extras = x;
  r.client = GetU32(p);
  r.seq = GetU32(p + 4);
  r.invoke_ns = static_cast<int64_t>(GetU64(p + 8));
  r.complete_ns = static_cast<int64_t>(GetU64(p + 16));
  r.key = GetU64(p + 24);
  r.node = GetU16(p + 32);
  r.error = GetU16(p + 34);
  std::memcpy(&r.f, p + 36, 1);
  std::memcpy(&r.outcome, p + 37, 1);
  std::memcpy(&r.seen, p + 38, 1);
  const char* extra = p + kRecordBaseV2;
  if ((x & kExtraValue) != 0) {
    r.value = GetU64(extra);
    extra += 8;
  }
  if ((x & kExtraRevision) != 0) {
    r.revision = static_cast<int64_t>(GetU64(extra));
    extra += 8;
  }
  if ((x & kExtraIntended) != 0) r.intended_ns = static_cast<int64_t>(GetU64(extra));
  return r;
}

}  // namespace memstand::history::format
