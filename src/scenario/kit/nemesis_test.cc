// The nemesis (scenario/kit/nemesis.h): schedules parsed or refused with the step and
// the reason; a schedule carried out on a real redis-server topology, each step's process
// and order recorded, no node left paused after an interrupt.
#include "scenario/kit/nemesis.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "stand/process.h"

namespace memstand {
namespace {

const std::vector<std::string> kNodes = {"primary", "replica-1", "replica-2"};

TEST(FaultScheduleTest, StepsWithAndWithoutTheirNode) {
  auto s = ParseFaultSchedule("kill primary at 5s; restart at 15s ;pause replica-1 at 1m  ;resume at 61.5", kNodes);
  ASSERT_TRUE(s.ok()) << s.status().message();
  const std::vector<FaultStep> want = {{FaultAction::kKill, "primary", 5},
                                       {FaultAction::kRestart, "primary", 15},
                                       {FaultAction::kPause, "replica-1", 60},
                                       {FaultAction::kResume, "replica-1", 61.5}};
  EXPECT_EQ(*s, want);
  auto trailing = ParseFaultSchedule("pause replica-2 at 500ms;", kNodes);
  ASSERT_TRUE(trailing.ok()) << trailing.status().message();
  EXPECT_EQ(trailing->size(), 1u);
  // A paused node may be killed (SIGKILL ends a stopped process too).
  EXPECT_TRUE(ParseFaultSchedule("pause primary at 1s; kill at 2s; restart at 3s", kNodes).ok());
}

TEST(FaultScheduleTest, EveryBadScheduleNamesItsStepAndWhy) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "step 1 '': empty"},
      {"kill primary at 1s;; restart at 2s", "step 2 '': empty"},
      {"stop primary at 1s", "'stop' is not an action"},
      {"kill at 1s", "the first step names its node"},
      {"kill primary 1s", "a step is ACTION [NAME] at TIME"},
      {"kill primary in 1s", "'at' expected, not 'in'"},
      {"kill primary at soon", "soon"},
      {"kill primary at 25h", "later than 24 h"},
      {"kill sentinel-1 at 1s",
       "no node or link 'sentinel-1' (the topology has primary, replica-1, replica-2; no link has a relay)"},
      {"cut primary at 1s", "'primary' is a node: cut, blackhole and heal act on a link"},
      {"kill primary at 5s; restart at 4s", "step 2 ' restart at 4s': before the step ahead of it"},
      {"kill primary at 1s; kill at 2s", "primary cannot kill it: it is killed by then"},
      {"restart primary at 1s", "primary cannot restart it: it is running by then"},
      {"resume primary at 1s", "primary cannot resume it: it is running by then"},
      {"pause primary at 1s; pause at 2s", "primary cannot pause it: it is paused by then"},
      {"pause primary at 1s; restart at 2s", "primary cannot restart it: it is paused by then"},
  };
  for (const auto& [text, says] : bad) {
    auto s = ParseFaultSchedule(text, kNodes);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_NE(s.status().message().find(says), std::string::npos) << text << " -> " << s.status().message();
    EXPECT_EQ(s.status().message().rfind("--fault: ", 0), 0u) << s.status().message();
  }
}

const std::vector<std::string> kLinks = {"peers", "clients"};

TEST(FaultScheduleTest, EveryBadLinkStepNamesWhy) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"blackhole peers at 1s; heal at 2s; heal at 3s", "peers cannot heal it: it is forwarding by then"},
      {"cut peers at 1s; blackhole at 2s", "peers cannot blackhole it: it is cut by then"},
      {"heal clients at 1s", "clients cannot heal it: it is forwarding by then"},
      {"kill peers at 1s", "'peers' is a link: kill, pause, resume and restart act on a node"},
      {"cut primary at 1s", "'primary' is a node: cut, blackhole and heal act on a link"},
      {"cut sentinels at 1s", "no node or link 'sentinels' (the topology has primary, replica-1, replica-2; links "
                              "peers, clients)"},
  };
  for (const auto& [text, says] : bad) {
    auto r = ParseFaultSchedule(text, kNodes, kLinks);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.status().message().find(says), std::string::npos) << text << " -> " << r.status().message();
  }
}

