#include "stand/cluster_watch.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(ConditionTimelineTest, AnIntervalRunsFromFirstSeenToFirstNotSeen) {
  ConditionTimeline t;
  t.Observe(0, {});
  t.Observe(1, {"master-2 pfail"});
  t.Observe(2, {"master-2 pfail"});
  t.Observe(3, {"master-2 fail", "master-1 cluster_state:fail"});
  t.Observe(4, {"master-1 cluster_state:fail"});
  t.Observe(5, {});
  auto got = t.Finish(6);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].what, "master-2 pfail");
  EXPECT_DOUBLE_EQ(got[0].from_s, 1);
  EXPECT_DOUBLE_EQ(got[0].to_s, 3);
  EXPECT_DOUBLE_EQ(got[0].seconds(), 2);
  EXPECT_FALSE(got[0].open);
  EXPECT_EQ(got[1].what, "master-1 cluster_state:fail");  // ties by name
  EXPECT_DOUBLE_EQ(got[1].seconds(), 2);
  EXPECT_EQ(got[2].what, "master-2 fail");
  EXPECT_DOUBLE_EQ(got[2].seconds(), 1);
}

TEST(ConditionTimelineTest, ARecurringConditionIsTwoIntervalsAndAnOpenOneIsMarked) {
  ConditionTimeline t;
  t.Observe(0, {"master-3 no answer"});
  t.Observe(1, {});
  t.Observe(2, {"master-3 no answer"});
  auto got = t.Finish(2.5);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_FALSE(got[0].open);
  EXPECT_DOUBLE_EQ(got[0].seconds(), 1);
  EXPECT_TRUE(got[1].open);
  EXPECT_DOUBLE_EQ(got[1].from_s, 2);
  EXPECT_DOUBLE_EQ(got[1].to_s, 2.5);
  EXPECT_TRUE(t.Finish(3).size() == 2u);  // nothing open is added twice
}

TEST(ClusterNodesTest, FlagsByPortAndConditionsByName) {
  const std::string text =
      "07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004 master,fail? - 0 1426238317239 4 connected 0-5460\n"
      "67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 myself,master - 0 0 2 connected 5461-10922\n"
      "292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003 master,fail - 0 1426238316232 3 disconnected\n"
      "garbage\n";
  auto nodes = ParseClusterNodes(text);
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0].port, 30004);
  EXPECT_EQ(nodes[0].flags.count("fail?"), 1u);
  EXPECT_EQ(nodes[1].flags.count("myself"), 1u);
  const std::map<int, std::string> names = {{30002, "master-1"}, {30004, "master-3"}};
  auto c = ClusterConditions("master-1", "ok", nodes, names);
  EXPECT_EQ(c, (std::set<std::string>{"master-3 pfail", "port 30003 fail"}));
  auto down = ClusterConditions("master-1", "fail", {}, names);
  EXPECT_EQ(down, (std::set<std::string>{"master-1 cluster_state:fail"}));
}

}  // namespace
}  // namespace memstand
