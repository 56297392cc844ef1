// The bytes of a history file (docs/history.md has the grammar): a file header, then
// entries, each a type, a length, a CRC-32C and a payload. Little-endian throughout.
// Shared by the encoder (history_writer.h) and the reader (history_reader.h).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "history/record.h"

namespace memstand::history::format {

inline constexpr std::string_view kMagic = "memstand.history";  // 16 bytes
inline constexpr uint32_t kVersion = 1;
/// magic, version (u32), flags (u32, 0 in version 1).
inline constexpr size_t kFileHeaderSize = 24;
/// type (u8), payload length (u32), CRC-32C (u32) of the type, the length and the payload.
inline constexpr size_t kEntryHeaderSize = 9;

enum class EntryType : uint8_t { kRunHeader = 1, kString = 2, kRecords = 3, kEnd = 4, kEvent = 5 };

inline constexpr size_t kRecordSize = 72;
/// A records entry holds 1..kMaxRecordsPerEntry records (at most 288 KiB of payload).
inline constexpr size_t kMaxRecordsPerEntry = 4096;
/// A string entry: its id (u16) and at most this many bytes.
inline constexpr size_t kMaxStringBytes = 1024;
/// Ids 1..kMaxStrings (id 0 is "none").
inline constexpr size_t kMaxStrings = 65535;
/// Each of the run header's texts (key prefix, target, writer).
inline constexpr size_t kMaxHeaderText = 1024;
/// kind, flags, value field (u16), run tag (u32), start (i64), space (u32), then three
/// texts (u16 length each).
inline constexpr size_t kRunHeaderFixed = 20;
inline constexpr size_t kMaxRunHeaderPayload = kRunHeaderFixed + 3 * (2 + kMaxHeaderText);
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

/// The largest payload an entry of `type` may have; 0 for an unknown type.
size_t MaxPayload(uint8_t type);

void PutU16(uint16_t v, std::string* out);
void PutU32(uint32_t v, std::string* out);
void PutU64(uint64_t v, std::string* out);
uint16_t GetU16(const char* p);
uint32_t GetU32(const char* p);
uint64_t GetU64(const char* p);

/// The file header.
std::string FileHeader();
/// One entry: its header (with the CRC) and the payload.
void PutEntry(EntryType type, std::string_view payload, std::string* out);
/// The CRC an entry's header carries.
uint32_t EntryCrc(uint8_t type, uint32_t length, std::string_view payload);

/// The run header's payload. REQUIRES: each text at most kMaxHeaderText bytes.
std::string RunHeaderPayload(const RunHeader& h);
/// An event's payload. REQUIRES: CheckEvent(e) holds (its texts within their limits).
std::string EventPayload(const Event& e);
/// One record's kRecordSize bytes, appended to out field by field (on any processor).
void PutRecord(const Record& r, std::string* out);

/// A Record's bytes in memory are its bytes on disk (the same offsets, little-endian, no
/// padding): then an entry's payload is its records as they are (a history's writer
/// thread writes every operation's; CheckRecord makes sure `reserved` is 0).
inline constexpr bool kRecordAsInMemory =
    std::endian::native == std::endian::little && sizeof(Record) == kRecordSize && offsetof(Record, op_id) == 0 &&
    offsetof(Record, client) == 8 && offsetof(Record, seq) == 12 && offsetof(Record, invoke_ns) == 16 &&
    offsetof(Record, complete_ns) == 24 && offsetof(Record, intended_ns) == 32 && offsetof(Record, key) == 40 &&
    offsetof(Record, value) == 48 && offsetof(Record, revision) == 56 && offsetof(Record, node) == 64 &&
    offsetof(Record, error) == 66 && offsetof(Record, f) == 68 && offsetof(Record, outcome) == 69 &&
    offsetof(Record, seen) == 70 && offsetof(Record, reserved) == 71;

/// An entry of records, appended to out whole (header, CRC, the records' bytes): copied
/// as they are in memory where that is their layout on disk, else with PutRecord.
/// REQUIRES: 1 to kMaxRecordsPerEntry records.
void PutRecordsEntry(std::span<const Record> records, std::string* out);
/// The header alone of the entry whose payload is `records` as they are in memory, its
/// CRC computed over them where they are: the payload is written from there, not
/// copied (HistoryFileWriter::AddTrusted). REQUIRES: kRecordAsInMemory, 1 to
/// kMaxRecordsPerEntry records.
void PutRecordsEntryHeader(std::span<const Record> records, std::string* out);
/// A record from kRecordSize bytes, as they are: enum fields may hold any byte
/// (CheckRecord says whether they are valid). `reserved` gets the last byte.
Record GetRecord(const char* p, uint8_t* reserved);

}  // namespace memstand::history::format