TEST(FaultScheduleTest, LinkStepsInTheirOrder) {
  auto s = ParseFaultSchedule("blackhole peers at 3s; blackhole clients at 3s; heal peers at 10s; heal clients at "
                              "10s; kill primary at 11s; cut peers at 12s",
                              kNodes, kLinks);
  ASSERT_TRUE(s.ok()) << s.status().message();
  const std::vector<FaultStep> want = {{FaultAction::kBlackhole, "peers", 3},  {FaultAction::kBlackhole, "clients", 3},
                                       {FaultAction::kHeal, "peers", 10},      {FaultAction::kHeal, "clients", 10},
                                       {FaultAction::kKill, "primary", 11},    {FaultAction::kCut, "peers", 12}};
  EXPECT_EQ(*s, want);
}

// The state letter of /proc/<pid>/stat ('T' while stopped); '?' if unreadable.
char StateOf(int pid) {
  std::string stat;
  if (FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r")) {
    char buf[512];
    const size_t n = std::fread(buf, 1, sizeof buf, f);
    stat.assign(buf, n);
    std::fclose(f);
  }
  const size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() ? '?' : stat[paren + 2];
}

class NemesisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/nemesis_test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    options_.run_root = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(options_.run_root); }
  TopologyOptions options_;
};

// pause, resume, kill, restart of the one redis-server, in order at their times: each
// event's process, the restart's new one, and the wall clock in step order.
TEST_F(NemesisTest, AScheduleRunsInOrderOnARealServer) {
  auto t = Topology::Start(TopologySpec{}, options_);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const std::string node = (*t)->nodes()[0].name;
  const int first = (*t)->nodes()[0].process.pid;
  auto steps = ParseFaultSchedule(
      "pause " + node + " at 0.05s; resume at 0.1s; kill at 0.15s; restart at 0.2s", {node});
  ASSERT_TRUE(steps.ok()) << steps.status().message();
  HistoryEvents history;
  const std::vector<FaultEvent> events = RunFaults(**t, *steps, NowNs(), nullptr, {}, nullptr, &history);
  ASSERT_EQ(events.size(), 4u);
  int64_t last = 0;
  for (const FaultEvent& e : events) {
    EXPECT_EQ(e.error, "") << FaultActionName(e.step.action);
    EXPECT_GE(e.start_unix_ns, e.due_unix_ns) << FaultActionName(e.step.action);
    EXPECT_GE(e.start_unix_ns, last);
    EXPECT_GE(e.end_unix_ns, e.start_unix_ns);
    last = e.end_unix_ns;
  }
  EXPECT_EQ(events[0].pid_before, first);
  EXPECT_EQ(events[2].pid_before, first);
  EXPECT_FALSE(ReadProcessIdentity(first).ok());  // killed and reaped
  const int second = (*t)->nodes()[0].process.pid;
  EXPECT_NE(second, first);
  EXPECT_EQ(events[3].pid_after, second);
  EXPECT_TRUE(ReadProcessIdentity(second).ok());
  // The history's side: each step, in order, on the monotonic clock, with its process.
  const std::vector<NemesisEvent> told = history.Take();
  ASSERT_EQ(told.size(), 4u);
  const char* actions[] = {"pause", "resume", "kill", "restart"};
  int64_t told_last = 0;
  for (size_t i = 0; i < told.size(); ++i) {
    EXPECT_EQ(told[i].action, actions[i]);
    EXPECT_EQ(told[i].target, node);
    EXPECT_GE(told[i].start_mono_ns, told_last);
    EXPECT_GE(told[i].end_mono_ns, told[i].start_mono_ns);
    told_last = told[i].end_mono_ns;
  }
  EXPECT_EQ(told[0].detail, "pid " + std::to_string(first));
  EXPECT_EQ(told[2].detail, "pid " + std::to_string(first));
  EXPECT_NE(told[3].detail.find(std::to_string(second)), std::string::npos) << told[3].detail;
  EXPECT_TRUE((*t)->Stop().ok());
}

// An interrupt once the node is paused, before its resume is due: the resume is not
// carried out, and the node the schedule paused is resumed anyway (an extra event), never
// left stopped.
TEST_F(NemesisTest, AnInterruptLeavesNoNodePaused) {
  auto t = Topology::Start(TopologySpec{}, options_);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const std::string node = (*t)->nodes()[0].name;
  const int pid = (*t)->nodes()[0].process.pid;
  auto steps = ParseFaultSchedule("pause " + node + " at 0s; resume at 1h", {node});
  ASSERT_TRUE(steps.ok()) << steps.status().message();
  std::atomic<bool> interrupt{false};
  std::thread signaller([&] {  // the interrupt comes once the pause has taken
    while (StateOf(pid) != 'T') std::this_thread::sleep_for(std::chrono::milliseconds(5));
    interrupt = true;
  });
  const std::vector<FaultEvent> events = RunFaults(**t, *steps, NowNs(), &interrupt);
  signaller.join();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].error, "");
  EXPECT_EQ(events[1].error, "interrupted");
  EXPECT_EQ(events[1].start_unix_ns, 0);
  EXPECT_EQ(events[2].step.action, FaultAction::kResume);
  EXPECT_EQ(events[2].step.at_s, -1);
  EXPECT_EQ(events[2].error, "");
  EXPECT_NE(StateOf(pid), 'T');
  EXPECT_TRUE((*t)->Stop().ok());
}

