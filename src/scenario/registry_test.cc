// The registry's rows: one per scenario, each name once, a question and systems each,
// and `memstand scenario list` made of them.
#include "scenario/registry.h"

#include <gtest/gtest.h>

#include <set>

namespace memstand {
namespace {

TEST(RegistryTest, EveryRowIsWholeAndNamedOnce) {
  std::set<std::string> names;
  ASSERT_EQ(Scenarios().size(), 6u);
  for (const ScenarioDef& d : Scenarios()) {
    SCOPED_TRACE(d.name);
    EXPECT_TRUE(names.insert(d.name).second);
    EXPECT_GT(std::string(d.question).size(), 40u);
    EXPECT_FALSE(d.systems.empty());
    EXPECT_GE(d.default_runs, 1);
    EXPECT_NE(d.setup, nullptr);
    EXPECT_EQ(FindScenario(d.name), &d);
  }
  EXPECT_EQ(FindScenario("no-such-scenario"), nullptr);
}

TEST(RegistryTest, TheListShowsEachNameWithItsQuestion) {
  const std::string list = DescribeScenarios();
  for (const ScenarioDef& d : Scenarios()) {
    EXPECT_NE(list.find(std::string(d.name) + "\n  " + d.question + "\n"), std::string::npos) << d.name;
  }
}

}  // namespace
}  // namespace memstand
