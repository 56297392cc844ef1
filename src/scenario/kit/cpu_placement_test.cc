#include "scenario/kit/cpu_placement.h"

#include <unistd.h>

#include <gtest/gtest.h>

namespace memstand {
namespace {

CpuChoice Auto() { return {CpuChoice::Kind::kAuto, {}}; }
CpuChoice None() { return {CpuChoice::Kind::kNone, {}}; }
CpuChoice List(CpuList cpus) { return {CpuChoice::Kind::kList, std::move(cpus)}; }

TEST(CpuPlacement, AutoPutsTheClientOnTheLastCpuAndTheServersOnTheOthers) {
  CpuPlan p = PlanCpus(Auto(), Auto(), {0, 1});
  EXPECT_EQ(p.client, (CpuList{1}));
  EXPECT_EQ(p.servers, (CpuList{0}));
  p = PlanCpus(Auto(), Auto(), {0, 1, 2, 3});
  EXPECT_EQ(p.client, (CpuList{3}));
  EXPECT_EQ(p.servers, (CpuList{0, 1, 2}));
  p = PlanCpus(Auto(), Auto(), {2, 5});  // memstand's own affinity, not the machine's
  EXPECT_EQ(p.client, (CpuList{5}));
  EXPECT_EQ(p.servers, (CpuList{2}));
}

TEST(CpuPlacement, OneCpuOrNonePinsNothing) {
  CpuPlan p = PlanCpus(Auto(), Auto(), {0});
  EXPECT_TRUE(p.client.empty());
  EXPECT_TRUE(p.servers.empty());
  p = PlanCpus(None(), None(), {0, 1});
  EXPECT_TRUE(p.client.empty());
  EXPECT_TRUE(p.servers.empty());
  p = PlanCpus(None(), Auto(), {0, 1});  // no client to keep away from
  EXPECT_TRUE(p.client.empty());
  EXPECT_TRUE(p.servers.empty());
  p = PlanCpus(Auto(), None(), {0, 1});
  EXPECT_EQ(p.client, (CpuList{1}));
  EXPECT_TRUE(p.servers.empty());
}

TEST(CpuPlacement, AListIsTakenAsGivenAndAutoFitsAroundIt) {
  CpuPlan p = PlanCpus(List({0}), Auto(), {0, 1, 2});
  EXPECT_EQ(p.client, (CpuList{0}));
  EXPECT_EQ(p.servers, (CpuList{1, 2}));
  p = PlanCpus(Auto(), List({1, 2}), {0, 1, 2});
  EXPECT_EQ(p.client, (CpuList{0}));
  EXPECT_EQ(p.servers, (CpuList{1, 2}));
  p = PlanCpus(Auto(), List({0, 1}), {0, 1});  // nothing left for the client
  EXPECT_TRUE(p.client.empty());
  p = PlanCpus(List({0, 1}), Auto(), {0, 1});  // nothing left for the servers
  EXPECT_TRUE(p.servers.empty());
  p = PlanCpus(List({1}), List({1}), {0, 1});  // an overlap asked for
  EXPECT_EQ(p.client, (CpuList{1}));
  EXPECT_EQ(p.servers, (CpuList{1}));
}

TEST(CpuPlacement, ChoicesAreAutoNoneOrAnOnlineList) {
  EXPECT_EQ(ParseCpuChoice("auto", "--client-cpus")->kind, CpuChoice::Kind::kAuto);
  EXPECT_EQ(ParseCpuChoice("none", "--client-cpus")->kind, CpuChoice::Kind::kNone);
  auto zero = ParseCpuChoice("0", "--client-cpus");
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->list, (CpuList{0}));
  for (const char* bad : {"", "Auto", "0-", "2-1", "0,,1"}) {
    auto r = ParseCpuChoice(bad, "--server-cpus");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(r.status().message().find("--server-cpus: bad CPU list"), 0u) << r.status().message();
    EXPECT_NE(r.status().message().find("or auto (the default), or none (not pinned)"), std::string::npos);
  }
  EXPECT_NE(ParseCpuChoice("1023", "--client-cpus").status().message().find("CPU 1023 is not online"),
            std::string::npos);
}

TEST(CpuPlacement, TheReportGroupsServersByTheirCpus) {
  CpuReport r;
  r.client = {1};
  r.client_pinned = true;
  EXPECT_EQ(r.Describe(), "CPUs (read back from the kernel): client 1 (pinned); servers none started");
  r.servers_pinned = true;
  r.servers = {{"redis-lru", {0}}, {"redis-lfu", {0}}, {"postgres", {0, 1}}};
  EXPECT_EQ(r.Describe(),
            "CPUs (read back from the kernel): client 1 (pinned); servers 0 (pinned): redis-lru, redis-lfu; "
            "0-1 (pinned): postgres");
  const nlohmann::json j = r.ToJson();
  EXPECT_EQ(j["client"], nlohmann::json::array({1}));
  EXPECT_EQ(j["client_pinned"], true);
  EXPECT_EQ(j["servers"][2]["name"], "postgres");
  EXPECT_EQ(j["servers"][2]["cpus"], nlohmann::json::array({0, 1}));
}

TEST(CpuPlacement, AServerNotedTwiceIsOneEntryAndAGoneOneIsNone) {
  const size_t before = NotedServerCpus().size();
  NoteServerCpus("cpu-placement-test-self", getpid());
  NoteServerCpus("cpu-placement-test-self", getpid());
  NoteServerCpus("cpu-placement-test-gone", 0);  // no such process
  auto notes = NotedServerCpus();
  ASSERT_EQ(notes.size(), before + 1);
  EXPECT_EQ(notes.back().name, "cpu-placement-test-self");
  EXPECT_EQ(notes.back().cpus, *ProcessCpus(getpid()));
}

}  // namespace
}  // namespace memstand
