// Per-key linearizability, a record at a time: small histories both ways (as Porcupine's
// tests have them), the planted stale read and value never written found with their
// operation, a generated history of overlapping operations that must pass, and the
// bounds that make the search give up.
#include "history/linearizable.h"

#include <algorithm>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "history/history_test_util.h"
#include "util/rng.h"

namespace memstand::history {
namespace {

Verdict VerdictOf(const History& h) { return CheckLinearizable(h).verdict; }

TEST(Linearizable, AnEmptyHistoryPasses) {
  HistoryBuilder b;
  const CheckResult r = CheckLinearizable(b.h);
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_EQ(r.summary, "0 key(s): 0 linearizable, 0 not, 0 given up on");
}

TEST(Linearizable, SequentialWritesAndReadsPass) {
  HistoryBuilder b;
  b.Read(1, 1, 0, 5, Seen::kAbsent);
  const Record w1 = b.Write(1, 1, 10, 20);
  b.ReadOf(2, w1, 30, 40);
  const Record w2 = b.Write(2, 1, 50, 60);
  b.ReadOf(1, w2, 70, 80);
  EXPECT_EQ(VerdictOf(b.h), Verdict::kPass);
}

TEST(Linearizable, AStaleReadIsFoundWithItsOperation) {
  HistoryBuilder b;
  const Record w1 = b.Write(1, 1, 0, 10);
  b.Write(2, 1, 20, 30);
  const Record stale = b.ReadOf(3, w1, 40, 50);  // w2 completed before it began
  const CheckResult r = CheckLinearizable(b.h);
  EXPECT_EQ(r.verdict, Verdict::kViolated);
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.kind, "not linearizable");
  EXPECT_EQ(f.key, 1u);
  EXPECT_EQ(f.text.rfind("key:1: op " + std::to_string(stale.op_id) + " (client 3, read 1:1, ok", 0), 0u) << f.text;
  EXPECT_NE(f.text.find("places 2 of 3 operations"), std::string::npos) << f.text;
  EXPECT_NE(f.text.find("the register then holds 2:1"), std::string::npos) << f.text;
  const bool shown = std::any_of(f.ops.begin(), f.ops.end(), [&](const Record& o) { return o.op_id == stale.op_id; });
  EXPECT_TRUE(shown);
  EXPECT_EQ(r.summary, "1 key(s): 0 linearizable, 1 not, 0 given up on");
}

TEST(Linearizable, AValueNeverWrittenIsFoundBeforeAnySearch) {
  HistoryBuilder b;
  b.Write(1, 1, 0, 10);
  const Record bad = b.Read(2, 1, 20, 30, Seen::kOurs, ValueId(77, 1));
  const CheckResult r = CheckLinearizable(b.h);
  EXPECT_EQ(r.verdict, Verdict::kViolated);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].kind, "impossible read");
  ASSERT_EQ(r.findings[0].ops.size(), 1u);
  EXPECT_EQ(r.findings[0].ops[0].op_id, bad.op_id);
  EXPECT_NE(r.findings[0].text.find("read 77:1, a value no operation wrote"), std::string::npos)
      << r.findings[0].text;
}

TEST(Linearizable, ReadsNoOrderCouldExplainAreNamed) {
  HistoryBuilder b;
  const Record other_key = b.Write(1, 2, 0, 10);
  const Record failed = b.Write(2, 1, 0, 10, Outcome::kFail);
  const Record future = b.Write(3, 1, 100, 110);
  b.ReadOf(4, other_key, 20, 30);  // key 2's value read on key 2: fine
  b.Read(5, 1, 20, 30, Seen::kOurs, other_key.written());
  b.Read(6, 1, 20, 30, Seen::kOurs, failed.written());
  b.Read(7, 1, 20, 30, Seen::kOurs, future.written());
  const CheckResult r = CheckLinearizable(b.h);
  ASSERT_EQ(r.findings.size(), 3u);
  EXPECT_NE(r.findings[0].text.find("a value written to key:2"), std::string::npos) << r.findings[0].text;
  EXPECT_NE(r.findings[1].text.find("a write that failed"), std::string::npos) << r.findings[1].text;
  EXPECT_NE(r.findings[2].text.find("began after this ended"), std::string::npos) << r.findings[2].text;
}

