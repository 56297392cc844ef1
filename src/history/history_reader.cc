#include "history/history_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "history/history_format.h"

namespace memstand::history {
namespace {

using format::EntryType;

// "a records entry", "an end entry".
const char* AnEntry(uint8_t type) {
  switch (static_cast<EntryType>(type)) {
    case EntryType::kRunHeader: return "a run header entry";
    case EntryType::kString: return "a string entry";
    case EntryType::kRecords: return "a records entry";
    case EntryType::kEnd: return "an end entry";
    case EntryType::kEvent: return "an event entry";
  }
  return "an entry of unknown type";
}

// The payload length an entry's type allows beyond its maximum: "" when it fits.
std::string LengthFault(uint8_t type, uint32_t length, uint32_t version) {
  switch (static_cast<EntryType>(type)) {
    case EntryType::kRunHeader:
      if (length < format::RunHeaderFixed(version) + 6) {
        return fmt::format("is shorter than its fixed fields ({} bytes)", format::RunHeaderFixed(version) + 6);
      }
      break;
    case EntryType::kString:
      if (length < 2) return "is shorter than its id (2 bytes)";
      break;
    case EntryType::kRecords:
      if (version == 1 && (length == 0 || length % format::kRecordSizeV1 != 0)) {
        return "is not a whole number (1 or more) of 72-byte records";
      }
      if (version != 1 && length < format::kRecordBaseV2) return "is shorter than a record (40 bytes)";
      break;
    case EntryType::kEnd:
      if (length != format::kEndPayload) return "is not 8 bytes (the record count)";
      break;
    case EntryType::kEvent:
      if (length < format::kEventFixed) return "is shorter than its fixed fields (22 bytes)";
      break;
  }
  if (length > format::MaxPayload(type, version)) {
    return fmt::format("is above its limit of {} bytes", format::MaxPayload(type, version));
  }
  return "";
}

// Reads a length-prefixed text of at most `max` bytes from `p` (`left` bytes).
bool TakeText(const char** p, size_t* left, std::string* out, size_t max = format::kMaxHeaderText) {
  if (*left < 2) return false;
  const uint16_t n = format::GetU16(*p);
  if (n > max || *left < 2u + n) return false;
  out->assign(*p + 2, n);
  *p += 2 + n;
  *left -= 2 + n;
  return true;
}

// The first pair of records (indices into rs, in `order`) for which same(a, b) holds
// among neighbours of the order: duplicates found by sorting.
template <typename Less, typename Same>
std::optional<std::pair<size_t, size_t>> FirstDuplicate(const std::vector<Record>& rs, Less less, Same same) {
  std::vector<size_t> order(rs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return less(rs[a], rs[b]); });
  for (size_t i = 1; i < order.size(); ++i) {
    if (same(rs[order[i - 1]], rs[order[i]])) return std::pair{order[i - 1], order[i]};
  }
  return std::nullopt;
}

// A client's operations, in seq order, one after another; none after an unknown outcome.
// `clamp` (version 2): an operation invoked before its client's previous one completed
// is moved to that completion (and its own completion to no earlier), rather than
// refused: the engine stamps a request with its loop's time, which may precede the end
// of the previous operation handled in the same wake-up.
std::string CheckClients(std::vector<Record>& rs, bool clamp) {
  std::vector<size_t> order(rs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return rs[a].client != rs[b].client ? rs[a].client < rs[b].client : rs[a].seq < rs[b].seq;
  });
  for (size_t i = 1; i < order.size(); ++i) {
    const Record& a = rs[order[i - 1]];
    Record& b = rs[order[i]];
    if (a.client != b.client) continue;
    if (a.outcome == Outcome::kUnknown) {
      return fmt::format("client {}: op {} (seq {}) follows op {} (seq {}), whose outcome is unknown (after an "
                         "unknown outcome a client's next operation takes a new client id)",
                         a.client, b.op_id, b.seq, a.op_id, a.seq);
    }
    if (clamp && b.invoke_ns < a.complete_ns) {
      b.invoke_ns = a.complete_ns;
      b.complete_ns = std::max(b.complete_ns, b.invoke_ns);
    }
    if (b.invoke_ns < a.complete_ns) {
      return fmt::format("client {}: op {} (seq {}) is invoked at {} ns, before op {} (seq {}) completed at {} ns "
                         "(a client has one operation in flight at a time)",
                         a.client, b.op_id, b.seq, b.invoke_ns, a.op_id, a.seq, a.complete_ns);
    }
  }
  return "";
}

}  // namespace

