#include "scenario/failover/tarantool.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(TarantoolFailover, TheMostAdvancedReachableReplicaIsPromoted) {
  EXPECT_EQ(MostAdvanced({{"replica-1", true, 10}, {"replica-2", true, 12}}), 1);
  EXPECT_EQ(MostAdvanced({{"replica-1", true, 12}, {"replica-2", true, 10}}), 0);
  // A tie: the first in order.
  EXPECT_EQ(MostAdvanced({{"replica-1", true, 7}, {"replica-2", true, 7}}), 0);
  // An unreachable replica is never chosen, however far it says it was.
  EXPECT_EQ(MostAdvanced({{"replica-1", false, 99}, {"replica-2", true, 0}}), 1);
  EXPECT_EQ(MostAdvanced({{"replica-1", false, 0}, {"replica-2", false, 0}}), -1);
  EXPECT_EQ(MostAdvanced({}), -1);
}

TEST(TarantoolFailover, TheLoadWritesAndReadsOneRegisterSpace) {
  const std::vector<std::string> c = TarantoolCommands();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0], "replace failover [__key__, __data__]");
  EXPECT_EQ(c[1], "select failover 0 eq [__key__] limit 1");
}

}  // namespace
}  // namespace memstand
