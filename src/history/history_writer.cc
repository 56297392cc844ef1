#include "history/history_writer.h"

#include <algorithm>

#include <fmt/format.h>

#include "history/history_format.h"

namespace memstand::history {

namespace {
constexpr size_t kFlushBytes = size_t{1} << 20;
}  // namespace

Result<HistoryEncoder> HistoryEncoder::Start(const RunHeader& header, uint32_t version) {
  if (version < format::kOldestVersion || version > format::kVersion) {
    return Status::InvalidArgument(fmt::format("history: format version {} (this memstand writes 1 and 2)", version));
  }
  const std::pair<const char*, const std::string*> texts[] = {
      {"key prefix", &header.key_prefix}, {"target", &header.target}, {"writer", &header.writer}};
  for (const auto& [name, text] : texts) {
    if (text->size() > format::kMaxHeaderText) {
      return Status::InvalidArgument(fmt::format("history: the {} is {} bytes, above the format's {}", name,
                                                 text->size(), format::kMaxHeaderText));
    }
  }
  if (Status fields = CheckRunHeader(header); !fields.ok()) return fields.WithContext("history: the run header");
  HistoryEncoder e(header, version);
  if (version == 1) e.header_.start_mono_ns = 0;  // version 1 has none
  e.out_ = format::FileHeader(version);
  format::PutEntry(format::EntryType::kRunHeader, format::RunHeaderPayload(e.header_, version), &e.out_);
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
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    if (Status s = CheckRecord(r, header_, strings_); !s.ok()) return s.WithContext("history");
    if (version_ != 1 && r.op_id != records_ + i) {
      return Status::InvalidArgument(fmt::format("history: record op {} at place {}: version 2 numbers operations "
                                                 "by their place in the file, from 0",
                                                 r.op_id, records_ + i));
    }
  }
  std::string payload;
  const auto put_entry = [&] {
    if (!payload.empty()) format::PutEntry(format::EntryType::kRecords, payload, &out_);
    payload.clear();
  };
  for (size_t i = 0; i < records.size(); ++i) {
    if (version_ == 1) {
      if (i % format::kMaxRecordsPerEntryV1 == 0) put_entry();
      format::PutRecordV1(records[i], &payload);
    } else {
      if (payload.size() + format::kMaxRecordSizeV2 > format::kMaxRecordsPayloadV2) put_entry();
      format::PutRecordV2(records[i], header_.open_loop, header_.start_mono_ns, &payload);
    }
  }
  put_entry();
  records_ += records.size();
  return Status::OK();
}

Status HistoryEncoder::AddEngineEntry(std::string_view payload, uint64_t records) {
  if (ended_) return Status::InvalidArgument("history: records after the end entry");
  if (version_ == 1) return Status::InvalidArgument("history: the engine's records in a version 1 file");
  if (payload.empty() || payload.size() > format::kMaxRecordsPayloadV2) {
    return Status::InvalidArgument(fmt::format("history: an entry of {} bytes of records (1 to {})", payload.size(),
                                               format::kMaxRecordsPayloadV2));
  }
  format::PutRecordsEntryHeader(payload, &out_);
  records_ += records;
  return Status::OK();
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

Result<std::string> EncodeHistory(const History& h) {
  auto enc = HistoryEncoder::Start(h.header, h.version);
  if (!enc.ok()) return enc.status();
  for (size_t id = 1; id < h.strings.size(); ++id) {
    auto got = enc->Intern(h.strings[id]);
    if (!got.ok()) return got.status();
    if (*got != id) {
      return Status::InvalidArgument(fmt::format("history: string {} ('{}') is the table's string {} again", id,
                                                 h.strings[id], *got));
    }
  }
  if (Status s = enc->Add(h.records); !s.ok()) return s;
  for (const Event& e : h.events) {
    if (Status s = enc->AddEvent(e); !s.ok()) return s;
  }
  enc->End();
  return enc->Take();
}

Result<std::unique_ptr<HistoryFileWriter>> HistoryFileWriter::Open(const std::string& flag,
                                                                    const std::string& path,
                                                                    const RunHeader& header,
                                                                    uint32_t version) {
  auto encoder = HistoryEncoder::Start(header, version);
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

Status HistoryFileWriter::AddEngineRecords(std::string_view bytes, uint64_t records) {
  if (!status_.ok()) return status_;
  status_ = encoder_.AddEngineEntry(bytes, records);
  if (status_.ok() && Flush().ok()) status_ = file_->Write(bytes);  // the header (and strings) first
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