HistoryReader::HistoryReader(std::string name, uint64_t max_records)
    : name_(std::move(name)), max_records_(max_records), need_(format::kFileHeaderSize) {}

Status HistoryReader::Fail(uint64_t offset, const std::string& what) {
  status_ = Status::InvalidArgument(fmt::format("{}: offset {}: {}", name_, offset, what));
  return status_;
}

Status HistoryReader::Feed(std::string_view bytes) {
  while (status_.ok() && !bytes.empty()) {
    if (stage_ == Stage::kDone) return Fail(consumed_, "bytes after the end entry");
    const size_t take = std::min(need_ - pending_.size(), bytes.size());
    pending_.append(bytes.data(), take);
    bytes.remove_prefix(take);
    consumed_ += take;
    if (pending_.size() < need_) break;
    switch (stage_) {
      case Stage::kFileHeader: TakeFileHeader(); break;
      case Stage::kEntryHeader: TakeEntryHeader(); break;
      case Stage::kPayload: TakeEntry(); break;
      case Stage::kDone: break;
    }
  }
  return status_;
}

Status HistoryReader::TakeFileHeader() {
  if (std::string_view(pending_).substr(0, format::kMagic.size()) != format::kMagic) {
    return Fail(0, "not a memstand history: it does not begin with 'memstand.history'");
  }
  const uint32_t version = format::GetU32(pending_.data() + 16);
  if (version < format::kOldestVersion || version > format::kVersion) {
    return Fail(16, fmt::format("format version {}; this memstand reads versions {} to {}", version,
                                format::kOldestVersion, format::kVersion));
  }
  history_.version = version;
  const uint32_t flags = format::GetU32(pending_.data() + 20);
  if (flags != 0) return Fail(20, fmt::format("file flags {:#x}: version {} defines none", flags, version));
  pending_.clear();
  stage_ = Stage::kEntryHeader;
  need_ = format::kEntryHeaderSize;
  entry_offset_ = consumed_;
  return status_;
}

Status HistoryReader::TakeEntryHeader() {
  type_ = static_cast<uint8_t>(pending_[0]);
  const uint32_t length = format::GetU32(pending_.data() + 1);
  crc_ = format::GetU32(pending_.data() + 5);
  if (format::MaxPayload(type_, history_.version) == 0) {
    return Fail(entry_offset_, fmt::format("entry type {} is not one of 1 (run header), 2 (string), "
                                           "3 (records), 4 (end), 5 (event)", type_));
  }
  if (const std::string fault = LengthFault(type_, length, history_.version); !fault.empty()) {
    return Fail(entry_offset_, fmt::format("{} of {} bytes: the length {}", AnEntry(type_), length, fault));
  }
  const bool is_header = static_cast<EntryType>(type_) == EntryType::kRunHeader;
  if (!have_run_header_ && !is_header) {
    return Fail(entry_offset_, fmt::format("the first entry is {}, not the run header", AnEntry(type_)));
  }
  if (have_run_header_ && is_header) return Fail(entry_offset_, "a second run header");
  pending_.clear();
  stage_ = Stage::kPayload;
  need_ = length;
  return status_;
}

