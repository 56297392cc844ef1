// AllowOwnCommands: a scenario's own watcher commands widen their rows, and the verdict
// is redone over every row.
#include <gtest/gtest.h>

#include "load/engine.h"

namespace memstand {
namespace {

CrossCheck Rows(std::vector<CrossCheckRow> rows) {
  CrossCheck cc;
  cc.available = true;
  cc.rows = std::move(rows);
  cc.mismatch = true;
  return cc;
}

TEST(AllowOwnCommandsTest, TheWatchersCommandsUpToWhatItSentHold) {
  // The server counted 3 CLUSTER INFO of the 6 the watcher sent (some fell outside the
  // run's window): the row holds; SET is memstand's own and equal.
  CrossCheck cc = Rows({{"set", 100, 100, 0}, {"cluster|info", 0, 3, 0}, {"cluster|nodes", 0, 6, 0}});
  AllowOwnCommands({{"cluster|info", 6}, {"cluster|nodes", 6}, {"cluster", 12}}, &cc);
  EXPECT_FALSE(cc.mismatch);
  EXPECT_EQ(cc.rows[1].memstand, 6);
  EXPECT_EQ(cc.rows[1].unknown, 6);
}

TEST(AllowOwnCommandsTest, MoreThanTheWatcherSentOrAnotherCommandStillDiffers) {
  CrossCheck more = Rows({{"set", 100, 100, 0}, {"cluster|info", 0, 7, 0}});
  AllowOwnCommands({{"cluster|info", 6}}, &more);
  EXPECT_TRUE(more.mismatch);
  CrossCheck other = Rows({{"set", 100, 100, 0}, {"get", 0, 1, 0}});
  AllowOwnCommands({{"cluster|info", 6}}, &other);
  EXPECT_TRUE(other.mismatch);
  // Requests lost in flight keep their allowance beside the watcher's.
  CrossCheck lost = Rows({{"set", 100, 97, 5}, {"cluster|info", 0, 0, 0}});
  AllowOwnCommands({{"cluster|info", 6}}, &lost);
  EXPECT_FALSE(lost.mismatch);
  CrossCheck short_of = Rows({{"set", 100, 94, 5}});
  AllowOwnCommands({}, &short_of);
  EXPECT_TRUE(short_of.mismatch);
}

}  // namespace
}  // namespace memstand
