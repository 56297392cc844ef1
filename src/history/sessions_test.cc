// Monotonic reads and read-your-writes, per client, a record at a time.
#include "history/sessions.h"

#include <gtest/gtest.h>

#include "history/history_test_util.h"

namespace memstand::history {
namespace {

TEST(MonotonicReads, AClientThatSeesAnOlderValueAfterANewerOneIsFound) {
  HistoryBuilder b;
  const Record w1 = b.Write(1, 5, 0, 10);
  const Record w2 = b.Write(2, 5, 20, 30);
  const Record first = b.ReadOf(3, w2, 40, 50);
  const Record second = b.ReadOf(3, w1, 60, 70);
  const CheckResult r = CheckMonotonicReads(b.h);
  EXPECT_EQ(r.verdict, Verdict::kViolated);
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.key, 5u);
  ASSERT_EQ(f.ops.size(), 4u);
  EXPECT_EQ(f.ops[0].op_id, first.op_id);
  EXPECT_EQ(f.ops[1].op_id, second.op_id);
  EXPECT_EQ(f.text.rfind("key:5: client 3 read op " + std::to_string(second.op_id), 0), 0u) << f.text;
  EXPECT_EQ(r.summary, "2 ok read(s) of 3 client(s): 1 violation(s)");
}

TEST(MonotonicReads, ConcurrentWritesMaybeSeenInEitherOrderAndOtherClientsDoNotCount) {
  HistoryBuilder b;
  const Record w1 = b.Write(1, 5, 0, 100);
  const Record w2 = b.Write(2, 5, 0, 100);
  b.ReadOf(3, w2, 10, 20);
  b.ReadOf(3, w1, 30, 40);
  b.ReadOf(4, w1, 110, 120);  // another client
  EXPECT_EQ(CheckMonotonicReads(b.h).verdict, Verdict::kPass);
}

TEST(MonotonicReads, AbsentAfterAValueGoesBack) {
  HistoryBuilder b;
  const Record w = b.Write(1, 5, 0, 10);
  b.ReadOf(2, w, 20, 30);
  b.Read(2, 5, 40, 50, Seen::kAbsent);
  EXPECT_EQ(CheckMonotonicReads(b.h).verdict, Verdict::kViolated);
}

TEST(MonotonicReads, SeenConcurrentValuesAllCount) {
  // The client saw w2 then w3 (concurrent with each other); w1 came before w2 only:
  // reading it now goes back past w2, though not past w3.
  HistoryBuilder b;
  const Record w1 = b.Write(1, 5, 0, 10);
  const Record w2 = b.Write(2, 5, 20, 30);
  const Record w3 = b.Write(3, 5, 5, 100);
  b.ReadOf(4, w2, 40, 50);
  b.ReadOf(4, w3, 60, 70);
  b.ReadOf(4, w1, 80, 90);
  EXPECT_EQ(CheckMonotonicReads(b.h).verdict, Verdict::kViolated);
}

TEST(ReadYourWrites, AClientThatMissesItsOwnWriteIsFound) {
  HistoryBuilder b;
  const Record other = b.Write(1, 5, 0, 10);
  const Record own = b.Write(2, 5, 20, 30);
  const Record read = b.ReadOf(2, other, 40, 50);
  const CheckResult r = CheckReadYourWrites(b.h);
  EXPECT_EQ(r.verdict, Verdict::kViolated);
  ASSERT_EQ(r.findings.size(), 1u);
  ASSERT_EQ(r.findings[0].ops.size(), 3u);
  EXPECT_EQ(r.findings[0].ops[0].op_id, own.op_id);
  EXPECT_EQ(r.findings[0].ops[1].op_id, read.op_id);
  EXPECT_EQ(r.findings[0].ops[2].op_id, other.op_id);
}

TEST(ReadYourWrites, ItsOwnOrALaterValueIsFine) {
  HistoryBuilder b;
  const Record own = b.Write(1, 5, 0, 10);
  b.ReadOf(1, own, 20, 30);
  const Record later = b.Write(2, 5, 5, 100);  // concurrent with the own write: may be after it
  b.ReadOf(1, later, 40, 50);
  b.Read(1, 6, 60, 70, Seen::kAbsent);  // another key
  EXPECT_EQ(CheckReadYourWrites(b.h).verdict, Verdict::kPass);
  b.Read(1, 5, 80, 90, Seen::kAbsent);
  EXPECT_EQ(CheckReadYourWrites(b.h).verdict, Verdict::kViolated);
}

TEST(ReadYourWrites, AFailedOwnWriteAsksNothing) {
  HistoryBuilder b;
  b.Write(1, 5, 0, 10, Outcome::kFail);
  b.Read(1, 5, 20, 30, Seen::kAbsent);
  EXPECT_EQ(CheckReadYourWrites(b.h).verdict, Verdict::kPass);
}

}  // namespace
}  // namespace memstand::history