// Two writes overlapping each other and two reads: linearizable when the reads overlap
// the writes, not when both writes are over before the reads see them in turn.
TEST(Linearizable, OverlappingWritesBothWays) {
  HistoryBuilder ok;
  const Record a = ok.Write(1, 1, 0, 100);
  const Record b = ok.Write(2, 1, 0, 100);
  ok.ReadOf(3, a, 10, 20);
  ok.ReadOf(4, b, 30, 40);
  EXPECT_EQ(VerdictOf(ok.h), Verdict::kPass);

  HistoryBuilder bad;
  const Record a2 = bad.Write(1, 1, 0, 100);
  const Record b2 = bad.Write(2, 1, 0, 100);
  bad.ReadOf(3, a2, 110, 120);
  bad.ReadOf(4, b2, 130, 140);
  EXPECT_EQ(VerdictOf(bad.h), Verdict::kViolated);

  HistoryBuilder flip;  // the reads see b then a: fine while both writes run
  const Record a3 = flip.Write(1, 1, 0, 100);
  const Record b3 = flip.Write(2, 1, 0, 100);
  flip.ReadOf(3, b3, 10, 20);
  flip.ReadOf(4, a3, 30, 40);
  flip.ReadOf(5, a3, 150, 160);
  EXPECT_EQ(VerdictOf(flip.h), Verdict::kPass);
}

TEST(Linearizable, ReadsOverlappingAWriteMaySeeEitherButNotGoBack) {
  HistoryBuilder ok;
  const Record w0 = ok.Write(1, 1, 0, 10);
  const Record w1 = ok.Write(2, 1, 20, 100);
  ok.ReadOf(3, w0, 30, 40);
  ok.ReadOf(4, w1, 50, 60);
  EXPECT_EQ(VerdictOf(ok.h), Verdict::kPass);

  HistoryBuilder back;  // once one read saw w1, a read that began later cannot see w0
  const Record v0 = back.Write(1, 1, 0, 10);
  const Record v1 = back.Write(2, 1, 20, 100);
  back.ReadOf(3, v1, 30, 40);
  back.ReadOf(4, v0, 50, 60);
  EXPECT_EQ(VerdictOf(back.h), Verdict::kViolated);
}

TEST(Linearizable, AnUnknownWriteMayTakeEffectLateOrNever) {
  HistoryBuilder late;
  const Record w1 = late.Write(1, 1, 0, 10);
  const Record unknown = late.Write(2, 1, 20, 30, Outcome::kUnknown);
  late.ReadOf(3, w1, 100, 110);
  late.ReadOf(3, unknown, 1000, 1010);  // long after its client gave up on it
  EXPECT_EQ(VerdictOf(late.h), Verdict::kPass);

  HistoryBuilder never;
  const Record v1 = never.Write(1, 1, 0, 10);
  never.Write(2, 1, 20, 30, Outcome::kUnknown);
  never.ReadOf(3, v1, 100, 110);
  never.ReadOf(3, v1, 1000, 1010);
  EXPECT_EQ(VerdictOf(never.h), Verdict::kPass);

  HistoryBuilder twice;  // but once: not back and forth
  const Record x1 = twice.Write(1, 1, 0, 10);
  const Record x2 = twice.Write(2, 1, 20, 30, Outcome::kUnknown);
  twice.ReadOf(3, x2, 100, 110);
  twice.ReadOf(3, x1, 200, 210);
  EXPECT_EQ(VerdictOf(twice.h), Verdict::kViolated);
}

TEST(Linearizable, CasTakesEffectOnlyOnItsExpectedValue) {
  HistoryBuilder ok;
  const Record c1 = ok.Cas(1, 1, 0, 10, Seen::kAbsent, 0);
  const Record c2 = ok.Cas(1, 1, 20, 30, Seen::kOurs, c1.written());
  ok.ReadOf(2, c2, 40, 50);
  ok.Cas(2, 1, 60, 70, Seen::kAbsent, 0, Outcome::kFail);  // failed: did nothing
  ok.ReadOf(3, c2, 80, 90);
  EXPECT_EQ(VerdictOf(ok.h), Verdict::kPass);

  HistoryBuilder bad;  // two cas from absent, one after the other: the second cannot
  bad.Cas(1, 1, 0, 10, Seen::kAbsent, 0);
  bad.Cas(2, 1, 20, 30, Seen::kAbsent, 0);
  EXPECT_EQ(VerdictOf(bad.h), Verdict::kViolated);
}

TEST(Linearizable, KeysNotFreshStartFromAValueOfBeforeTheRun) {
  HistoryBuilder b(TargetKind::kResp, false);
  b.Read(1, 1, 0, 10, Seen::kForeign);
  const Record w = b.Write(1, 1, 20, 30);
  b.ReadOf(2, w, 40, 50);
  EXPECT_EQ(VerdictOf(b.h), Verdict::kPass);
  b.Read(3, 1, 60, 70, Seen::kAbsent);  // nothing of this run deletes
  EXPECT_EQ(VerdictOf(b.h), Verdict::kViolated);

  HistoryBuilder fresh(TargetKind::kResp, true);
  fresh.Read(1, 1, 0, 10, Seen::kForeign);
  EXPECT_EQ(VerdictOf(fresh.h), Verdict::kViolated);
}

