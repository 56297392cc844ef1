#include "stand/process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace memstand {
namespace {

// A fresh temporary directory, removed (with its files) at scope end.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/proc_test-XXXXXX";
    path_ = mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
  }
  ~TempDir() {
    if (!path_.empty()) std::system(("rm -rf '" + path_ + "'").c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::unique_ptr<Process> SpawnOrDie(std::vector<std::string> argv, const std::string& log = "",
                                    const std::string& dir = "") {
  auto p = Process::Spawn(SpawnOptions{std::move(argv), dir, log});
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? std::move(p).value() : nullptr;
}

// Polls cond every 5 ms; false if it is still false after 30 s (a hang guard only).
template <typename Cond>
bool Eventually(Cond cond) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// True if pid no longer runs: gone, or a zombie waiting for a reaper that is not us.
bool Gone(pid_t pid) {
  std::string stat = ReadWholeFile("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return true;
  size_t close = stat.rfind(')');
  return close != std::string::npos && stat.compare(close + 2, 1, "Z") == 0;
}

TEST(FindExecutableTest, FindsShellAndRejectsMissing) {
  auto sh = FindExecutable("sh");
  ASSERT_TRUE(sh.ok()) << sh.status().message();
  EXPECT_EQ(access(sh->c_str(), X_OK), 0);
  auto missing = FindExecutable("memstand-no-such-program");
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
  EXPECT_NE(missing.status().message().find("not found in PATH"), std::string::npos);
  EXPECT_EQ(FindExecutable("/nonexistent/dir/prog").status().code(), Status::Code::kNotFound);
}

TEST(ProcessTest, MissingProgramIsNotFound) {
  auto p = Process::Spawn(SpawnOptions{{"memstand-no-such-program", "x"}, "", ""});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), Status::Code::kNotFound);
  EXPECT_NE(p.status().message().find("memstand-no-such-program"), std::string::npos);
}

TEST(ProcessTest, BadWorkDirIsReportedFromTheChild) {
  auto p = Process::Spawn(SpawnOptions{{"true"}, "/nonexistent/memstand-dir", ""});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), Status::Code::kIoError);
  EXPECT_NE(p.status().message().find("chdir"), std::string::npos) << p.status().message();
}

TEST(ProcessTest, UnopenableLogIsAnError) {
  auto p = Process::Spawn(SpawnOptions{{"true"}, "", "/nonexistent/dir/log"});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("/nonexistent/dir/log"), std::string::npos);
}

TEST(ProcessTest, ExitCodeIsReapedByAlive) {
  auto p = SpawnOrDie({"sh", "-c", "exit 3"});
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(Eventually([&] { return !p->Alive(); }));
  ASSERT_TRUE(p->wait_status().has_value());
  EXPECT_TRUE(WIFEXITED(*p->wait_status()));
  EXPECT_EQ(WEXITSTATUS(*p->wait_status()), 3);
  EXPECT_EQ(p->DescribeExit(), "exited with code 3");
  EXPECT_EQ(waitpid(p->pid(), nullptr, WNOHANG), -1);  // already reaped
  EXPECT_TRUE(p->Terminate(100).ok());                 // idempotent after exit
}

TEST(ProcessTest, OutputAndErrorsAppendToLogInWorkDir) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::string log = dir.path() + "/child.log";
  std::ofstream(log) << "earlier line\n";
  auto p = SpawnOrDie({"sh", "-c", "pwd; echo to-stderr >&2"}, log, dir.path());
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(Eventually([&] { return !p->Alive(); }));
  char real[4096];
  ASSERT_NE(realpath(dir.path().c_str(), real), nullptr);
  EXPECT_EQ(ReadWholeFile(log), "earlier line\n" + std::string(real) + "\nto-stderr\n");
}

TEST(ProcessTest, ChildHasOwnProcessGroup) {
  auto p = SpawnOrDie({"sleep", "1000"});
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(getpgid(p->pid()), p->pid());
  EXPECT_NE(getpgid(p->pid()), getpgrp());
}

