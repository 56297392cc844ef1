// The progress line: the real binary on a pseudo-terminal and on a file.
#include <fcntl.h>
#include <poll.h>
#include "test_paths.h"
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/clock.h"
#include "e2e/e2e_util.h"
#include "npm_util.h"
#include "stand/local_redis.h"

namespace memstand::e2e {
namespace {

// The progress line's marks: FormatProgress's separators and the erase sequence.
bool HasProgressLine(const std::string& output) {
  return output.find(" ops/s | p99 ") != std::string::npos &&
         output.find("\033[K") != std::string::npos;
}

// Runs memstand with a pseudo-terminal as its stdin, stdout and stderr; with
// `stdout_file`, stdout goes to that file instead (`memstand run ... > report.txt`).
Outcome RunInPty(const std::vector<std::string>& args, double timeout_s, const std::string& stdout_file = "") {
  std::vector<std::string> words = {testutil::MemstandBinary()};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  Outcome out;
  int master = -1;
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid < 0) return out;
  if (pid == 0) {
    if (!stdout_file.empty()) {
      const int fd = open(stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd < 0 || dup2(fd, 1) < 0) _exit(126);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  const int64_t deadline = NowNs() + static_cast<int64_t>(timeout_s * 1e9);
  for (;;) {
    pollfd p{master, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      char buf[4096];
      ssize_t n = read(master, buf, sizeof(buf));
      if (n <= 0) break;  // EIO once the child and its terminal are gone
      out.output.append(buf, static_cast<size_t>(n));
    }
    if (NowNs() > deadline) {
      out.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(master);
  if (!out.timed_out && WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  return out;
}

TEST(ProgressE2E, DrawnOnATerminalOnly) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  std::vector<std::string> args = {"run", "--target", Url(*redis), "--duration", "3s", "-c", "2"};
  Outcome tty = RunInPty(args, 30);
  ASSERT_EQ(tty.exit_code, 0) << tty.output;
  EXPECT_TRUE(HasProgressLine(tty.output)) << tty.output;
  EXPECT_NE(tty.output.find("s elapsed, "), std::string::npos) << tty.output;
  // Cleared before the report: the erase sequence comes right before its first line.
  EXPECT_NE(tty.output.find("\r\033[Kmemstand "), std::string::npos) << tty.output;

  args.push_back("-q");
  Outcome quiet = RunInPty(args, 30);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_FALSE(HasProgressLine(quiet.output)) << quiet.output;

  // The report to a file, the terminal on stderr: the progress stays on the terminal
  // and out of the report (as memtier draws it on stderr).
  const std::string report = TempDir() + "/report.txt";
  args.pop_back();
  Outcome redirected = RunInPty(args, 30, report);
  ASSERT_EQ(redirected.exit_code, 0) << redirected.output;
  EXPECT_TRUE(HasProgressLine(redirected.output)) << redirected.output;
  const std::string text = testutil::ReadFile(report);
  EXPECT_NE(text.find("[9] Verdict"), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;

  Outcome file = RunMemstand(args, 30);
  ASSERT_EQ(file.exit_code, 0) << file.output;
  EXPECT_FALSE(HasProgressLine(file.output)) << file.output;
  EXPECT_EQ(file.output.find('\r'), std::string::npos) << file.output;
}

}  // namespace
}  // namespace memstand::e2e
