// --history FILE: the run's operations as a history (docs/history.md), one record per
// operation. The load threads fill batches of records and hand them over; a thread of
// the log's own encodes them and writes the file, so a load thread never waits for the
// disk. The file appears whole when the run ends (Finish), or not at all. The nemesis's
// actions (load/history_events.h) go into the same file, by the same thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "history/history_format.h"
#include "history/history_writer.h"
#include "history/record.h"
#include "load/history_events.h"
#include "util/status.h"

namespace memstand {

class HistoryLog {
 public:
  /// A load thread's records, laid out as a version 2 history has them (docs/history.md,
  /// history/history_format.h): 40 bytes each, and 8 for each extra (a read's value,
  /// etcd's revision, open loop's intended time). Their room is taken once and each
  /// record is stored in it where its operation ends, every field once; nothing is
  /// initialized beforehand (a history's load thread makes a record per operation). The
  /// next place and the last that holds the largest record are kept as pointers: a
  /// record's Add and full() are a load, an add, a store and a compare.
  class Batch {
   public:
    /// The room of a batch: 4,096 records without extras (and the 24 bytes more that
    /// full() keeps for the largest record), one entry of the file.
    static constexpr size_t kBytes =
        4096 * history::format::kRecordBaseV2 + history::format::kMaxRecordSizeV2 - history::format::kRecordBaseV2;
    static_assert(kBytes <= history::format::kMaxRecordsPayloadV2);

    /// No room (a moved-from batch too): WithRoom() has it.
    Batch() = default;
    static Batch WithRoom() {
      Batch b;
      b.bytes_.reset(static_cast<char*>(::operator new(kBytes)));
      b.next_ = b.bytes_.get();
      b.last_ = b.next_ + kBytes - history::format::kMaxRecordSizeV2;
      return b;
    }
    Batch(Batch&& o) noexcept
        : bytes_(std::move(o.bytes_)),
          next_(std::exchange(o.next_, nullptr)),
          last_(std::exchange(o.last_, nullptr)),
          extra_(std::exchange(o.extra_, 0)) {}
    Batch& operator=(Batch&& o) noexcept {
      bytes_ = std::move(o.bytes_);
      next_ = std::exchange(o.next_, nullptr);
      last_ = std::exchange(o.last_, nullptr);
      extra_ = std::exchange(o.extra_, 0);
      return *this;
    }

    /// The next record's place, 40 bytes to store it in. REQUIRES: room, and not full().
    char* Add() {
      char* const p = next_;
      next_ += history::format::kRecordBaseV2;
      return p;
    }
    /// The next record's place when it has `extras` extras (40 + 8 * extras bytes).
    /// REQUIRES: room, not full(), extras at most 3.
    char* AddWithExtras(size_t extras) {
      char* const p = next_;
      next_ += history::format::kRecordBaseV2 + 8 * extras;
      extra_ += 8 * extras;
      return p;
    }
    /// Less room left than the largest record needs. REQUIRES: room.
    bool full() const { return next_ > last_; }
    bool empty() const { return next_ == bytes_.get(); }
    bool has_room() const { return bytes_ != nullptr; }
    std::string_view bytes() const { return {bytes_.get(), static_cast<size_t>(next_ - bytes_.get())}; }
    /// The records it holds.
    uint64_t records() const { return (bytes().size() - extra_) / history::format::kRecordBaseV2; }
    void clear() {
      next_ = bytes_.get();
      extra_ = 0;
    }

   private:
    struct Free {
      void operator()(char* p) const { ::operator delete(p); }
    };
    std::unique_ptr<char, Free> bytes_;
    char* next_ = nullptr;  // the next record's place
    char* last_ = nullptr;  // the last place with room for the largest record
    size_t extra_ = 0;      // the bytes of the records' extras
  };

