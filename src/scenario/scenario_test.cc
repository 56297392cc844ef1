#include "scenario/scenario.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(PortionOfTest, NamesTheIntervalOfTheWrite) {
  EXPECT_EQ(PortionOf(31409, 10000, 200000).Describe(), "(30000; 40000]");
  EXPECT_EQ(PortionOf(30000, 10000, 200000).Describe(), "(20000; 30000]");  // the high end is in
  EXPECT_EQ(PortionOf(30001, 10000, 200000).Describe(), "(30000; 40000]");  // the low end is out
  EXPECT_EQ(PortionOf(1, 10000, 200000).Describe(), "(0; 10000]");
  EXPECT_EQ(PortionOf(199999, 10000, 195000).Describe(), "(190000; 195000]");  // capped at the total
  EXPECT_EQ(PortionOf(7, 1, 10).Describe(), "(6; 7]");  // portions of one: the exact write
}

// durability-overload's 2 cells of 0.2 s are "0.4 s of load", not "0 s".
TEST(ApproxSecondsTest, ShortPlansKeepTheirDigits) {
  EXPECT_EQ(ApproxSeconds(0.4), "0.4");
  EXPECT_EQ(ApproxSeconds(2.5), "2.5");
  EXPECT_EQ(ApproxSeconds(0), "0");
  EXPECT_EQ(ApproxSeconds(12.4), "12");
  EXPECT_EQ(ApproxSeconds(3600), "3600");
}

TEST(InvariantTest, ShowsBothSidesAndFailsWhenTheyDiffer) {
  Invariant ok = MakeInvariant("present", 31097, "successful - evicted", 200000 - 168903);
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.name, "present == successful - evicted");
  // The published table's impossible figures: 50,133 present after 159,793 of 200,000 evicted.
  Invariant broken = MakeInvariant("present", 50133, "successful - evicted", 200000 - 159793);
  EXPECT_FALSE(broken.ok());
  EXPECT_NE(broken.Describe().find("50133 == 40207"), std::string::npos) << broken.Describe();
  EXPECT_NE(broken.Describe().find("BROKEN"), std::string::npos);
  EXPECT_EQ(broken.ToJson()["ok"], false);
  EXPECT_EQ(broken.ToJson()["rhs_value"], 40207);
}

TEST(ScenarioReportTest, TheWorstVerdictWinsAndSetsTheExitCode) {
  ScenarioReport r;
  EXPECT_EQ(r.ExitCode(), kScenarioExitOk);
  r.Mark(ScenarioVerdict::kPartial, "tarantool is not installed");
  EXPECT_EQ(r.ExitCode(), kScenarioExitPartial);
  r.Mark(ScenarioVerdict::kFailed, "an invariant broke");
  r.Mark(ScenarioVerdict::kPartial, "");
  EXPECT_EQ(r.verdict, ScenarioVerdict::kFailed);
  EXPECT_EQ(r.ExitCode(), kScenarioExitFailed);
  EXPECT_EQ(r.verdict_lines.size(), 2u);
  ScenarioReport i;
  i.Mark(ScenarioVerdict::kInterrupted, "SIGINT");
  EXPECT_EQ(i.ExitCode(), kScenarioExitInterrupted);
}

}  // namespace
}  // namespace memstand
