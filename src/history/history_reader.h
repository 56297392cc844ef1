// Reading a history back (docs/history.md), strictly: every malformed input is an error
// that names the file, the byte offset and what is wrong, never a crash, a hang or an
// allocation the input's size does not pay for (a payload is buffered only up to its
// type's limit, checked before it is read). HistoryReader is fed bytes like the codecs,
// in pieces of any size, with the same outcome for every split.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "history/record.h"
#include "util/status.h"

namespace memstand::history {

/// More records than a checker could hold: refused rather than read.
inline constexpr uint64_t kDefaultMaxRecords = UINT32_MAX;

class HistoryReader {
 public:
  /// `name` begins every message (a file's path). Not thread-safe.
  explicit HistoryReader(std::string name, uint64_t max_records = kDefaultMaxRecords);

  /// Takes the next bytes. The first error, InvalidArgument "NAME: offset N: what", is
  /// returned again by every later call and by Finish.
  Status Feed(std::string_view bytes);
  /// The input ended: the whole history, or the error (a file cut short, no end entry,
  /// or a check across records: op ids unique, (client, seq) unique, a client's
  /// operations one after another and none after an unknown outcome). Call once.
  Result<History> Finish();

 private:
  enum class Stage { kFileHeader, kEntryHeader, kPayload, kDone };

  Status Fail(uint64_t offset, const std::string& what);
  Status TakeFileHeader();
  Status TakeEntryHeader();
  Status TakeEntry();
  Status TakeRunHeader();
  Status TakeString();
  Status TakeRecords();
  Status TakeRecordsV1();
  Status TakeRecordsV2();
  Status TakeEnd();
  Status TakeEvent();
  std::string WhereCut() const;

  std::string name_;
  uint64_t max_records_;
  Stage stage_ = Stage::kFileHeader;
  std::string pending_;  // the bytes of the part being read (a header or a payload)
  size_t need_;          // its size when whole
  uint64_t consumed_ = 0;      // bytes taken so far
  uint64_t entry_offset_ = 0;  // where the current entry began
  uint8_t type_ = 0;
  uint32_t crc_ = 0;
  bool have_run_header_ = false;
  History history_;
  std::unordered_map<std::string, uint16_t> string_ids_;  // each string once
  Status status_;
};

/// The history in `bytes`, `name` in the messages.
Result<History> ParseHistory(const std::string& name, std::string_view bytes,
                             uint64_t max_records = kDefaultMaxRecords);
/// The history in the file at `path`, read in pieces. InvalidArgument naming the path: a
/// file missing or unreadable (the errno text), not a regular file, or malformed.
Result<History> ReadHistoryFile(const std::string& path, uint64_t max_records = kDefaultMaxRecords);

}  // namespace memstand::history
