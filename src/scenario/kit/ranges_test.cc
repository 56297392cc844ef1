// The one text form and the one JSON form of a range over runs.
#include "scenario/kit/ranges.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(RangesTest, TextIsMinMedianMaxWithItsN) {
  EXPECT_EQ(RangeText(RangeOf({3, 1, 2}), "{:.0f}"), "1 2 3 (min median max, N=3)");
  EXPECT_EQ(RangeText(RangeOf({0.5}), "{:.1f}", "ms"), "0.5 0.5 0.5 ms (min median max, N=1)");
  EXPECT_EQ(RangeText(RangeOf({1, 2}), [](double v) { return fmt::format("{:.2f}x", v); }),
            "1.00x 1.50x 2.00x (min median max, N=2)");
  EXPECT_EQ(RangeText(Range{}, "{:g}"), "-");
  EXPECT_EQ(RangeTextOf({5, 9, 7}, "{:.0f}", "s"), "5 7 9 s (min median max, N=3)");
  EXPECT_EQ(RangeTextOf({4}, "{:.1f}", "ms"), "4.0 ms (N=1)");
  EXPECT_EQ(RangeTextOf({}, "{:.0f}"), "-");
}

TEST(RangesTest, JsonIsMinMedianMaxNAndItsMedianReadsBack) {
  const nlohmann::json j = RangeJson(RangeOf({4, 8, 6, 2}));
  EXPECT_EQ(j.dump(), R"({"max":8.0,"median":5.0,"min":2.0,"n":4})");
  EXPECT_EQ(RangeMedianAt({{"ops", j}}, "ops"), 5.0);
  EXPECT_EQ(RangeMedianAt({{"ops", 5}}, "ops"), std::nullopt);
  EXPECT_EQ(RangeMedianAt({{"other", j}}, "ops"), std::nullopt);
}

}  // namespace
}  // namespace memstand
