// The checks' report as text and JSON: each finding with its operations, the overall
// verdict.
#include "history/check_report.h"

#include <gtest/gtest.h>

#include "history/history_test_util.h"
#include "history/linearizable.h"
#include "history/lost_writes.h"

namespace memstand::history {
namespace {

TEST(CheckReport, OverallVerdictOrder) {
  auto of = [](std::vector<Verdict> vs) {
    std::vector<CheckResult> rs;
    for (Verdict v : vs) {
      rs.emplace_back();
      rs.back().verdict = v;
    }
    return OverallVerdict(rs);
  };
  EXPECT_EQ(of({}), Verdict::kPass);
  EXPECT_EQ(of({Verdict::kPass, Verdict::kNotApplicable}), Verdict::kPass);
  EXPECT_EQ(of({Verdict::kGaveUp, Verdict::kPass}), Verdict::kGaveUp);
  EXPECT_EQ(of({Verdict::kGaveUp, Verdict::kCouldNotRun}), Verdict::kCouldNotRun);
  EXPECT_EQ(of({Verdict::kCouldNotRun, Verdict::kViolated, Verdict::kGaveUp}), Verdict::kViolated);
}

TEST(CheckReport, TextAndJsonShowTheEvidence) {
  HistoryBuilder b;
  const Record w1 = b.Write(1, 5, 1000, 2000);
  b.Write(2, 5, 3000, 4000);
  b.ReadOf(3, w1, 5000, 1000006000);
  const std::vector<CheckResult> results = {CheckLostWrites(b.h, {{5, {Seen::kAbsent, 0, ""}}}),
                                            CheckLinearizable(b.h)};
  const std::string text = CheckReportText(b.h, results);
  EXPECT_NE(text.find("lost-writes        violated        1 written key(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("  lost: key:5: 2 acknowledged write(s) are gone"), std::string::npos) << text;
  EXPECT_NE(text.find("    op 1 (client 1, write 1:1, ok, 0.000001000s to 0.000002000s) on key:5 at 127.0.0.1:6379"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("op 3 (client 3, read 1:1, ok, 0.000005000s to 1.000006000s)"), std::string::npos) << text;
  EXPECT_NE(text.find("\nverdict: violated\n"), std::string::npos) << text;

  const auto j = CheckReportJson(b.h, results);
  EXPECT_EQ(j["schema"], "memstand.check");
  EXPECT_EQ(j["verdict"], "violated");
  EXPECT_EQ(j["history"]["operations"], 3);
  EXPECT_EQ(j["checks"][0]["check"], "lost-writes");
  EXPECT_EQ(j["checks"][0]["violations"], 1);
  const auto& op = j["checks"][0]["findings"][0]["ops"][0];
  EXPECT_EQ(op["op_id"], 1);
  EXPECT_EQ(op["f"], "write");
  EXPECT_EQ(op["key"], "key:5");
  EXPECT_EQ(op["wrote"], "1:1");
  EXPECT_EQ(op["invoke_ns"], 1000);
  EXPECT_EQ(op["node"], "127.0.0.1:6379");
}

}  // namespace
}  // namespace memstand::history
