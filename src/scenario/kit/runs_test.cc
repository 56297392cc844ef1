// The runs loop and the "not installed" line every scenario uses.
#include "scenario/kit/runs.h"

#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(RunsTest, EveryRunInOrderAndRunsMadeCounted) {
  ScenarioContext ctx;
  ctx.runs = 3;
  ctx.progress = nullptr;
  ScenarioReport report;
  std::vector<int> seen;
  ForEachRun(ctx, &report, [&](int run) {
    EXPECT_EQ(report.runs_made, run - 1);
    seen.push_back(run);
  });
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(report.runs_made, 3);
}

TEST(RunsTest, AnInterruptStopsBeforeTheNextRun) {
  std::atomic<bool> interrupt{false};
  ScenarioContext ctx;
  ctx.runs = 5;
  ctx.interrupt = &interrupt;
  ctx.progress = nullptr;
  ScenarioReport report;
  std::vector<int> seen;
  ForEachRun(ctx, &report, [&](int run) {
    seen.push_back(run);
    if (run == 2) interrupt = true;
  });
  EXPECT_EQ(seen, (std::vector<int>{1, 2}));
  EXPECT_EQ(report.runs_made, 2);  // the run the signal cut short was made
}

TEST(RunsTest, NotInstalledNamesTheProgramAndItsPackage) {
  ASSERT_TRUE(SystemInstalled(SystemKind::kRedis));  // this machine has redis-server
  EXPECT_EQ(NotInstalledLine(SystemKind::kRedis), "");
  const std::string path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  ASSERT_EQ(setenv("PATH", "/nonexistent-memstand-test", 1), 0);
  const std::string line = NotInstalledLine(SystemKind::kTarantool);
  setenv("PATH", path.c_str(), 1);
  EXPECT_EQ(line, "not run: tarantool is not installed (apt-get install tarantool)");
}

}  // namespace
}  // namespace memstand