  /// Prepares `path` (the output of --history) and starts the writer thread. Time 0 of
  /// the records is now: `start_ns()` on the monotonic clock (the header's start_mono_ns:
  /// the records carry that clock's readings), header.start_unix_ns on the wall clock
  /// (both set here). `events` (may be null): a scenario's queue of nemesis
  /// events, which the writer thread drains whenever it wakes and once more at Finish.
  static Result<std::unique_ptr<HistoryLog>> Open(const std::string& path, history::RunHeader header,
                                                  std::shared_ptr<HistoryEvents> events = nullptr);
  /// Stops the writer thread; without Finish the file is not put in place.
  ~HistoryLog();
  HistoryLog(const HistoryLog&) = delete;
  HistoryLog& operator=(const HistoryLog&) = delete;

  int64_t start_ns() const { return start_ns_; }
  uint32_t run_tag() const { return run_tag_; }
  /// An ok write's record has no extras: the run is closed loop (no intended times) and
  /// not etcd's (no revisions).
  bool plain_writes() const { return plain_writes_; }
  /// The string id of `text` (a node's address, an error kind), the same for every
  /// thread; under a lock, so callers keep what they got. Once the table is full every
  /// new text gets the id of its last string, "(more strings than a history holds)".
  uint16_t Intern(std::string_view text);
  /// A client id no other client of the run has (a new one after an unknown outcome).
  uint32_t NewClient() { return next_client_.fetch_add(1, std::memory_order_relaxed); }
  /// A nemesis event, from any thread (times on the monotonic clock, NowNs): written by
  /// the writer thread, as an event entry with its times made relative to start_ns().
  /// Its target and detail are cut to the format's limits; an event the format cannot
  /// hold (an action not a-z, 0-9 and '-', a start before time 0, an end before its
  /// start) is left out and counted in events_dropped(), as is one added after Finish
  /// began. Never fails the history.
  void AddEvent(NemesisEvent event);
  /// Hands a batch to the writer thread; returns an empty one, with room, to fill next.
  Batch Hand(Batch batch);
  /// After every thread handed its last batch: the end entry written and the file put
  /// in place. The first error of the writer thread (a write failed, the string table
  /// out of step) if any, then nothing is put in place. Call once.
  Status Finish();
  uint64_t records() const { return records_; }
  /// Events written, and left out (above), after Finish.
  uint64_t events() const { return events_written_; }
  uint64_t events_dropped() const { return events_dropped_; }

 private:
  HistoryLog(std::unique_ptr<history::HistoryFileWriter> writer, int64_t start_ns, uint32_t run_tag,
             bool plain_writes, std::shared_ptr<HistoryEvents> sink);
  void WriterLoop();
  /// Writer thread: the strings interned since the last batch, into the file first.
  Status WriteStrings(const std::vector<std::string>& fresh);
  /// Writer thread: `events` and the sink's, into the file.
  Status WriteEvents(std::vector<NemesisEvent> events);

  std::unique_ptr<history::HistoryFileWriter> writer_;  // the writer thread's alone
  const int64_t start_ns_;
  const uint32_t run_tag_;
  const bool plain_writes_;
  const std::shared_ptr<HistoryEvents> sink_;  // may be null
  std::atomic<uint32_t> next_client_{1};

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Batch> queue_;  // handed, not yet written
  std::vector<Batch> spare_;  // written, for Hand to give back
  std::vector<NemesisEvent> events_;  // added, not yet written
  std::vector<std::string> strings_ = {""};          // the table: id i is strings_[i]
  std::unordered_map<std::string, uint16_t> ids_;
  uint16_t overflow_id_ = 0;
  bool closing_ = false;
  Status status_;  // the writer thread's first error
  size_t strings_written_ = 1;  // writer thread: table entries already in the file
  uint64_t records_ = 0;        // written (after Finish)
  uint64_t events_written_ = 0;  // writer thread, then read after Finish
  uint64_t events_dropped_ = 0;  // under mu_, then read after Finish
  std::thread thread_;
};

}  // namespace memstand