Status HistoryReader::TakeEntry() {
  const uint32_t computed = format::EntryCrc(type_, static_cast<uint32_t>(pending_.size()), pending_);
  if (computed != crc_) {
    return Fail(entry_offset_, fmt::format("{}'s checksum is {:#010x}, its bytes give {:#010x}: the entry is "
                                           "damaged", AnEntry(type_), crc_, computed));
  }
  switch (static_cast<EntryType>(type_)) {
    case EntryType::kRunHeader: TakeRunHeader(); break;
    case EntryType::kString: TakeString(); break;
    case EntryType::kRecords: TakeRecords(); break;
    case EntryType::kEnd: TakeEnd(); break;
    case EntryType::kEvent: TakeEvent(); break;
  }
  if (!status_.ok()) return status_;
  pending_.clear();
  if (stage_ != Stage::kDone) {
    stage_ = Stage::kEntryHeader;
    need_ = format::kEntryHeaderSize;
  }
  entry_offset_ = consumed_;
  return status_;
}

Status HistoryReader::TakeRunHeader() {
  const char* p = pending_.data();
  RunHeader& h = history_.header;
  const auto kind = static_cast<uint8_t>(p[0]);
  if (kind < 1 || kind > 4) {
    return Fail(entry_offset_, fmt::format("run header: target kind {} is not 1 (redis), 2 (memcache), "
                                           "3 (tarantool) or 4 (etcd)", kind));
  }
  h.target_kind = static_cast<TargetKind>(kind);
  const auto flags = static_cast<uint8_t>(p[1]);
  if ((flags & ~(format::kFlagOpenLoop | format::kFlagKeysFresh | format::kFlagKeyNumbers)) != 0) {
    return Fail(entry_offset_, fmt::format("run header: flags {:#04x} hold bits version {} does not define", flags,
                                           history_.version));
  }
  h.open_loop = (flags & format::kFlagOpenLoop) != 0;
  h.keys_fresh = (flags & format::kFlagKeysFresh) != 0;
  h.key_numbers = (flags & format::kFlagKeyNumbers) != 0;
  h.value_field = format::GetU16(p + 2);
  h.run_tag = format::GetU32(p + 4);
  h.start_unix_ns = static_cast<int64_t>(format::GetU64(p + 8));
  h.space = format::GetU32(p + 16);
  if (history_.version != 1) h.start_mono_ns = static_cast<int64_t>(format::GetU64(p + 20));
  const size_t fixed = format::RunHeaderFixed(history_.version);
  const char* at = p + fixed;
  size_t left = pending_.size() - fixed;
  for (std::string* text : {&h.key_prefix, &h.target, &h.writer}) {
    if (!TakeText(&at, &left, text)) {
      return Fail(entry_offset_, "run header: a text (key prefix, target, writer) runs past the entry or "
                                 "above 1024 bytes");
    }
  }
  if (left != 0) return Fail(entry_offset_, fmt::format("run header: {} bytes after its last text", left));
  if (Status fields = CheckRunHeader(h); !fields.ok()) return Fail(entry_offset_, "run header: " + fields.message());
  have_run_header_ = true;
  return status_;
}

Status HistoryReader::TakeString() {
  const uint16_t id = format::GetU16(pending_.data());
  if (id != history_.strings.size()) {
    return Fail(entry_offset_, fmt::format("string id {} where id {} comes next (ids count up from 1)", id,
                                           history_.strings.size()));
  }
  if (history_.strings.size() > format::kMaxStrings) return Fail(entry_offset_, "more than 65535 strings");
  std::string text = pending_.substr(2);
  if (text.empty()) return Fail(entry_offset_, fmt::format("string id {} is empty (id 0 is the empty one)", id));
  const auto [it, fresh] = string_ids_.emplace(text, id);
  if (!fresh) return Fail(entry_offset_, fmt::format("string id {} repeats the text of id {}", id, it->second));
  history_.strings.push_back(std::move(text));
  return status_;
}

Status HistoryReader::TakeRecords() { return history_.version == 1 ? TakeRecordsV1() : TakeRecordsV2(); }

