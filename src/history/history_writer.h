// Writing a history (docs/history.md): HistoryEncoder turns a run header, strings and
// records into the file's bytes; HistoryFileWriter puts them in a file that appears
// whole or not at all (util/output_file.h). Neither is thread-safe: one writer thread
// takes the records the engine's threads hand it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "history/history_format.h"
#include "history/record.h"
#include "util/output_file.h"
#include "util/status.h"

namespace memstand::history {

class HistoryEncoder {
 public:
  /// Starts with the file header and the run header, in format `version` (1 or 2; a
  /// memstand writes 2, tests of the reader of version 1 files write 1). InvalidArgument
  /// when a header text (key prefix, target, writer) is longer than
  /// format::kMaxHeaderText bytes, or for another version.
  static Result<HistoryEncoder> Start(const RunHeader& header, uint32_t version = format::kVersion);

  /// The id of `text` in the string table: a string entry is added the first time.
  /// "" is id 0. InvalidArgument when it is longer than format::kMaxStringBytes, the
  /// table is full, or End() was called.
  Result<uint16_t> Intern(std::string_view text);
  /// Appends the records, in entries as large as the format allows, after checking each
  /// with CheckRecord and, in version 2, that its op id is its place in the file (the
  /// count of records before it: version 2 does not store it): on the first that fails,
  /// InvalidArgument and nothing of this call is appended. After End(): InvalidArgument.
  Status Add(std::span<const Record> records);
  /// The header of one version 2 records entry whose payload is `payload`: `records`
  /// records as the engine lays them out (load/history_log.h), which keeps
  /// CheckRecord's rules by construction; not checked (the reader checks every record).
  /// The payload itself is the caller's to write, after the bytes pending, from where
  /// it is. InvalidArgument after End(), in a version 1 file, or for a payload of 0 or
  /// more than format::kMaxRecordsPayloadV2 bytes.
  Status AddEngineEntry(std::string_view payload, uint64_t records);
  /// Appends an event entry (a nemesis action), after checking it with CheckEvent:
  /// InvalidArgument, and nothing appended, when it fails, when the file holds
  /// format::kMaxEvents already, or after End().
  Status AddEvent(const Event& event);
  /// Appends the end entry (the count of records). Nothing may be added after it.
  void End();

  /// The bytes encoded since the last Take (the first call: from the file header on).
  std::string Take();
  /// A string Take returned, given back so that its capacity holds the next bytes
  /// (ignored when bytes were encoded since).
  void Reuse(std::string buffer);
  size_t pending_bytes() const { return out_.size(); }
  uint64_t records() const { return records_; }
  uint64_t events() const { return events_; }
  const RunHeader& header() const { return header_; }
  uint32_t version() const { return version_; }

 private:
  HistoryEncoder(RunHeader header, uint32_t version) : header_(std::move(header)), version_(version) {}

  RunHeader header_;
  uint32_t version_;
  std::string out_;
  std::unordered_map<std::string, uint16_t> ids_;
  size_t strings_ = 1;  // the table's size, id 0 included
  uint64_t records_ = 0;
  uint64_t events_ = 0;
  bool ended_ = false;
};

/// A whole history's bytes, in its own version (`h.version`): its strings in table
/// order, its records, its events, the end. InvalidArgument as the encoder's, or when
/// the string table is not one the encoder makes (a text twice, an empty one).
Result<std::string> EncodeHistory(const History& h);

class HistoryFileWriter {
 public:
  /// Prepares `path` (the output of `flag`, for messages; see OutputFile::Open) and
  /// encodes the header. InvalidArgument for a path that cannot be written or a header
  /// the encoder refuses.
  static Result<std::unique_ptr<HistoryFileWriter>> Open(const std::string& flag, const std::string& path,
                                                         const RunHeader& header,
                                                         uint32_t version = format::kVersion);
  Result<uint16_t> Intern(std::string_view text) { return encoder_.Intern(text); }
  /// Encodes the records and writes the buffer to the file once it holds 1 MiB. The first
  /// error (a record refused, a failed write) is returned again by every later call.
  Status Add(std::span<const Record> records);
  /// The engine's records, `records` of them laid out in `bytes` as version 2 has them
  /// (HistoryEncoder::AddEngineEntry), as one entry: neither checked nor copied into the
  /// buffer, so that a record costs its CRC alone (bench/README.md, "The history's
  /// cost"). REQUIRES: bytes holds whole records, 1 to format::kMaxRecordsPayloadV2
  /// bytes of them (else an error, which sticks as Add's).
  Status AddEngineRecords(std::string_view bytes, uint64_t records);
  /// Encodes an event (HistoryEncoder::AddEvent); the first error sticks as for Add.
  Status AddEvent(const Event& event);
  /// The end entry, the rest of the buffer, and the file put in place. Call once.
  Status Finish();

 private:
  HistoryFileWriter(std::unique_ptr<OutputFile> file, HistoryEncoder encoder)
      : file_(std::move(file)), encoder_(std::move(encoder)) {}
  Status Flush();

  std::unique_ptr<OutputFile> file_;
  HistoryEncoder encoder_;
  Status status_;
};

}  // namespace memstand::history
