// failover's measures of a history, on fabricated histories.
#include "scenario/failover/analysis.h"

#include <gtest/gtest.h>

#include "history/history_test_util.h"

namespace memstand {
namespace {

using history::HistoryBuilder;
using history::Outcome;
using history::Seen;

constexpr int64_t kS = 1'000'000'000;

// Writes ok until the fault at 2 s; during the outage one fails and one is unknown;
// the first write sent after the fault that is acknowledged comes from the old node at
// 2.5 s, the first from the new one at 3 s.
TEST(FailoverAnalysisTest, TheOutageEndsAtTheFirstAcknowledgedWriteSentAfterTheFault) {
  HistoryBuilder b;
  b.h.strings.push_back("127.0.0.1:7001");  // id 4: the new primary
  b.Write(1, 1, kS / 2, kS / 2 + 100);
  b.Write(1, 2, 2 * kS - 1000, 2 * kS + 5);  // sent before the fault: ended ok inside it
  b.Write(2, 3, 2 * kS + 10, 2 * kS + 20, Outcome::kFail);
  b.Write(3, 4, 2 * kS + 30, 2 * kS + 40, Outcome::kUnknown);
  b.Read(4, 1, 2 * kS + 50, 2 * kS + 60, Seen::kAbsent, 0, Outcome::kFail);
  b.Write(5, 5, 2 * kS + kS / 2, 2 * kS + kS / 2 + 10);  // the old node again (a pause ended)
  b.Write(6, 6, 3 * kS, 3 * kS + 10);
  b.h.records.back().node = 4;
  b.Write(7, 7, 4 * kS, 4 * kS + 10, Outcome::kFail);  // after the outage: not counted in it

  const FailoverOutage o = MeasureOutage(b.h, 2 * kS, "127.0.0.1:6379");
  EXPECT_EQ(o.last_ok_before_ns, 2 * kS + 5);
  EXPECT_EQ(o.first_ok_ns, 2 * kS + kS / 2 + 10);
  EXPECT_EQ(o.first_ok_node, "127.0.0.1:6379");
  EXPECT_EQ(o.first_ok_elsewhere_ns, 3 * kS + 10);
  EXPECT_EQ(o.first_ok_elsewhere_node, "127.0.0.1:7001");
  EXPECT_DOUBLE_EQ(o.outage_s, 0.50000001);
  // Ended in [2 s, 2.5 s + 10 ns]: the write sent before (ok), the failed and the unknown
  // one, and the first acknowledged one; the failed read.
  EXPECT_EQ(o.writes_ok, 2u);
  EXPECT_EQ(o.writes_fail, 1u);
  EXPECT_EQ(o.writes_unknown, 1u);
  EXPECT_EQ(o.reads_ok, 0u);
  EXPECT_EQ(o.reads_fail, 1u);
  EXPECT_EQ(o.all_writes_ok, 4u);
  EXPECT_EQ(o.all_writes_fail, 2u);
  EXPECT_EQ(o.all_writes_unknown, 1u);
}

// A Sentinel or RW pool's primary is named by its target's Display in the history
// ("tarantool://host:port"): it is still the old node, not another one.
TEST(FailoverAnalysisTest, ANodeNamedWithItsSchemeIsTheSameNode) {
  HistoryBuilder b;
  b.h.strings.push_back("tarantool://127.0.0.1:6379");    // id 4: the old master
  b.h.strings.push_back("tarantool://127.0.0.1:16379");   // id 5: another node
  b.Write(1, 1, 2 * kS + 10, 2 * kS + 20);
  b.h.records.back().node = 4;
  b.Write(2, 2, 3 * kS, 3 * kS + 10);
  b.h.records.back().node = 5;
  const FailoverOutage o = MeasureOutage(b.h, 2 * kS, "127.0.0.1:6379");
  EXPECT_EQ(o.first_ok_node, "tarantool://127.0.0.1:6379");
  EXPECT_EQ(o.first_ok_elsewhere_ns, 3 * kS + 10);
  EXPECT_EQ(o.first_ok_elsewhere_node, "tarantool://127.0.0.1:16379");
}

TEST(FailoverAnalysisTest, AnOutageThatNeverEndsCountsToTheRunsEnd) {
  HistoryBuilder b;
  b.Write(1, 1, kS, kS + 10);
  b.Write(2, 2, 3 * kS, 3 * kS + 10, Outcome::kFail);
  b.Write(3, 3, 5 * kS, 5 * kS + 10, Outcome::kUnknown);
  const FailoverOutage o = MeasureOutage(b.h, 2 * kS, "127.0.0.1:6379");
  EXPECT_EQ(o.first_ok_ns, -1);
  EXPECT_EQ(o.first_ok_elsewhere_ns, -1);
  EXPECT_EQ(o.outage_s, -1);
  EXPECT_EQ(o.writes_fail, 1u);
  EXPECT_EQ(o.writes_unknown, 1u);
}

TEST(FailoverAnalysisTest, PerSecondCountsEachOperationInTheSecondItEnded) {
  HistoryBuilder b;
  b.Write(1, 1, 10, 20);
  b.Read(2, 1, 30, kS - 1, Seen::kAbsent);
  b.Write(3, 2, kS - 5, kS, Outcome::kUnknown);  // ends exactly at 1 s: second 1
  b.Write(4, 3, 2 * kS + 1, 2 * kS + 2, Outcome::kFail);
  const std::vector<FailoverSecond> s = PerSecond(b.h);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].ok, 2u);
  EXPECT_EQ(s[0].writes_ok, 1u);
  EXPECT_EQ(s[1].unknown, 1u);
  EXPECT_EQ(s[1].ok + s[1].fail, 0u);
  EXPECT_EQ(s[2].fail, 1u);
}

}  // namespace
}  // namespace memstand