Status HistoryReader::TakeRecordsV1() {
  const size_t n = pending_.size() / format::kRecordSizeV1;
  if (history_.records.size() + n > max_records_) {
    return Fail(entry_offset_, fmt::format("more than {} records", max_records_));
  }
  for (size_t i = 0; i < n; ++i) {
    uint8_t reserved = 0;
    const uint64_t at = entry_offset_ + format::kEntryHeaderSize + i * format::kRecordSizeV1;
    const Record r = format::GetRecordV1(pending_.data() + i * format::kRecordSizeV1, &reserved);
    if (reserved != 0) return Fail(at, fmt::format("record op {}: reserved byte {} is not 0", r.op_id, reserved));
    if (Status s = CheckRecord(r, history_.header, history_.strings.size()); !s.ok()) {
      return Fail(at, s.message());
    }
    history_.records.push_back(r);
  }
  return status_;
}

Status HistoryReader::TakeRecordsV2() {
  const RunHeader& h = history_.header;
  // The monotonic clock's readings made relative to time 0, in unsigned arithmetic
  // (whatever the bytes, no overflow).
  const auto relative = [t0 = static_cast<uint64_t>(h.start_mono_ns)](int64_t raw) {
    return static_cast<int64_t>(static_cast<uint64_t>(raw) - t0);
  };
  for (size_t pos = 0; pos < pending_.size();) {
    const uint64_t at = entry_offset_ + format::kEntryHeaderSize + pos;
    const uint64_t op = history_.records.size();
    if (op >= max_records_) return Fail(entry_offset_, fmt::format("more than {} records", max_records_));
    size_t size = 0;
    uint8_t extras = 0;
    Record r = format::GetRecordV2(pending_.data() + pos, pending_.size() - pos, &size, &extras);
    if (size == 0) {
      return Fail(at, fmt::format("record op {}: it runs past its entry's end ({} bytes left; a record is 40 "
                                  "bytes and 8 for each extra its last byte names)",
                                  op, pending_.size() - pos));
    }
    r.op_id = op;
    if ((extras & ~format::kExtrasAll) != 0) {
      return Fail(at, fmt::format("record op {}: extras byte {:#04x} holds bits version 2 does not define", op,
                                  extras));
    }
    if ((extras & format::kExtraValue) != 0 && r.value == 0) {
      return Fail(at, fmt::format("record op {}: a value extra of 0 (a value of 0 is left out)", op));
    }
    if ((extras & format::kExtraRevision) != 0 && r.revision == 0) {
      return Fail(at, fmt::format("record op {}: a revision extra of 0 (a revision of 0 is left out)", op));
    }
    if (((extras & format::kExtraIntended) != 0) != h.open_loop) {
      return Fail(at, fmt::format("record op {}: {}", op,
                                  h.open_loop ? "no intended time in an open-loop run (the run header says open loop)"
                                              : "an intended time in a closed-loop run (the run header says closed "
                                                "loop)"));
    }
    r.invoke_ns = relative(r.invoke_ns);
    r.complete_ns = relative(r.complete_ns);
    if (h.open_loop) r.intended_ns = relative(r.intended_ns);
    // The engine's completion is the time its loop read the reply at, which a request
    // sent in the same wake-up may be stamped after: never before the invoke.
    r.complete_ns = std::max(r.complete_ns, r.invoke_ns);
    if (Status s = CheckRecord(r, h, history_.strings.size()); !s.ok()) return Fail(at, s.message());
    history_.records.push_back(r);
    pos += size;
  }
  return status_;
}

Status HistoryReader::TakeEvent() {
  if (history_.events.size() >= format::kMaxEvents) {
    return Fail(entry_offset_, fmt::format("more than {} events", format::kMaxEvents));
  }
  Event e;
  e.start_ns = static_cast<int64_t>(format::GetU64(pending_.data()));
  e.end_ns = static_cast<int64_t>(format::GetU64(pending_.data() + 8));
  const char* at = pending_.data() + 16;
  size_t left = pending_.size() - 16;
  const std::pair<std::string*, size_t> texts[] = {
      {&e.action, format::kMaxEventAction}, {&e.target, format::kMaxEventTarget}, {&e.detail, format::kMaxEventDetail}};
  for (const auto& [text, max] : texts) {
    if (!TakeText(&at, &left, text, max)) {
      return Fail(entry_offset_, "event: a text runs past the entry or above its limit (action 32 bytes, target "
                                 "256, detail 1024)");
    }
  }
  if (left != 0) return Fail(entry_offset_, fmt::format("event: {} bytes after its last text", left));
  if (Status s = CheckEvent(e); !s.ok()) return Fail(entry_offset_, s.message());
  history_.events.push_back(std::move(e));
  return status_;
}

