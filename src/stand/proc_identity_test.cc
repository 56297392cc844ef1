#include "stand/proc_identity.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/socket.h"
#include "stand/process.h"

namespace memstand {
namespace {

TEST(ProcIdentityTest, ReadsCommandLineAndStartTime) {
  auto p = Process::Spawn(SpawnOptions{{"sleep", "1000"}, "", ""});
  ASSERT_TRUE(p.ok()) << p.status().message();
  auto id = ReadProcessIdentity((*p)->pid());
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(id->cmdline, (std::vector<std::string>{"sleep", "1000"}));
  EXPECT_GT(id->start_ticks, 0u);
  EXPECT_EQ(JoinCmdline(id->cmdline), "sleep 1000");
  ProcessIdentity now;
  EXPECT_EQ(CheckOwnership(*id, &now), Ownership::kOurs);
  EXPECT_EQ(now.start_ticks, id->start_ticks);
}

TEST(ProcIdentityTest, DifferentCommandLineOrStartTimeIsAnotherProcess) {
  auto p = Process::Spawn(SpawnOptions{{"sleep", "1000"}, "", ""});
  ASSERT_TRUE(p.ok()) << p.status().message();
  auto id = ReadProcessIdentity((*p)->pid());
  ASSERT_TRUE(id.ok());
  ProcessIdentity other_cmd = *id;
  other_cmd.cmdline = {"redis-server", "127.0.0.1:6379"};
  ProcessIdentity now;
  EXPECT_EQ(CheckOwnership(other_cmd, &now), Ownership::kOther);
  EXPECT_EQ(now.cmdline, id->cmdline);
  ProcessIdentity other_start = *id;
  other_start.start_ticks += 1;
  EXPECT_EQ(CheckOwnership(other_start, &now), Ownership::kOther);
}

// A node recorded at spawn (its title not set yet) has no command line on record: the
// start time alone decides.
TEST(ProcIdentityTest, ARecordWithoutCommandLineMatchesOnStartTime) {
  auto p = Process::Spawn(SpawnOptions{{"sleep", "1000"}, "", ""});
  ASSERT_TRUE(p.ok()) << p.status().message();
  auto id = ReadProcessIdentity((*p)->pid());
  ASSERT_TRUE(id.ok());
  ProcessIdentity early = *id;
  early.cmdline.clear();
  ProcessIdentity now;
  EXPECT_EQ(CheckOwnership(early, &now), Ownership::kOurs);
  early.start_ticks += 1;
  EXPECT_EQ(CheckOwnership(early, &now), Ownership::kOther);
}

TEST(ProcIdentityTest, ExitedAndZombieProcessesAreGone) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  // Not reaped yet: a zombie until waitpid below.
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, child, &info, WEXITED | WNOWAIT), 0);
  ProcessIdentity recorded;
  recorded.pid = child;
  ProcessIdentity now;
  EXPECT_EQ(CheckOwnership(recorded, &now), Ownership::kGone);
  EXPECT_FALSE(ReadProcessIdentity(child).ok());
  waitpid(child, nullptr, 0);
  EXPECT_EQ(ReadProcessIdentity(child).status().code(), Status::Code::kNotFound);
  EXPECT_FALSE(ReadProcessIdentity(-1).ok());
}

TEST(ProcIdentityTest, ListensOnFindsOurListeningSocketOnly) {
  auto fd = ListenTcp("127.0.0.1", 0);
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  auto port = LocalPort(*fd);
  ASSERT_TRUE(port.ok());
  EXPECT_TRUE(ListensOn(getpid(), *port));
  EXPECT_FALSE(ListensOn(getpid(), *port == 65535 ? 1 : *port + 1));
  auto other = Process::Spawn(SpawnOptions{{"sleep", "1000"}, "", ""});
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(ListensOn((*other)->pid(), *port));
  close(*fd);
  EXPECT_FALSE(ListensOn(getpid(), *port));
}

}  // namespace
}  // namespace memstand
