// HistoryLog and the nemesis's events: events added from other threads while a load
// thread hands its batches are written beside the records, on the records' clock; those
// the format cannot hold, or that come after the end, are left out and counted.
#include "load/history_log.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "history/history_format.h"
#include "history/history_reader.h"

namespace memstand {
namespace {

constexpr int kBatches = 6;
constexpr uint32_t kPerBatch = 1000;

history::RunHeader Header() {
  history::RunHeader h;
  h.key_prefix = "k";
  h.target = "redis://127.0.0.1:1";
  h.writer = "history_log_test";
  return h;
}

// Batch b's records, as the engine lays them out (t0: the log's monotonic time 0): one
// write each by its own client, at times after b's event.
void Fill(HistoryLog::Batch* batch, int b, int64_t t0) {
  for (uint32_t i = 0; i < kPerBatch; ++i) {
    const uint64_t n = uint64_t(b) * kPerBatch + i + 1;
    const int64_t t = int64_t(n) * 10;
    std::string bytes;
    history::format::PutRecordV2({.op_id = 0, .client = static_cast<uint32_t>(n), .seq = 1, .invoke_ns = t,
                                  .complete_ns = t + 5, .key = n % 7, .f = history::Op::kWrite},
                                 false, t0, &bytes);
    std::memcpy(batch->Add(), bytes.data(), bytes.size());
  }
}

// A batch holds records of 40 bytes and of 40 and their extras, counts them, and is
// full once the largest record would not fit.
TEST(HistoryLogTest, ABatchCountsItsRecordsAndIsFullBeforeItsEnd) {
  HistoryLog::Batch batch = HistoryLog::Batch::WithRoom();
  EXPECT_TRUE(batch.empty());
  uint64_t records = 0;
  size_t bytes = 0;
  while (!batch.full()) {
    const size_t extras = records % 4;
    char* at = extras == 0 ? batch.Add() : batch.AddWithExtras(extras);
    std::memset(at, 0, 40 + 8 * extras);
    ++records;
    bytes += 40 + 8 * extras;
  }
  EXPECT_EQ(batch.records(), records);
  EXPECT_EQ(batch.bytes().size(), bytes);
  EXPECT_LE(bytes, HistoryLog::Batch::kBytes);
  EXPECT_GT(bytes + history::format::kMaxRecordSizeV2, HistoryLog::Batch::kBytes);
  batch.clear();
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(batch.records(), 0u);
  // Records without extras: 4,096 of them (docs/history.md), then it is full.
  while (!batch.full()) std::memset(batch.Add(), 0, 40);
  EXPECT_EQ(batch.records(), 4096u);
}

// The event thread waits (without a clock: for the count of batches handed) so that its
// events interleave with the batches: event b after batch b was handed, half of them
// through AddEvent and half through the scenario's sink.
TEST(HistoryLogTest, EventsFromAnotherThreadAreWrittenBesideTheRecords) {
  const std::string path = ::testing::TempDir() + "/history_log_events.hist";
  auto sink = std::make_shared<HistoryEvents>();
  auto opened = HistoryLog::Open(path, Header(), sink);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  HistoryLog& log = **opened;
  const int64_t t0 = log.start_ns();
  std::atomic<int> handed{0};
  std::thread nemesis([&] {
    for (int b = 0; b < kBatches; ++b) {
      while (handed.load() <= b) std::this_thread::yield();
      NemesisEvent e{.start_mono_ns = t0 + 100 * b, .end_mono_ns = t0 + 100 * b + 50,
                     .action = b % 2 == 0 ? "kill" : "restart", .target = "node" + std::to_string(b),
                     .detail = "pid " + std::to_string(1000 + b)};
      if (b % 2 == 0) {
        log.AddEvent(std::move(e));
      } else {
        sink->Add(std::move(e));
      }
    }
    // Left out: before time 0, an action the format cannot hold, and a target and a
    // detail too long, cut rather than refused.
    log.AddEvent({.start_mono_ns = t0 - 1, .end_mono_ns = t0 + 1, .action = "pause", .target = "early"});
    sink->Add({.start_mono_ns = t0, .end_mono_ns = t0, .action = "Kill -9", .target = "bad"});
    sink->Add({.start_mono_ns = t0 + 7, .end_mono_ns = t0 + 8, .action = "cut", .target = std::string(300, 't'),
               .detail = std::string(2000, 'd')});
  });
  HistoryLog::Batch batch = HistoryLog::Batch::WithRoom();
  for (int b = 0; b < kBatches; ++b) {
    Fill(&batch, b, t0);
    batch = log.Hand(std::move(batch));
    handed = b + 1;
  }
  nemesis.join();
  ASSERT_TRUE(log.Finish().ok());
  log.AddEvent({.start_mono_ns = t0 + 1, .end_mono_ns = t0 + 2, .action = "heal", .target = "late"});
  sink->Add({.start_mono_ns = t0 + 1, .end_mono_ns = t0 + 2, .action = "heal", .target = "later"});
  EXPECT_EQ(log.records(), uint64_t{kBatches} * kPerBatch);
  EXPECT_EQ(log.events(), uint64_t{kBatches} + 1);
  EXPECT_EQ(log.events_dropped(), 3u);  // early, bad, late ("later" stays in the sink)

  auto h = history::ReadHistoryFile(path);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->records.size(), uint64_t{kBatches} * kPerBatch);
  ASSERT_EQ(h->events.size(), size_t{kBatches} + 1);
  for (int b = 0; b < kBatches; ++b) {
    // Each way in keeps its own order; the two ways may interleave either way.
    const auto& list = h->events;
    const std::string target = "node" + std::to_string(b);
    auto it = std::find_if(list.begin(), list.end(), [&](const history::Event& e) { return e.target == target; });
    ASSERT_NE(it, list.end()) << target;
    EXPECT_EQ(it->start_ns, 100 * b);
    EXPECT_EQ(it->end_ns, 100 * b + 50);
    EXPECT_EQ(it->action, b % 2 == 0 ? "kill" : "restart");
    EXPECT_EQ(it->detail, "pid " + std::to_string(1000 + b));
  }
  auto cut_at = std::find_if(h->events.begin(), h->events.end(),
                             [](const history::Event& e) { return e.action == "cut"; });
  ASSERT_NE(cut_at, h->events.end());
  const history::Event& cut = *cut_at;
  EXPECT_EQ(cut.target, std::string(256, 't'));
  EXPECT_EQ(cut.detail, std::string(1024, 'd'));
  EXPECT_EQ(cut.start_ns, 7);
}

// Without a sink and without events, the file is as before: no event entry.
TEST(HistoryLogTest, NoEventsNoEventEntries) {
  const std::string path = ::testing::TempDir() + "/history_log_none.hist";
  auto opened = HistoryLog::Open(path, Header());
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  HistoryLog::Batch batch = HistoryLog::Batch::WithRoom();
  Fill(&batch, 0, (*opened)->start_ns());
  batch = (*opened)->Hand(std::move(batch));
  ASSERT_TRUE((*opened)->Finish().ok());
  auto h = history::ReadHistoryFile(path);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->records.size(), kPerBatch);
  EXPECT_TRUE(h->events.empty());
  EXPECT_EQ((*opened)->events(), 0u);
}

}  // namespace
}  // namespace memstand