Status HistoryReader::TakeEnd() {
  const uint64_t count = format::GetU64(pending_.data());
  if (count != history_.records.size()) {
    return Fail(entry_offset_, fmt::format("the end entry counts {} records; the file holds {}", count,
                                           history_.records.size()));
  }
  stage_ = Stage::kDone;
  return status_;
}

std::string HistoryReader::WhereCut() const {
  switch (stage_) {
    case Stage::kFileHeader:
      return "the file ends inside its 24-byte header";
    case Stage::kEntryHeader:
      if (pending_.empty()) {
        return fmt::format("the file ends after {} records without its end entry (the writer did not finish)",
                           history_.records.size());
      }
      return "the file ends inside an entry's 9-byte header";
    case Stage::kPayload:
      return fmt::format("the file ends inside {} ({} of its {} bytes present)", AnEntry(type_), pending_.size(),
                         need_);
    case Stage::kDone: break;
  }
  return "";
}

Result<History> HistoryReader::Finish() {
  if (!status_.ok()) return status_;
  if (stage_ != Stage::kDone) return Fail(consumed_, WhereCut());
  auto& rs = history_.records;
  // Version 2 numbers operations by their place: no two alike.
  std::optional<std::pair<size_t, size_t>> op_twice;
  if (history_.version == 1) {
    op_twice = FirstDuplicate(
        rs, [](const Record& a, const Record& b) { return a.op_id < b.op_id; },
        [](const Record& a, const Record& b) { return a.op_id == b.op_id; });
  }
  if (op_twice) {
    return Status::InvalidArgument(fmt::format("{}: op id {} appears twice (records {} and {})", name_,
                                               rs[op_twice->first].op_id, op_twice->first, op_twice->second));
  }
  if (auto d = FirstDuplicate(
          rs, [](const Record& a, const Record& b) { return a.written() < b.written(); },
          [](const Record& a, const Record& b) { return a.written() == b.written(); })) {
    return Status::InvalidArgument(fmt::format("{}: op {} and op {} are both client {} seq {} ((client, seq) "
                                               "is unique: it is the value a write carries)",
                                               name_, rs[d->first].op_id, rs[d->second].op_id,
                                               rs[d->first].client, rs[d->first].seq));
  }
  if (const std::string fault = CheckClients(rs, history_.version != 1); !fault.empty()) {
    return Status::InvalidArgument(name_ + ": " + fault);
  }
  return std::move(history_);
}

Result<History> ParseHistory(const std::string& name, std::string_view bytes, uint64_t max_records) {
  HistoryReader reader(name, max_records);
  if (Status s = reader.Feed(bytes); !s.ok()) return s;
  return reader.Finish();
}

Result<History> ReadHistoryFile(const std::string& path, uint64_t max_records) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::InvalidArgument(path + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    std::fclose(f);
    return Status::InvalidArgument(path + ": not a regular file");
  }
  HistoryReader reader(path, max_records);
  std::vector<char> buf(size_t{1} << 16);
  Status s;
  while (s.ok()) {
    const size_t n = std::fread(buf.data(), 1, buf.size(), f);
    if (n > 0) s = reader.Feed(std::string_view(buf.data(), n));
    if (n < buf.size()) break;
  }
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (!s.ok()) return s;
  if (failed) return Status::InvalidArgument(path + ": " + std::strerror(err));
  return reader.Finish();
}

}  // namespace memstand::history
