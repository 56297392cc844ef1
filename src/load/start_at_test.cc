#include "load/start_at.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(StartAtTest, ParsesRfc3339AndUnixSeconds) {
  EXPECT_EQ(*ParseStartAt("1796149800"), 1796149800.0);
  EXPECT_EQ(*ParseStartAt("2026-12-01T18:30:00Z"), 1796149800.0);
  EXPECT_EQ(*ParseStartAt("2026-12-01 18:30:00z"), 1796149800.0);
  EXPECT_EQ(*ParseStartAt("2026-12-01T19:30:00+01:00"), 1796149800.0);
  EXPECT_EQ(*ParseStartAt("2026-12-01T13:30:00.000-05:00"), 1796149800.0);
  for (const char* bad : {"", "soon", "2026-12-01T18:30:00", "2026-13-01T18:30:00Z",
                          "2026-12-01T18:30:00+1:00", "12x", "1796149800.5",
                          "2026-12-01T18:30:00.25Z"}) {
    auto r = ParseStartAt(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
    }
  }
  EXPECT_NE(ParseStartAt("1796149800.5").status().message().find("whole second"), std::string::npos);
}

// timegm would roll a day past the month's end into the next month; it is refused.
TEST(StartAtTest, ADayPastTheMonthsEndIsRefused) {
  auto r = ParseStartAt("2026-02-30T10:00:00Z");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "'2026-02-30T10:00:00Z': 2026-02 has 28 days");
  EXPECT_FALSE(ParseStartAt("2026-04-31T10:00:00Z").ok());
  EXPECT_FALSE(ParseStartAt("2100-02-29T10:00:00Z").ok());
  EXPECT_TRUE(ParseStartAt("2028-02-29T10:00:00Z").ok());
  EXPECT_TRUE(ParseStartAt("2000-02-29T10:00:00Z").ok());
}

TEST(StartAtTest, PlansTheReleaseBeforeTheStart) {
  StartPlan early = PlanStart(1000, 990, 2);  // on time: warm-up whole
  EXPECT_EQ(early.release_unix_s, 998);
  EXPECT_EQ(early.measured_unix_s, 1000);
  EXPECT_EQ(early.warmup_s, 2);
  EXPECT_FALSE(early.late);
  StartPlan inside = PlanStart(1000, 999.5, 2);  // inside the warm-up: cut
  EXPECT_EQ(inside.release_unix_s, 999.5);
  EXPECT_EQ(inside.measured_unix_s, 1000);
  EXPECT_EQ(inside.warmup_s, 0.5);
  EXPECT_FALSE(inside.late);
  StartPlan late = PlanStart(1000, 1002.25, 2);  // late: the next whole second
  EXPECT_EQ(late.measured_unix_s, 1003);
  EXPECT_EQ(late.warmup_s, 0.75);
  EXPECT_EQ(late.release_unix_s, 1002.25);
  EXPECT_TRUE(late.late);
  StartPlan late_no_warmup = PlanStart(1000, 1002.25, 0);
  EXPECT_EQ(late_no_warmup.release_unix_s, 1003);
}

}  // namespace
}  // namespace memstand
