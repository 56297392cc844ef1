// etcd's revisions never going back, a record at a time.
#include "history/revisions.h"

#include <gtest/gtest.h>

#include "history/history_test_util.h"

namespace memstand::history {
namespace {

TEST(Revisions, NotEtcdIsNotApplicable) {
  HistoryBuilder b(TargetKind::kResp);
  b.Write(1, 1, 0, 10);
  const CheckResult r = CheckRevisions(b.h);
  EXPECT_EQ(r.verdict, Verdict::kNotApplicable);
  EXPECT_EQ(r.summary, "a redis history: revisions are etcd's");
}

TEST(Revisions, AnEtcdHistoryWithoutRevisionsCouldNotRun) {
  HistoryBuilder b(TargetKind::kEtcd);
  b.Write(1, 1, 0, 10);
  EXPECT_EQ(CheckRevisions(b.h).verdict, Verdict::kCouldNotRun);
}

TEST(Revisions, ALowerRevisionAfterAHigherOneCompletedIsFound) {
  HistoryBuilder b(TargetKind::kEtcd);
  Record w = b.Write(1, 1, 0, 10);
  Record r1 = b.Read(2, 1, 20, 30, Seen::kOurs, w.written());
  Record r2 = b.Read(3, 1, 40, 50, Seen::kOurs, w.written());
  Record r3 = b.Read(4, 1, 45, 60, Seen::kOurs, w.written());
  b.h.records = {w, r1, r2, r3};
  b.h.records[0].revision = 5;
  b.h.records[1].revision = 7;
  b.h.records[2].revision = 6;  // began after r1 completed at revision 7
  b.h.records[3].revision = 6;  // also after r1: a second finding
  const CheckResult r = CheckRevisions(b.h);
  EXPECT_EQ(r.verdict, Verdict::kViolated);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].ops[0].op_id, r1.op_id);
  EXPECT_EQ(r.findings[0].ops[1].op_id, r2.op_id);
  EXPECT_NE(r.findings[0].text.find("saw revision 6, below the revision 7 of op"), std::string::npos)
      << r.findings[0].text;
}

TEST(Revisions, ConcurrentOperationsMaySeeEitherRevision) {
  HistoryBuilder b(TargetKind::kEtcd);
  Record w1 = b.Write(1, 1, 0, 100);
  Record w2 = b.Write(2, 2, 10, 50);
  b.h.records = {w1, w2};
  b.h.records[0].revision = 3;
  b.h.records[1].revision = 9;
  EXPECT_EQ(CheckRevisions(b.h).verdict, Verdict::kPass);
}

TEST(Revisions, TwoAcknowledgedWritesSharingARevisionAreFound) {
  HistoryBuilder b(TargetKind::kEtcd);
  Record w1 = b.Write(1, 1, 0, 100);
  Record w2 = b.Write(2, 2, 10, 50);
  b.h.records = {w1, w2};
  b.h.records[0].revision = 4;
  b.h.records[1].revision = 4;
  const CheckResult r = CheckRevisions(b.h);
  EXPECT_EQ(r.verdict, Verdict::kViolated);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].kind, "revision shared");
}

}  // namespace
}  // namespace memstand::history
