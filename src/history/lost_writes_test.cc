// Lost writes, a record at a time: what the key holds after the run against the writes.
#include "history/lost_writes.h"

#include <gtest/gtest.h>

#include "history/history_test_util.h"

namespace memstand::history {
namespace {

FinalValue Holds(const Record& w) { return {Seen::kOurs, w.written(), ""}; }
FinalValue Absent() { return {Seen::kAbsent, 0, ""}; }

TEST(LostWrites, AnAcknowledgedWriteMissingIsLostWithItsOperation) {
  HistoryBuilder b;
  const Record w1 = b.Write(1, 5, 100, 200);
  const Record w2 = b.Write(2, 6, 100, 200);
  const CheckResult r = CheckLostWrites(b.h, {{5, Absent()}, {6, Holds(w2)}});
  EXPECT_EQ(r.verdict, Verdict::kViolated);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].kind, "lost");
  EXPECT_EQ(r.findings[0].key, 5u);
  ASSERT_EQ(r.findings[0].ops.size(), 1u);
  EXPECT_EQ(r.findings[0].ops[0].op_id, w1.op_id);
  EXPECT_NE(r.findings[0].text.find("key:5: 1 acknowledged write(s) are gone: the key holds nothing (absent)"),
            std::string::npos)
      << r.findings[0].text;
  EXPECT_NE(r.summary.find("1 lost write(s)"), std::string::npos) << r.summary;
}

TEST(LostWrites, TheLastWriteHeldPassesAnOverwrittenOneIsNotLost) {
  HistoryBuilder b;
  b.Write(1, 5, 100, 200);
  const Record w2 = b.Write(2, 5, 300, 400);
  const CheckResult r = CheckLostWrites(b.h, {{5, Holds(w2)}});
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.summary;
  EXPECT_EQ(r.findings_total, 0u);
}

TEST(LostWrites, AnOlderValueHeldLosesTheWritesAfterIt) {
  HistoryBuilder b;
  const Record w1 = b.Write(1, 5, 100, 200);
  const Record w2 = b.Write(2, 5, 300, 400);
  const Record w3 = b.Write(3, 5, 500, 600);
  const CheckResult r = CheckLostWrites(b.h, {{5, Holds(w1)}});
  EXPECT_EQ(r.verdict, Verdict::kViolated);
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  ASSERT_EQ(f.ops.size(), 3u);  // what it holds, then the two lost
  EXPECT_EQ(f.ops[0].op_id, w1.op_id);
  EXPECT_EQ(f.ops[1].op_id, w2.op_id);
  EXPECT_EQ(f.ops[2].op_id, w3.op_id);
  EXPECT_NE(r.summary.find("2 lost write(s)"), std::string::npos) << r.summary;
}

TEST(LostWrites, ConcurrentWritesMayEndInEitherOrder) {
  HistoryBuilder b;
  const Record w1 = b.Write(1, 5, 100, 400);
  b.Write(2, 5, 200, 300);
  EXPECT_EQ(CheckLostWrites(b.h, {{5, Holds(w1)}}).verdict, Verdict::kPass);
}

TEST(LostWrites, AnUnknownWritePresentIsRecoveredNotAViolation) {
  HistoryBuilder b;
  b.Write(1, 5, 100, 200);
  const Record unknown = b.Write(2, 5, 300, 5000, Outcome::kUnknown);
  const CheckResult r = CheckLostWrites(b.h, {{5, Holds(unknown)}});
  EXPECT_EQ(r.verdict, Verdict::kPass);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].kind, "recovered");
  EXPECT_FALSE(r.findings[0].violation);
  EXPECT_EQ(r.findings[0].ops[0].op_id, unknown.op_id);
  // An unknown write absent is no loss either: it may never have happened.
  HistoryBuilder only_unknown;
  only_unknown.Write(2, 5, 300, 5000, Outcome::kUnknown);
  EXPECT_EQ(CheckLostWrites(only_unknown.h, {{5, Absent()}}).verdict, Verdict::kPass);
}

TEST(LostWrites, AValueNeverWrittenIsUnexpected) {
  HistoryBuilder b;
  const Record w = b.Write(1, 5, 100, 200);
  const CheckResult r = CheckLostWrites(b.h, {{5, {Seen::kOurs, ValueId(9, 9), ""}}});
  EXPECT_EQ(r.verdict, Verdict::kViolated);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].kind, "unexpected");
  EXPECT_NE(r.findings[0].text.find("key:5 holds 9:9: no write of this run put it anywhere"), std::string::npos)
      << r.findings[0].text;
  EXPECT_EQ(r.findings[1].kind, "lost");  // and the acknowledged write is gone
  EXPECT_EQ(r.findings[1].ops[0].op_id, w.op_id);
}

TEST(LostWrites, AFailedWritesValueOrAnotherKeysIsUnexpected) {
  HistoryBuilder b;
  const Record failed = b.Write(1, 5, 100, 200, Outcome::kFail);
  const Record other = b.Write(2, 6, 100, 200);
  const CheckResult r = CheckLostWrites(b.h, {{5, Holds(failed)}, {6, Holds(failed)}});
  EXPECT_EQ(r.verdict, Verdict::kViolated);
  ASSERT_GE(r.findings.size(), 2u);
  EXPECT_NE(r.findings[0].text.find("a write that failed"), std::string::npos) << r.findings[0].text;
  EXPECT_NE(r.findings[1].text.find("put it on key:5"), std::string::npos) << r.findings[1].text;
  (void)other;
}

TEST(LostWrites, ForeignBytesOnAFreshKeyAreUnexpected) {
  HistoryBuilder fresh(TargetKind::kResp, true);
  fresh.Write(1, 5, 100, 200, Outcome::kFail);
  const CheckResult r = CheckLostWrites(fresh.h, {{5, {Seen::kForeign, 0, "hello"}}});
  EXPECT_EQ(r.verdict, Verdict::kViolated);
  EXPECT_NE(r.findings[0].text.find("bytes this run did not write: 'hello'"), std::string::npos);
  // Keys not fresh: bytes from before the run, untouched by a failed write, are fine.
  HistoryBuilder old(TargetKind::kResp, false);
  old.Write(1, 5, 100, 200, Outcome::kFail);
  EXPECT_EQ(CheckLostWrites(old.h, {{5, {Seen::kForeign, 0, "hello"}}}).verdict, Verdict::kPass);
}

TEST(LostWrites, AWrittenKeyNotReadMeansTheCheckCouldNotRun) {
  HistoryBuilder b;
  b.Write(1, 5, 100, 200);
  b.Read(2, 9, 100, 200, Seen::kAbsent);  // read only: not a key to read after the run
  EXPECT_EQ(WrittenKeys(b.h), std::vector<uint64_t>{5});
  const CheckResult r = CheckLostWrites(b.h, {});
  EXPECT_EQ(r.verdict, Verdict::kCouldNotRun);
  EXPECT_EQ(r.summary, "key:5 was written but not read after the run");
}

}  // namespace
}  // namespace memstand::history
