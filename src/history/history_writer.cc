#include "history/history_writer.h"

#include <algorithm>

#include <fmt/format.h>

#include "history/history_format.h"

namespace memstand::history {

namespace {
constexpr size_t kFlushBytes = size_t{1} << 20;
}  // namespace

Result<HistoryEncoder> HistoryEncoder::Start(const RunHeader& header) {
  const std::pair<const char*, const std::string*> texts[] = {
      {"key prefix", &header.key_prefix}, {"target", &header.target}, {"writer", &header.writer}};
  for (const auto& [name, text] : texts) {
    if (text->size() > format::kMaxHeaderText) {
      return Status::InvalidArgument(fmt::format("history: the {} is {} bytes, above the format's {}", name,
                                                 text->size(), format::kMaxHeaderText));
    }
  }
  if (Status fields = CheckRunHeader(header); !fields.ok()) return fields.WithContext("history: the run header");
  HistoryEncoder e(header);
  e.out_ = format::FileHeader();
  format::PutEntry(format::EntryType::kRunHeader, format::RunHeaderPayload(header), &e.out_);
  return e;
}

Result<uint16_t> HistoryEncoder::Intern(std::string_view text) {
  if (ended_) return Status::InvalidArgument("history: a string after the end entry");
  if (text.empty()) return uint16_t{0};
  const auto it = ids_.find(std::string(text));
  if (it != ids_.end()) return it->second;
  if (text.size() > format::kMaxStringBytes) {
    return Status::InvalidArgument(fmt::format("history: a string of {} bytes, above the format's {}",
                                               text.size(), format::kMaxStringBytes));
  }
  if (strings_ > format::kMaxStrings) {
    return Status::InvalidArgument(fmt::format("history: the string table is full ({} strings)",
                                               format::kMaxStrings));
  }
  const auto id = static_cast<uint16_t>(strings_++);
  std::string payload;
  format::PutU16(id, &payload);
  payload += text;
  format::PutEntry(format::EntryType::kString, payload, &out_);
  ids_.emplace(std::string(text), id);
  return id;
}

Status HistoryEncoder::Add(std::span<const Record> records) {
  if (ended_) return Status::InvalidArgument("history: records after the end entry");
  for (const Record& r : records) {
    if (Status s = CheckRecord(r, header_, strings_); !s.ok()) return s.WithContext("history");
  }
  for (size_t at = 0; at < records.size(); at += format::kMaxRecordsPerEntry) {
    const size_t n = std::min(format::kMaxRecordsPerEntry, records.size() - at);
    format::PutRecordsEntry(records.subspan(at, n), &out_);
  }
  records_ += records.size();
  return Status::OK();
}

Result<std::string_view> HistoryEncoder::AddTrustedEntry(std::span<const Record> records) {
  if (ended_) return Status::InvalidArgument("history: records after the end entry");
  records_ += records.size();
  if constexpr (format::kRecordAsInMemory) {
    format::PutRecordsEntryHeader(records, &out_);
    return std::string_view(reinterpret_cast<const char*>(records.data()), records.size() * format::kRecordSize);
  } else {
    format::PutRecordsEntry(records, &out_);
    return std::string_view();
  }
}

Status HistoryEncoder::AddEvent(const Event& event) {
  if (ended_) return Status::InvalidArgument("history: an event after the end entry");
  if (Status s = CheckEvent(event); !s.ok()) return s.WithContext("history");
  if (events_ >= format::kMaxEvents) {
    return Status::InvalidArgument(fmt::format("history: more than {} events", format::kMaxEvents));
  }
  format::PutEntry(format::EntryType::kEvent, format::EventPayload(event), &out_);
  ++events_;
  return Status::OK();
}

void HistoryEncoder::End() {
  std::string payload;
  format::PutU64(records_, &payload);
  format::PutEntry(format::EntryType::kEnd, payload, &out_);
  ended_ = true;
}

void HistoryEncoder::Reuse(std::string buffer) {
  if (!out_.empty()) return;
  buffer.clear();
  out_.swap(buffer);
}

std::string HistoryEncoder::Take() {
  std::string taken;
  taken.swap(out_);
  return taken;
}

Result<std::unique_ptr<HistoryFileWriter>> HistoryFileWriter::Open(const std::string& flag,
                                                                    const std::string& path,
                                                                    const RunHeader& header) {
  auto encoder = HistoryEncoder::Start(header);
  if (!encoder.ok()) return encoder.status();
  auto file = OutputFile::Open(flag, path);
  if (!file.ok()) return file.status();
  return std::unique_ptr<HistoryFileWriter>(new HistoryFileWriter(std::move(*file), std::move(*encoder)));
}

Status HistoryFileWriter::Flush() {
  std::string bytes = encoder_.Take();
  if (status_.ok()) status_ = file_->Write(bytes);
  encoder_.Reuse(std::move(bytes));  // its capacity: the next megabyte is not grown again
  return status_;
}

Status HistoryFileWriter::Add(std::span<const Record> records) {
  if (!status_.ok()) return status_;
  status_ = encoder_.Add(records);
  if (status_.ok() && encoder_.pending_bytes() >= kFlushBytes) Flush();
  return status_;
}

Status HistoryFileWriter::AddTrusted(std::span<const Record> records) {
  for (size_t at = 0; at < records.size() && status_.ok(); at += format::kMaxRecordsPerEntry) {
    const size_t n = std::min(format::kMaxRecordsPerEntry, records.size() - at);
    const Result<std::string_view> in_place = encoder_.AddTrustedEntry(records.subspan(at, n));
    if (!in_place.ok()) {
      status_ = in_place.status();
    } else if (!in_place->empty() && Flush().ok()) {  // the header (and strings) first
      status_ = file_->Write(*in_place);
    }
  }
  if (status_.ok() && encoder_.pending_bytes() >= kFlushBytes) Flush();
  return status_;
}

Status HistoryFileWriter::AddEvent(const Event& event) {
  if (!status_.ok()) return status_;
  status_ = encoder_.AddEvent(event);
  if (status_.ok() && encoder_.pending_bytes() >= kFlushBytes) Flush();
  return status_;
}

Status HistoryFileWriter::Finish() {
  if (!status_.ok()) return status_;
  encoder_.End();
  if (!Flush().ok()) return status_;
  status_ = file_->Commit();
  return status_;
}

}  // namespace memstand::history
