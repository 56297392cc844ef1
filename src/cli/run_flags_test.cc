// `memstand run` flags turned into a RunConfig: the open loop's pacing flags (--spin,
// --realtime). Nothing here connects; bad values are refused by BuildRunConfig (exit 2
// in the binary) or by CLI11's own checks at parse time.
#include "cli/run_flags.h"

#include <sched.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace memstand::cli {
namespace {

// The flags parsed as `memstand run ARGS` (the target fixed, so that nothing starts).
Result<RunConfig> Build(std::vector<std::string> args) {
  CLI::App app;
  RunFlags flags;
  AddRunFlags(&app, &flags);
  args.insert(args.begin(), {"--target", "redis://127.0.0.1:6379", "--io", "epoll"});
  std::vector<std::string> argv(args.rbegin(), args.rend());  // CLI11 takes it reversed
  app.parse(argv);
  return BuildRunConfig(app, flags);
}

// The message of a refused set of flags ("" when they were accepted).
std::string Refusal(const std::vector<std::string>& args) {
  auto cfg = Build(args);
  if (cfg.ok()) return "";
  EXPECT_EQ(cfg.status().code(), Status::Code::kInvalidArgument) << cfg.status().message();
  return cfg.status().message();
}

TEST(RunFlagsPacing, SpinIsADurationForTheOpenLoopOnly) {
  auto cfg = Build({"--rate", "100k"});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->load.spin_ns, 0);  // the default: sleep to the send time
  EXPECT_EQ(cfg->load.realtime_priority, 0);
  cfg = Build({"--rate", "100k", "--spin", "50us"});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->load.spin_ns, 50'000);
  cfg = Build({"--rate", "100k", "--spin", "10ms"});  // the cap itself
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->load.spin_ns, 10'000'000);
  cfg = Build({"--rate", "100k", "--spin", "0"});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->load.spin_ns, 0);
}

TEST(RunFlagsPacing, BadSpinsAreRefusedNamingTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--spin", "50us"}, "--spin: applies to the open loop; give --rate too"},
      {{"--rate", "1000", "--spin", "11ms"}, "--spin: at most 10ms, got '11ms'"},
      {{"--rate", "1000", "--spin", "1s"}, "--spin: at most 10ms"},
      {{"--rate", "1000", "--spin", "-5us"}, "--spin: bad duration"},
      {{"--rate", "1000", "--spin", "fast"}, "--spin: bad duration"},
      {{"--rate", "1000", "--spin", ""}, "--spin: bad duration"},
  };
  for (const Case& c : cases) {
    EXPECT_NE(Refusal(c.args).find(c.says), std::string::npos)
        << c.says << " <- " << Refusal(c.args);
  }
}

TEST(RunFlagsPacing, RealtimeOutOfRangeIsACliError) {
  for (const char* bad : {"-1", "100", "x"}) {
    EXPECT_THROW(Build({"--realtime", bad}), CLI::ParseError) << bad;
  }
}

// --realtime P is probed when the flags are checked: accepted where the kernel allows
// SCHED_FIFO (root here), else refused with what it needs. Either way the probe leaves
// this thread on the default scheduler.
TEST(RunFlagsPacing, RealtimeIsProbedAndLeavesTheCallerAlone) {
  auto cfg = Build({"--realtime", "2"});
  if (geteuid() == 0) {
    ASSERT_TRUE(cfg.ok()) << cfg.status().message();
    EXPECT_EQ(cfg->load.realtime_priority, 2);
  } else {
    ASSERT_FALSE(cfg.ok());
    EXPECT_NE(cfg.status().message().find("--realtime 2: the kernel refuses SCHED_FIFO"), std::string::npos)
        << cfg.status().message();
  }
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
  cfg = Build({"--realtime", "0"});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->load.realtime_priority, 0);
}

TEST(RunFlagsPacing, CpusIsAnOnlineCpuListAndBadOnesAreRefusedNamingTheFlag) {
  auto cfg = Build({});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_TRUE(cfg->load.cpus.empty());  // the default: not pinned
  cfg = Build({"--cpus", "0"});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->load.cpus, (CpuList{0}));
  for (const char* bad : {"", "x", "1-0", "0,", "0,0", "-1"}) {
    EXPECT_NE(Refusal({"--cpus", bad}).find("--cpus: bad CPU list '" + std::string(bad) + "'"), std::string::npos)
        << bad << " <- " << Refusal({"--cpus", bad});
  }
  EXPECT_NE(Refusal({"--cpus", "1023"}).find("--cpus 1023: CPU 1023 is not online on this machine"),
            std::string::npos);
}

}  // namespace
}  // namespace memstand::cli
