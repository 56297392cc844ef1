#include "report/sweep_report.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

SweepStep Step(uint64_t x, double ops, double p99, int exit_code = 0) {
  SweepStep s;
  s.x = x;
  s.measured = true;
  s.exit_code = exit_code;
  s.verdict = exit_code == 0 ? "OK" : "FAILED: lost connection";
  s.ops_per_sec = ops;
  s.p99_us = p99;
  return s;
}

SweepOutcome Outcome(std::vector<SweepStep> steps) {
  SweepOutcome o;
  o.knob = "clients";
  for (const auto& s : steps) o.values.push_back(s.x);
  o.steps = std::move(steps);
  Conclude(&o);
  return o;
}

TEST(SweepReport, KneeIsStatedWithItsStepAndRule) {
  SweepOutcome o = Outcome({Step(1, 10000, 50), Step(4, 35000, 60), Step(16, 36000, 200),
                            Step(64, 36500, 900)});
  ASSERT_TRUE(o.knee.has_value());
  EXPECT_EQ(*o.knee, 1u);
  EXPECT_EQ(o.exit_code, 0);
  std::string text = KneeText(o);
  EXPECT_NE(text.find("knee at clients=4 (step 2 of 4)"), std::string::npos) << text;
  EXPECT_NE(text.find("35000.0 -> 36000.0 ops/s"), std::string::npos) << text;
  EXPECT_NE(text.find("less than 5%"), std::string::npos) << text;
  auto j = SweepJson(o);
  EXPECT_EQ(j["schema"], "memstand.sweep");
  EXPECT_EQ(j["steps"].size(), 4u);
  EXPECT_EQ(j["knee"]["found"], true);
  EXPECT_EQ(j["knee"]["index"], 1);
  EXPECT_EQ(j["knee"]["x"], 4);
}

TEST(SweepReport, RisingThroughputHasNoKnee) {
  SweepOutcome o = Outcome({Step(1, 10000, 50), Step(2, 20000, 55), Step(4, 40000, 60)});
  EXPECT_FALSE(o.knee.has_value());
  EXPECT_NE(KneeText(o).find("no knee within the range"), std::string::npos);
  EXPECT_EQ(SweepJson(o)["knee"]["found"], false);
  EXPECT_TRUE(SweepJson(o)["knee"]["x"].is_null());
}

TEST(SweepReport, TooFewStepsSaySo) {
  SweepOutcome o = Outcome({Step(1, 10000, 50), Step(2, 10100, 90)});
  EXPECT_FALSE(o.knee.has_value());
  EXPECT_NE(KneeText(o).find("a knee needs 3"), std::string::npos) << KneeText(o);
}

TEST(SweepReport, AFailedStepIsLeftOutOfTheKneeAndFailsTheSweep) {
  // Without the failed step at 8 (its throughput collapsed), 4 is the knee.
  SweepOutcome o = Outcome({Step(1, 10000, 50), Step(4, 35000, 60), Step(8, 100, 9000, 1),
                            Step(16, 35500, 200)});
  ASSERT_TRUE(o.knee.has_value());
  EXPECT_EQ(*o.knee, 1u);
  EXPECT_NE(KneeText(o).find("to clients=16"), std::string::npos) << KneeText(o);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.verdict, "FAILED: 1 of 4 steps failed");
}

TEST(SweepReport, InterruptedSweepIsNotOk) {
  SweepOutcome o;
  o.knob = "pipeline";
  o.values = {1, 4, 16};
  o.steps = {Step(1, 10000, 50)};
  o.interrupted = true;
  Conclude(&o);
  EXPECT_EQ(o.exit_code, 130);
  EXPECT_EQ(o.verdict, "INTERRUPTED: 1 of 3 steps made");
}

// The step a signal stopped ends with 130, the run's own code: the sweep was cut
// short, nothing failed (it used to say "FAILED: 1 of 2 steps failed", exit 1).
TEST(SweepReport, TheStepASignalStoppedIsNotAFailure) {
  SweepOutcome o;
  o.knob = "clients";
  o.values = {1, 4, 16};
  o.steps = {Step(1, 10000, 50), Step(4, 20000, 60, 130)};
  o.interrupted = true;
  Conclude(&o);
  EXPECT_EQ(o.exit_code, 130);
  EXPECT_EQ(o.verdict, "INTERRUPTED: 2 of 3 steps made");
  EXPECT_FALSE(o.knee.has_value());
}

}  // namespace
}  // namespace memstand