TEST(ProcessTest, TerminateSendsSigtermAndReaps) {
  auto p = SpawnOrDie({"sleep", "1000"});
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->Alive());
  ASSERT_TRUE(p->Terminate(10000).ok());
  EXPECT_FALSE(p->Alive());
  ASSERT_TRUE(p->wait_status().has_value());
  EXPECT_TRUE(WIFSIGNALED(*p->wait_status()));
  EXPECT_EQ(WTERMSIG(*p->wait_status()), SIGTERM);
  EXPECT_EQ(p->DescribeExit(), "killed by signal 15 (SIGTERM)");
  errno = 0;
  EXPECT_EQ(kill(p->pid(), 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

// The state letter of /proc/<pid>/stat ('T': stopped), '?' if gone.
char StateOf(pid_t pid) {
  std::string stat = ReadWholeFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() ? '?' : stat[paren + 2];
}

TEST(ProcessTest, PausedChildTakesItsSigtermOnTerminate) {
  auto p = SpawnOrDie({"sleep", "1000"});
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(p->Pause().ok());
  EXPECT_TRUE(p->paused());
  EXPECT_EQ(StateOf(p->pid()), 'T');
  ASSERT_TRUE(p->Terminate(10000).ok());
  ASSERT_TRUE(p->wait_status().has_value());
  EXPECT_EQ(p->DescribeExit(), "killed by signal 15 (SIGTERM)");  // not the SIGKILL fallback
  EXPECT_FALSE(p->Resume().ok());                                 // it has ended
}

TEST(ProcessTest, KillReapsAndReleaseLeavesNothingStopped) {
  auto killed = SpawnOrDie({"sleep", "1000"});
  ASSERT_NE(killed, nullptr);
  ASSERT_TRUE(killed->Pause().ok());
  ASSERT_TRUE(killed->Kill().ok());
  EXPECT_EQ(killed->DescribeExit(), "killed by signal 9 (SIGKILL)");
  EXPECT_TRUE(killed->Kill().ok());  // idempotent

  auto released = SpawnOrDie({"sleep", "1000"});
  ASSERT_NE(released, nullptr);
  const pid_t pid = released->pid();
  ASSERT_TRUE(released->Pause().ok());
  released->Release();
  EXPECT_NE(StateOf(pid), 'T');
  EXPECT_FALSE(released->Pause().ok());  // no longer ours to signal
  kill(pid, SIGKILL);                    // ours: the test spawned it
  waitpid(pid, nullptr, 0);
}

TEST(ProcessTest, TerminateEscalatesToSigkill) {
  TempDir dir;
  std::string log = dir.path() + "/log";
  auto p = SpawnOrDie({"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 1; done"}, log);
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(Eventually([&] { return ReadWholeFile(log) == "ready\n"; }));
  ASSERT_TRUE(p->Terminate(50).ok());
  ASSERT_TRUE(p->wait_status().has_value());
  EXPECT_TRUE(WIFSIGNALED(*p->wait_status()));
  EXPECT_EQ(WTERMSIG(*p->wait_status()), SIGKILL);
}

TEST(ProcessTest, TerminateReachesGrandchildren) {
  TempDir dir;
  std::string log = dir.path() + "/log";
  auto p = SpawnOrDie({"sh", "-c", "sleep 1000 & echo $!; wait"}, log);
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(Eventually([&] { return ReadWholeFile(log).find('\n') != std::string::npos; }));
  pid_t grandchild = std::atoi(ReadWholeFile(log).c_str());
  ASSERT_GT(grandchild, 0);
  EXPECT_FALSE(Gone(grandchild));
  ASSERT_TRUE(p->Terminate(10000).ok());
  EXPECT_TRUE(Eventually([&] { return Gone(grandchild); }));
}

TEST(ProcessTest, DestructorTerminates) {
  pid_t pid;
  {
    auto p = SpawnOrDie({"sleep", "1000"});
    ASSERT_NE(p, nullptr);
    pid = p->pid();
    EXPECT_EQ(kill(pid, 0), 0);
  }
  errno = 0;
  EXPECT_EQ(kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

TEST(ProcessTest, ParentFdsAreNotInherited) {
  TempDir dir;
  std::string log = dir.path() + "/log";
  int leaky = open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  ASSERT_GE(leaky, 3);
  std::string check =
      "test -e /proc/$$/fd/" + std::to_string(leaky) + " && echo leaked || echo clean";
  auto p = SpawnOrDie({"sh", "-c", check}, log);
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(Eventually([&] { return !p->Alive(); }));
  close(leaky);
  EXPECT_EQ(ReadWholeFile(log), "clean\n");
}

TEST(ProcessTest, ChildDiesWithTheSpawningProcess) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t middle = fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {  // spawns a long sleep, reports its pid, exits without cleanup
    close(fds[0]);
    auto p = Process::Spawn(SpawnOptions{{"sleep", "1000"}, "", ""});
    pid_t pid = p.ok() ? p.value()->pid() : -1;
    if (write(fds[1], &pid, sizeof(pid)) != sizeof(pid)) _exit(2);
    _exit(0);
  }
  close(fds[1]);
  pid_t orphan = -1;
  ASSERT_EQ(read(fds[0], &orphan, sizeof(orphan)), static_cast<ssize_t>(sizeof(orphan)));
  close(fds[0]);
  waitpid(middle, nullptr, 0);
  ASSERT_GT(orphan, 0);
  EXPECT_TRUE(Eventually([&] { return Gone(orphan); }));
}

TEST(ProcessTest, DetachedChildOutlivesTheSpawningProcessInItsOwnSession) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t middle = fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {  // spawns a detached sleep, releases it, exits without cleanup
    close(fds[0]);
    SpawnOptions so{{"sleep", "1000"}, "", ""};
    so.detach = true;
    auto p = Process::Spawn(so);
    pid_t pid = p.ok() ? p.value()->pid() : -1;
    if (p.ok()) p.value()->Release();
    if (write(fds[1], &pid, sizeof(pid)) != sizeof(pid)) _exit(2);
    _exit(0);
  }
  close(fds[1]);
  pid_t detached = -1;
  ASSERT_EQ(read(fds[0], &detached, sizeof(detached)), static_cast<ssize_t>(sizeof(detached)));
  close(fds[0]);
  waitpid(middle, nullptr, 0);
  ASSERT_GT(detached, 0);
  // Its parent is gone; a kill-on-parent-death child would now be dying. Give a
  // pending SIGKILL time to land (it is delivered at the parent's exit, long done).
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(Gone(detached));
  EXPECT_EQ(getsid(detached), detached);
  kill(detached, SIGKILL);
  EXPECT_TRUE(Eventually([&] { return Gone(detached); }));
}

TEST(ProcessTest, ReleasedChildIsNotTerminatedByTheDestructor) {
  SpawnOptions so{{"sleep", "1000"}, "", ""};
  so.detach = true;
  auto p = Process::Spawn(so);
  ASSERT_TRUE(p.ok()) << p.status().message();
  pid_t pid = p.value()->pid();
  p.value()->Release();
  EXPECT_FALSE(p.value()->Alive());
  p.value().reset();
  EXPECT_FALSE(Gone(pid));
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);  // still our child: reap it here
  EXPECT_TRUE(Gone(pid));
}

TEST(ProcessTest, TheChildRunsOnTheCpusGivenAndARefusedSetIsReported) {
  auto online = OnlineCpus();
  ASSERT_TRUE(online.ok()) << online.status().message();
  SpawnOptions o{{"sleep", "30"}, "", ""};
  o.cpus = {online->back()};
  auto p = Process::Spawn(o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(*ProcessCpus((*p)->pid()), (CpuList{online->back()}));
  EXPECT_TRUE((*p)->Terminate().ok());

  o.cpus = {kMaxCpu};  // not online: the kernel refuses it in the child, before exec
  auto refused = Process::Spawn(o);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "cannot pin sleep to CPUs 1023: Invalid argument");
}

}  // namespace
}  // namespace memstand
