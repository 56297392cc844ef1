// The bytes of a history file (docs/history.md has the grammar): a file header, then
// entries, each a type, a length, a CRC-32C and a payload. Little-endian throughout.
// Shared by the encoder (history_writer.h) and the reader (history_reader.h).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "history/record.h"

namespace memstand::history::format {

inline constexpr std::string_view kMagic = "memstand.history";  // 16 bytes
/// The version written (HistoryEncoder's default); a reader takes 1 and 2.
inline constexpr uint32_t kVersion = 2;
inline constexpr uint32_t kOldestVersion = 1;
/// magic, version (u32), flags (u32, 0 in versions 1 and 2).
inline constexpr size_t kFileHeaderSize = 24;
/// type (u8), payload length (u32), CRC-32C (u32) of the type, the length and the payload.
inline constexpr size_t kEntryHeaderSize = 9;

enum class EntryType : uint8_t { kRunHeader = 1, kString = 2, kRecords = 3, kEnd = 4, kEvent = 5 };

/// Version 1: a record is 72 bytes, every field present; a records entry holds
/// 1..kMaxRecordsPerEntryV1 of them (at most 288 KiB of payload).
inline constexpr size_t kRecordSizeV1 = 72;
inline constexpr size_t kMaxRecordsPerEntryV1 = 4096;
/// Version 2: a record is 40 bytes (client, seq, invoke, completion, key, and node,
/// error, f, outcome, seen and its extras byte), then an 8-byte word for each extra it
/// has, in this order: a read's value (or a cas's expected one), etcd's revision, open
/// loop's intended time. A records entry holds whole records, 1..kMaxRecordsPayloadV2
/// bytes of them.
inline constexpr size_t kRecordBaseV2 = 40;
inline constexpr uint8_t kExtraValue = 1;
inline constexpr uint8_t kExtraRevision = 2;
inline constexpr uint8_t kExtraIntended = 4;
inline constexpr uint8_t kExtrasAll = kExtraValue | kExtraRevision | kExtraIntended;
inline constexpr size_t kMaxRecordSizeV2 = kRecordBaseV2 + 3 * 8;
inline constexpr size_t kMaxRecordsPayloadV2 = size_t{256} << 10;
/// A string entry: its id (u16) and at most this many bytes.
inline constexpr size_t kMaxStringBytes = 1024;
/// Ids 1..kMaxStrings (id 0 is "none").
inline constexpr size_t kMaxStrings = 65535;
/// Each of the run header's texts (key prefix, target, writer).
inline constexpr size_t kMaxHeaderText = 1024;
/// kind, flags, value field (u16), run tag (u32), start (i64), space (u32); version 2
/// adds the monotonic start (i64). Then three texts (u16 length each).
inline constexpr size_t kRunHeaderFixedV1 = 20;
inline constexpr size_t kRunHeaderFixedV2 = 28;
inline constexpr size_t RunHeaderFixed(uint32_t version) {
  return version == 1 ? kRunHeaderFixedV1 : kRunHeaderFixedV2;
}
inline constexpr size_t kEndPayload = 8;  // the number of records (u64)
/// An event (a nemesis action): start (i64), end (i64), then three texts (u16 length
/// each): the action, the target, the detail, each at most so many bytes.
inline constexpr size_t kEventFixed = 22;
inline constexpr size_t kMaxEventAction = 32;
inline constexpr size_t kMaxEventTarget = 256;
inline constexpr size_t kMaxEventDetail = 1024;
inline constexpr size_t kMaxEventPayload = kEventFixed + kMaxEventAction + kMaxEventTarget + kMaxEventDetail;
/// Events a file may hold (a nemesis acts a few times a run): more are refused.
inline constexpr size_t kMaxEvents = 65536;

/// Run header flags (a bit each; the others must be 0).
inline constexpr uint8_t kFlagOpenLoop = 1;
inline constexpr uint8_t kFlagKeysFresh = 2;
inline constexpr uint8_t kFlagKeyNumbers = 4;

/// The largest payload an entry of `type` may have in a file of `version`; 0 for an
/// unknown type.
size_t MaxPayload(uint8_t type, uint32_t version);

void PutU16(uint16_t v, std::string* out);
void PutU32(uint32_t v, std::string* out);
void PutU64(uint64_t v, std::string* out);
uint16_t GetU16(const char* p);
uint32_t GetU32(const char* p);
uint64_t GetU64(const char* p);

/// The file header of `version`.
std::string FileHeader(uint32_t version = kVersion);
/// One entry: its header (with the CRC) and the payload.
void PutEntry(EntryType type, std::string_view payload, std::string* out);
/// The CRC an entry's header carries.
uint32_t EntryCrc(uint8_t type, uint32_t length, std::string_view payload);
/// The header alone of a records entry whose payload is `payload` (its CRC computed
/// over it where it is): the payload is written from there, not copied
/// (HistoryFileWriter::AddEngineRecords).
void PutRecordsEntryHeader(std::string_view payload, std::string* out);

/// The run header's payload in a file of `version` (version 1 has no monotonic start).
/// REQUIRES: each text at most kMaxHeaderText bytes.
std::string RunHeaderPayload(const RunHeader& h, uint32_t version = kVersion);
/// An event's payload. REQUIRES: CheckEvent(e) holds (its texts within their limits).
std::string EventPayload(const Event& e);

/// Version 1: one record's kRecordSizeV1 bytes, appended to out field by field.
void PutRecordV1(const Record& r, std::string* out);
/// A version 1 record from kRecordSizeV1 bytes, as they are: enum fields may hold any
/// byte (CheckRecord says whether they are valid). `reserved` gets the last byte.
Record GetRecordV1(const char* p, uint8_t* reserved);

/// Version 2: a record's bytes (40, and 8 for each extra), its times moved onto the
/// monotonic clock (`start_mono_ns` added) and its op id left out (its place in the
/// file says it). Extras: the value when not 0, the revision when not 0, the intended
/// time when `open_loop`. REQUIRES: r.intended_ns set (>= 0) when open_loop.
void PutRecordV2(const Record& r, bool open_loop, int64_t start_mono_ns, std::string* out);
/// The last 8 bytes of a version 2 record's base as one number: node, error, f,
/// outcome, seen and the extras byte, little-endian (the engine stores them at once).
constexpr uint64_t TailV2(uint16_t node, uint16_t error, Op f, Outcome outcome, Seen seen, uint8_t extras = 0) {
  return uint64_t{node} | uint64_t{error} << 16 | uint64_t{static_cast<uint8_t>(f)} << 32 |
         uint64_t{static_cast<uint8_t>(outcome)} << 40 | uint64_t{static_cast<uint8_t>(seen)} << 48 |
         uint64_t{extras} << 56;
}
/// The extras byte of a version 2 record: its value when not 0, its revision when not
/// 0, its intended time in an open-loop run.
constexpr uint8_t ExtrasV2(uint64_t value, int64_t revision, bool open_loop) {
  return static_cast<uint8_t>((value != 0 ? kExtraValue : 0) | (revision != 0 ? kExtraRevision : 0) |
                              (open_loop ? kExtraIntended : 0));
}
/// A version 2 record's 40 bytes stored at `p` as the engine holds its fields, one 8-byte
/// store each: (client, seq) as one number (client + seq * 2^32), the invoke and the
/// completion as the monotonic clock read them, the key and the tail (TailV2). Its
/// extras, if any, are the caller's to store after them.
inline void StoreBaseV2(char* p, uint64_t ids, int64_t invoke, int64_t complete, uint64_t key, uint64_t tail) {
  static_assert(std::endian::native == std::endian::little, "the bytes on disk are little-endian");
  std::memcpy(p, &ids, 8);
  std::memcpy(p + 8, &invoke, 8);
  std::memcpy(p + 16, &complete, 8);
  std::memcpy(p + 24, &key, 8);
  std::memcpy(p + 32, &tail, 8);
}
/// A version 2 record as its bytes say, times still on the monotonic clock and the
/// op id 0: enum fields may hold any byte. *size: its bytes (40 and its extras'); 0 when
/// `left` bytes do not hold it whole. *extras: its extras byte as it is (bits above
/// kExtrasAll are the caller's to refuse, and are not read).
Record GetRecordV2(const char* p, size_t left, size_t* size, uint8_t* extras);

}  // namespace memstand::history::format
