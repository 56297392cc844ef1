#include "load/history_log.h"

#include <utility>

#include <fmt/format.h>

#include "core/clock.h"
#include "history/history_format.h"

namespace memstand {
namespace {

constexpr char kOverflowKind[] = "(more strings than a history holds)";

}  // namespace

Result<std::unique_ptr<HistoryLog>> HistoryLog::Open(const std::string& path, history::RunHeader header,
                                                     std::shared_ptr<HistoryEvents> events) {
  const int64_t start_ns = NowNs();
  header.start_unix_ns = static_cast<int64_t>(UnixNowS() * 1e9);
  header.start_mono_ns = start_ns;
  const uint32_t run_tag = header.run_tag;
  const bool plain_writes = !header.open_loop && header.target_kind != history::TargetKind::kEtcd;
  auto writer = history::HistoryFileWriter::Open("--history", path, header);
  if (!writer.ok()) return writer.status();
  std::unique_ptr<HistoryLog> log(
      new HistoryLog(std::move(*writer), start_ns, run_tag, plain_writes, std::move(events)));
  log->thread_ = std::thread([raw = log.get()] { raw->WriterLoop(); });
  return log;
}

HistoryLog::HistoryLog(std::unique_ptr<history::HistoryFileWriter> writer, int64_t start_ns, uint32_t run_tag,
                       bool plain_writes, std::shared_ptr<HistoryEvents> sink)
    : writer_(std::move(writer)),
      start_ns_(start_ns),
      run_tag_(run_tag),
      plain_writes_(plain_writes),
      sink_(std::move(sink)) {}

HistoryLog::~HistoryLog() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

uint16_t HistoryLog::Intern(std::string_view text) {
  std::lock_guard lock(mu_);
  const std::string key(text.substr(0, history::format::kMaxStringBytes));
  if (key.empty()) return 0;
  if (auto it = ids_.find(key); it != ids_.end()) return it->second;
  if (overflow_id_ != 0) return overflow_id_;
  // The table's last place is kept for the text that stands for every later one.
  const bool last = strings_.size() == history::format::kMaxStrings;
  strings_.push_back(last ? kOverflowKind : key);
  const auto id = static_cast<uint16_t>(strings_.size() - 1);
  if (last) {
    overflow_id_ = id;
  } else {
    ids_.emplace(key, id);
  }
  return id;
}

HistoryLog::Batch HistoryLog::Hand(Batch batch) {
  Batch next;
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(batch));
    if (!spare_.empty()) {
      next = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  wake_.notify_one();
  if (!next.has_room()) next = Batch::WithRoom();
  next.clear();
  return next;
}

void HistoryLog::AddEvent(NemesisEvent event) {
  {
    std::lock_guard lock(mu_);
    if (closing_) {
      ++events_dropped_;
      return;
    }
    events_.push_back(std::move(event));
  }
  wake_.notify_one();
}

void HistoryLog::WriterLoop() {
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return closing_ || !queue_.empty() || !events_.empty(); });
    // Closing comes after every thread handed its last batch: once the queue is empty,
    // this round writes the last of everything.
    const bool last = closing_ && queue_.size() <= 1;
    Batch batch;
    if (!queue_.empty()) {
      batch = std::move(queue_.front());
      queue_.pop_front();
    }
    std::vector<NemesisEvent> events;
    events.swap(events_);
    std::vector<std::string> fresh(strings_.begin() + static_cast<ptrdiff_t>(strings_written_), strings_.end());
    lock.unlock();
    // The strings a record names were interned before it was made, so before its
    // batch was handed: they are in `fresh` or already written.
    Status s = WriteStrings(fresh);
    // The records are the engine's (worker_conn.h and worker_history.cc make each by
    // CheckRecord's rules): written as they are, unchecked; the reader checks them.
    if (s.ok() && !batch.empty()) s = writer_->AddEngineRecords(batch.bytes(), batch.records());
    if (s.ok()) s = WriteEvents(std::move(events));
    lock.lock();
    if (!s.ok() && status_.ok()) status_ = s;
    if (s.ok()) records_ += batch.records();
    if (batch.has_room()) {
      batch.clear();
      if (spare_.size() < 4) spare_.push_back(std::move(batch));
    }
    if (last) return;
  }
}

Status HistoryLog::WriteStrings(const std::vector<std::string>& fresh) {
  for (const std::string& text : fresh) {
    auto id = writer_->Intern(text);
    if (!id.ok()) return id.status();
    if (*id != strings_written_++) {
      return Status::Failed(fmt::format("--history: the string table went out of step at '{}'", text));
    }
  }
  return Status::OK();
}

Status HistoryLog::WriteEvents(std::vector<NemesisEvent> events) {
  if (sink_ != nullptr) {
    for (NemesisEvent& e : sink_->Take()) events.push_back(std::move(e));
  }
  uint64_t dropped = 0;
  for (const NemesisEvent& e : events) {
    history::Event ev{.start_ns = e.start_mono_ns - start_ns_,
                      .end_ns = e.end_mono_ns - start_ns_,
                      .action = e.action,
                      .target = e.target.substr(0, history::format::kMaxEventTarget),
                      .detail = e.detail.substr(0, history::format::kMaxEventDetail)};
    if (!history::CheckEvent(ev).ok()) {
      ++dropped;
      continue;
    }
    if (Status s = writer_->AddEvent(ev); !s.ok()) return s;
    ++events_written_;
  }
  if (dropped > 0) {
    std::lock_guard lock(mu_);
    events_dropped_ += dropped;
  }
  return Status::OK();
}

Status HistoryLog::Finish() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (!status_.ok()) return status_.WithContext("--history");
  return writer_->Finish();
}

}  // namespace memstand