// Link steps carried out through FaultLinks in order, and a link the schedule left
// blackholed when it was interrupted healed at the end (an extra event), as a paused node
// is resumed.
TEST_F(NemesisTest, AnInterruptLeavesNoLinkCut) {
  auto t = Topology::Start(TopologySpec{}, options_);
  ASSERT_TRUE(t.ok()) << t.status().message();
  auto steps = ParseFaultSchedule("cut peers at 0s; heal at 0s; blackhole clients at 0s; heal at 1h",
                                  {(*t)->nodes()[0].name}, kLinks);
  ASSERT_TRUE(steps.ok()) << steps.status().message();
  std::atomic<bool> interrupt{false};
  std::vector<std::pair<size_t, FaultAction>> applied;
  FaultLinks links{kLinks, [&](size_t i, FaultAction a) {
                     applied.emplace_back(i, a);
                     if (a == FaultAction::kBlackhole) interrupt = true;  // before the heal is due
                     return Status::OK();
                   }};
  int on_step = 0;
  HistoryEvents history;
  const std::vector<FaultEvent> events =
      RunFaults(**t, *steps, NowNs(), &interrupt, [&](const FaultEvent&) { ++on_step; }, &links, &history);
  const std::vector<std::pair<size_t, FaultAction>> want = {{0, FaultAction::kCut},
                                                            {0, FaultAction::kHeal},
                                                            {1, FaultAction::kBlackhole},
                                                            {1, FaultAction::kHeal}};
  EXPECT_EQ(applied, want);
  EXPECT_EQ(on_step, 3);
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[3].error, "interrupted");
  EXPECT_EQ(events[4].step.action, FaultAction::kHeal);
  EXPECT_EQ(events[4].step.node, "clients");
  EXPECT_EQ(events[4].step.at_s, -1);
  EXPECT_EQ(events[4].pid_before, 0);
  // The history holds what was carried out, the final heal too; not the interrupted step.
  std::vector<std::pair<std::string, std::string>> told;
  for (const NemesisEvent& e : history.Take()) {
    told.emplace_back(e.action, e.target);
    EXPECT_EQ(e.detail, "");
  }
  const std::vector<std::pair<std::string, std::string>> want_told = {
      {"cut", "peers"}, {"heal", "peers"}, {"blackhole", "clients"}, {"heal", "clients"}};
  EXPECT_EQ(told, want_told);
  EXPECT_TRUE((*t)->Stop().ok());
}

// A link step whose link fails ends the schedule, as a node's does.
TEST_F(NemesisTest, ALinkStepThatFailsEndsTheSchedule) {
  auto t = Topology::Start(TopologySpec{}, options_);
  ASSERT_TRUE(t.ok()) << t.status().message();
  auto steps = ParseFaultSchedule("cut peers at 0s; heal at 0s", {(*t)->nodes()[0].name}, kLinks);
  ASSERT_TRUE(steps.ok());
  FaultLinks links{kLinks, [](size_t, FaultAction) { return Status::Failed("the relay is gone"); }};
  HistoryEvents history;
  const std::vector<FaultEvent> events = RunFaults(**t, *steps, NowNs(), nullptr, {}, &links, &history);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].error, "the relay is gone");
  EXPECT_NE(events[1].error.find("not carried out: step 'cut peers' failed"), std::string::npos) << events[1].error;
  // The step tried is in the history with why it failed; the one never begun is not.
  const std::vector<NemesisEvent> told = history.Take();
  ASSERT_EQ(told.size(), 1u);
  EXPECT_EQ(told[0].action, "cut");
  EXPECT_EQ(told[0].target, "peers");
  EXPECT_EQ(told[0].detail, "not carried out: the relay is gone");
  EXPECT_TRUE((*t)->Stop().ok());
}

}  // namespace
}  // namespace memstand