TEST(Linearizable, EachKeyIsJudgedAlone) {
  HistoryBuilder b;
  const Record a = b.Write(1, 1, 0, 10);
  b.ReadOf(2, a, 20, 30);
  const Record x = b.Write(3, 2, 0, 10);
  b.Write(4, 2, 20, 30);
  b.ReadOf(5, x, 40, 50);
  const CheckResult r = CheckLinearizable(b.h);
  EXPECT_EQ(r.verdict, Verdict::kViolated);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].key, 2u);
  EXPECT_EQ(r.summary, "2 key(s): 1 linearizable, 1 not, 0 given up on");
}

// A register run for real: each operation takes effect at a random instant inside its
// interval, clients overlap each other; whatever it produces is linearizable.
History Simulated(uint64_t seed, int clients, int ops_per_client, int keys) {
  HistoryBuilder b;
  Rng rng(seed);
  struct Pending {
    int64_t at;
    int client;
    int64_t invoke, complete;
    uint64_t key;
    int kind;  // 0 read, 1 write
  };
  std::vector<Pending> ops;
  for (int c = 0; c < clients; ++c) {
    int64_t t = static_cast<int64_t>(rng.Uniform(50));
    for (int i = 0; i < ops_per_client; ++i) {
      const int64_t len = 1 + static_cast<int64_t>(rng.Uniform(100));
      const int kind = static_cast<int>(rng.Uniform(10)) < 5 ? 0 : 1;
      ops.push_back({t + static_cast<int64_t>(rng.Uniform(len + 1)), c, t, t + len,
                     rng.Uniform(static_cast<uint64_t>(keys)), kind});
      t += len + static_cast<int64_t>(rng.Uniform(20));
    }
  }
  // Stable: a client's operations keep their order (its seq) at equal instants.
  std::stable_sort(ops.begin(), ops.end(), [](const Pending& a, const Pending& b) { return a.at < b.at; });
  std::map<uint64_t, uint64_t> reg;  // key -> ValueId (absent when missing)
  for (const Pending& p : ops) {
    const uint32_t client = static_cast<uint32_t>(p.client + 1);
    if (p.kind == 0) {
      const auto it = reg.find(p.key);
      b.Read(client, p.key, p.invoke, p.complete, it == reg.end() ? Seen::kAbsent : Seen::kOurs,
             it == reg.end() ? 0 : it->second);
    } else {
      reg[p.key] = b.Write(client, p.key, p.invoke, p.complete).written();
    }
  }
  return b.h;
}

TEST(Linearizable, AGeneratedHistoryOfOverlappingOperationsPasses) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const History h = Simulated(seed, 8, 60, 3);
    const CheckResult r = CheckLinearizable(h);
    EXPECT_EQ(r.verdict, Verdict::kPass) << "seed " << seed << ": " << r.summary;
    EXPECT_EQ(r.summary, "3 key(s): 3 linearizable, 0 not, 0 given up on");
  }
}

// Ten writes at once, then two reads, one after the other, of two of them: no order
// explains it, and the search must look at every order of the ten to know.
History Pathological() {
  HistoryBuilder b;
  std::vector<Record> ws;
  for (uint32_t c = 1; c <= 10; ++c) ws.push_back(b.Write(c, 1, 0, 1000));
  b.ReadOf(11, ws[0], 1100, 1110);
  b.ReadOf(11, ws[1], 1120, 1130);
  return b.h;
}

TEST(Linearizable, ThePathologicalOneIsDecidedWithinTheDefaultBounds) {
  EXPECT_EQ(CheckLinearizable(Pathological()).verdict, Verdict::kViolated);
}

TEST(Linearizable, ItGivesUpWhenTheStepBoundRunsOut) {
  LinearizabilityLimits limits;
  limits.max_steps_per_key = 500;
  const CheckResult r = CheckLinearizable(Pathological(), limits);
  EXPECT_EQ(r.verdict, Verdict::kGaveUp);
  EXPECT_EQ(r.violations, 0u);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].kind, "gave up");
  EXPECT_EQ(r.findings[0].text, "key:1: gave up after 501 steps over 12 operations: its step bound ran out");
  EXPECT_EQ(r.summary, "1 key(s): 0 linearizable, 0 not, 1 given up on");
}

TEST(Linearizable, ItGivesUpWhenTheMemoryBoundRunsOut) {
  LinearizabilityLimits limits;
  limits.max_memory_per_key = 1;  // checked every 1024 steps
  const CheckResult r = CheckLinearizable(Pathological(), limits);
  EXPECT_EQ(r.verdict, Verdict::kGaveUp);
  EXPECT_NE(r.findings[0].text.find("gave up after 1024 steps over 12 operations: its memory bound ran out"),
            std::string::npos)
      << r.findings[0].text;
}

}  // namespace
}  // namespace memstand::history
