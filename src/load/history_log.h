// --history FILE: the run's operations as a history (docs/history.md), one record per
// operation. The load threads fill batches of records and hand them over; a thread of
// the log's own encodes them and writes the file, so a load thread never waits for the
// disk. The file appears whole when the run ends (Finish), or not at all.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "history/history_writer.h"
#include "history/record.h"
#include "util/status.h"

namespace memstand {

class HistoryLog {
 public:
  /// Records a load thread fills before it hands them over.
  static constexpr size_t kBatch = 4096;

  /// Prepares `path` (the output of --history) and starts the writer thread. Time 0 of
  /// the records is now: `start_ns()` on the monotonic clock, header.start_unix_ns on the
  /// wall clock (set here).
  static Result<std::unique_ptr<HistoryLog>> Open(const std::string& path, history::RunHeader header);
  /// Stops the writer thread; without Finish the file is not put in place.
  ~HistoryLog();
  HistoryLog(const HistoryLog&) = delete;
  HistoryLog& operator=(const HistoryLog&) = delete;

  int64_t start_ns() const { return start_ns_; }
  uint32_t run_tag() const { return run_tag_; }
  /// The string id of `text` (a node's address, an error kind), the same for every
  /// thread; under a lock, so callers keep what they got. Once the table is full every
  /// new text gets the id of its last string, "(more strings than a history holds)".
  uint16_t Intern(std::string_view text);
  /// A client id no other client of the run has (a new one after an unknown outcome).
  uint32_t NewClient() { return next_client_.fetch_add(1, std::memory_order_relaxed); }
  /// Hands a batch to the writer thread; returns an empty one to fill next.
  std::vector<history::Record> Hand(std::vector<history::Record> batch);
  /// After every thread handed its last batch: the end entry written and the file put
  /// in place. The first error of the writer thread (a write failed, the string table
  /// out of step) if any, then nothing is put in place. Call once.
  Status Finish();
  uint64_t records() const { return records_; }

 private:
  HistoryLog(std::unique_ptr<history::HistoryFileWriter> writer, int64_t start_ns, uint32_t run_tag);
  void WriterLoop();
  /// Writer thread: the strings interned since the last batch, into the file first.
  Status SyncStrings();

  std::unique_ptr<history::HistoryFileWriter> writer_;  // the writer thread's alone
  const int64_t start_ns_;
  const uint32_t run_tag_;
  std::atomic<uint32_t> next_client_{1};

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::vector<history::Record>> queue_;  // handed, not yet written
  std::vector<std::vector<history::Record>> spare_;  // written, for Hand to give back
  std::vector<std::string> strings_ = {""};          // the table: id i is strings_[i]
  std::unordered_map<std::string, uint16_t> ids_;
  uint16_t overflow_id_ = 0;
  bool closing_ = false;
  Status status_;  // the writer thread's first error
  size_t strings_written_ = 1;  // writer thread: table entries already in the file
  uint64_t records_ = 0;        // written (after Finish)
  std::thread thread_;
};

}  // namespace memstand
