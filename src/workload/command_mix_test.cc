#include "workload/command_mix.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace memstand {
namespace {

std::vector<uint32_t> Cycle(const CommandMix& mix) {
  std::vector<uint32_t> cycle;
  for (size_t i = 0; i < mix.cycle_length(); ++i) cycle.push_back(mix.At(i));
  return cycle;
}

void ExpectBadRatio(std::string_view text, size_t count, const std::string& words) {
  auto weights = ParseRatio(text, count);
  ASSERT_FALSE(weights.ok()) << text;
  EXPECT_EQ(weights.status().code(), Status::Code::kInvalidArgument);
  const std::string& message = weights.status().message();
  EXPECT_NE(message.find("'" + std::string(text) + "'"), std::string::npos) << message;
  EXPECT_NE(message.find(words), std::string::npos) << message;
}

TEST(ParseRatioTest, ParsesWeights) {
  auto two = ParseRatio("1:10", 2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two, (std::vector<uint32_t>{1, 10}));
  auto three = ParseRatio("3:0:1", 3);
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(*three, (std::vector<uint32_t>{3, 0, 1}));
  auto one = ParseRatio("7", 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, (std::vector<uint32_t>{7}));
  EXPECT_TRUE(ParseRatio("999999:1", 2).ok());
}

TEST(ParseRatioTest, RejectsWrongFieldCount) {
  ExpectBadRatio("1:10", 3, "expected 3 weights");
  ExpectBadRatio("1:2:3", 2, "got 3");
  ExpectBadRatio("5", 2, "got 1");
  ExpectBadRatio("", 2, "got 1");
}

TEST(ParseRatioTest, RejectsNonNumbers) {
  for (const char* text : {"a:1", "1:", ":1", "1.5:2", "1: 2", "+1:2", "0x1:2"}) {
    ExpectBadRatio(text, 2, "not a whole number");
  }
}

TEST(ParseRatioTest, RejectsNegatives) { ExpectBadRatio("-1:2", 2, "'-1' is negative"); }

TEST(ParseRatioTest, RejectsAllZero) { ExpectBadRatio("0:0", 2, "at least one weight"); }

TEST(ParseRatioTest, RejectsOverflowAndHugeSums) {
  ExpectBadRatio("1:99999999999999999999999", 2, "not a whole number in 0..1000000");
  ExpectBadRatio("4294967297:1", 2, "not a whole number");
  ExpectBadRatio("1000000:1", 2, "sum to 1000001");
}

TEST(CommandMixTest, OneToTenHasOneZeroInEleven) {
  const CommandMix mix({1, 10});
  ASSERT_EQ(mix.cycle_length(), 11u);
  const std::vector<uint32_t> cycle = Cycle(mix);
  EXPECT_EQ(std::count(cycle.begin(), cycle.end(), 0u), 1);
  EXPECT_EQ(std::count(cycle.begin(), cycle.end(), 1u), 10);
  EXPECT_EQ(mix.At(11), mix.At(0));
  EXPECT_EQ(mix.At(11 * 1000 + 5), mix.At(5));
}

TEST(CommandMixTest, CountsPerCycleEqualWeights) {
  for (const std::vector<uint32_t>& weights : std::vector<std::vector<uint32_t>>{
           {1, 1}, {3, 7}, {5, 3, 2}, {1, 0, 4}, {100, 1, 17, 0}, {7}}) {
    const CommandMix mix(weights);
    uint64_t total = 0;
    for (uint32_t w : weights) total += w;
    ASSERT_EQ(mix.cycle_length(), total);
    const std::vector<uint32_t> cycle = Cycle(mix);
    for (uint32_t i = 0; i < weights.size(); ++i) {
      EXPECT_EQ(std::count(cycle.begin(), cycle.end(), i), weights[i]) << "index " << i;
    }
  }
}

TEST(CommandMixTest, EqualWeightsAlternate) {
  EXPECT_EQ(Cycle(CommandMix({1, 1})), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(Cycle(CommandMix({2, 2})), (std::vector<uint32_t>{0, 1, 0, 1}));
  EXPECT_EQ(Cycle(CommandMix({1, 1, 1})), (std::vector<uint32_t>{0, 1, 2}));
}

// Over every prefix of the cycle each command's count stays within one of its exact
// share: the commands are interleaved, not sent in runs.
TEST(CommandMixTest, SpreadsEvenly) {
  for (const std::vector<uint32_t>& weights :
       std::vector<std::vector<uint32_t>>{{1, 10}, {3, 7}, {10, 1}, {5, 3, 2}, {13, 29}}) {
    const CommandMix mix(weights);
    const double total = static_cast<double>(mix.cycle_length());
    std::vector<int> counts(weights.size());
    for (size_t p = 0; p < mix.cycle_length(); ++p) {
      ++counts[mix.At(p)];
      for (size_t i = 0; i < weights.size(); ++i) {
        const double share = (p + 1) * weights[i] / total;
        ASSERT_LT(std::fabs(counts[i] - share), 1.0) << "index " << i << " at " << p;
      }
    }
  }
}

TEST(CommandMixTest, OneToTenPutsTheRareCommandMidCycle) {
  const std::vector<uint32_t> cycle = Cycle(CommandMix({1, 10}));
  const auto zero = std::find(cycle.begin(), cycle.end(), 0u) - cycle.begin();
  EXPECT_GE(zero, 4);  // not bunched at an end
  EXPECT_LE(zero, 6);
}

TEST(CommandMixTest, ZeroWeightsAreNeverChosen) {
  const CommandMix mix({0, 3, 0, 2, 0});
  for (size_t p = 0; p < mix.cycle_length(); ++p) {
    EXPECT_NE(mix.At(p), 0u);
    EXPECT_NE(mix.At(p), 2u);
    EXPECT_NE(mix.At(p), 4u);
  }
}

}  // namespace
}  // namespace memstand
