#include "stand/local_redis.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/socket.h"

namespace memstand {
namespace {

bool Exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

bool ProcessGone(pid_t pid) {
  errno = 0;
  return kill(pid, 0) == -1 && errno == ESRCH;
}

// Sends an inline command and reads until the reply contains `until` (or 5 s pass).
std::string RawCommand(int port, const std::string& command, const std::string& until) {
  auto fd = ConnectTcp("127.0.0.1", port, 5000, true);
  if (!fd.ok()) return "connect failed: " + fd.status().message();
  SetIoTimeout(*fd, 5000);
  std::string line = command + "\r\n";
  std::string got;
  if (WriteAll(*fd, line.data(), line.size()).ok()) {
    char buf[4096];
    while (got.find(until) == std::string::npos) {
      auto n = ReadSome(*fd, buf, sizeof(buf));
      if (!n.ok() || *n == 0) break;
      got.append(buf, *n);
    }
  }
  close(*fd);
  return got;
}

// An executable shell script in a fresh directory, removed at scope end.
class FakeServer {
 public:
  explicit FakeServer(const std::string& body) {
    char tmpl[] = "/tmp/local_redis_test-XXXXXX";
    dir_ = mkdtemp(tmpl) != nullptr ? tmpl : "/tmp";
    path_ = dir_ + "/fake-redis-server";
    std::ofstream(path_) << "#!/bin/sh\n" << body << "\n";
    chmod(path_.c_str(), 0755);
  }
  ~FakeServer() {
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string dir_;
  std::string path_;
};

std::unique_ptr<LocalRedis> StartOrDie(const LocalRedisOptions& options = {}) {
  auto r = LocalRedis::Start(options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : nullptr;
}

TEST(LocalRedisTest, StartsAnswersAndStopsWithoutTrace) {
  auto redis = StartOrDie();
  ASSERT_NE(redis, nullptr);
  EXPECT_EQ(redis->host(), "127.0.0.1");
  EXPECT_GT(redis->port(), 0);
  EXPECT_EQ(RawCommand(redis->port(), "PING", "\r\n"), "+PONG\r\n");
  EXPECT_EQ(kill(redis->pid(), 0), 0);
  EXPECT_TRUE(Exists(redis->dir() + "/redis.log"));
  EXPECT_EQ(redis->version().substr(0, 1).find_first_of("0123456789"), 0u) << redis->version();
  std::string described = redis->Describe();
  EXPECT_NE(described.find("redis-server " + redis->version() +
                           " on 127.0.0.1:" + std::to_string(redis->port()) + " (pid " +
                           std::to_string(redis->pid()) + ")"),
            std::string::npos)
      << described;
  EXPECT_NE(described.find("persistence off"), std::string::npos);

  pid_t pid = redis->pid();
  std::string dir = redis->dir();
  ASSERT_TRUE(redis->Stop().ok());
  EXPECT_TRUE(ProcessGone(pid));
  EXPECT_FALSE(Exists(dir));
  EXPECT_TRUE(redis->Stop().ok());  // idempotent
}

TEST(LocalRedisTest, PersistenceIsOffAndDirectivesApply) {
  LocalRedisOptions options;
  options.config = {{"maxmemory", "8mb"}, {"maxmemory-policy", "allkeys-lru"}};
  auto redis = StartOrDie(options);
  ASSERT_NE(redis, nullptr);
  std::string maxmemory = RawCommand(redis->port(), "CONFIG GET maxmemory", "8388608\r\n");
  EXPECT_NE(maxmemory.find("8388608"), std::string::npos) << maxmemory;
  std::string policy = RawCommand(redis->port(), "CONFIG GET maxmemory-policy", "lru\r\n");
  EXPECT_NE(policy.find("allkeys-lru"), std::string::npos) << policy;
  EXPECT_EQ(RawCommand(redis->port(), "CONFIG GET save", "$0\r\n\r\n"),
            "*2\r\n$4\r\nsave\r\n$0\r\n\r\n");
  EXPECT_EQ(RawCommand(redis->port(), "CONFIG GET appendonly", "no\r\n"),
            "*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n");
  EXPECT_NE(redis->Describe().find("config: maxmemory=8mb maxmemory-policy=allkeys-lru"),
            std::string::npos)
      << redis->Describe();
}

TEST(LocalRedisTest, DestructorStops) {
  pid_t pid;
  std::string dir;
  {
    auto redis = StartOrDie();
    ASSERT_NE(redis, nullptr);
    pid = redis->pid();
    dir = redis->dir();
    EXPECT_TRUE(Exists(dir));
  }
  EXPECT_TRUE(ProcessGone(pid));
  EXPECT_FALSE(Exists(dir));
}

TEST(LocalRedisTest, MissingBinaryIsNotFoundWithInstallHint) {
  LocalRedisOptions options;
  options.binary = "redis-server-memstand-missing";
  auto r = LocalRedis::Start(options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(r.status().message(),
            "redis-server-memstand-missing not found in PATH; install it with: apt-get install "
            "redis-server");
}

TEST(LocalRedisTest, RejectedDirectiveCarriesRedisComplaint) {
  LocalRedisOptions options;
  options.config = {{"maxmemory-policy", "nonsense"}};
  auto r = LocalRedis::Start(options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find("FATAL CONFIG FILE ERROR"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nonsense"), std::string::npos) << msg;
  EXPECT_NE(msg.find("exited with code 1"), std::string::npos) << msg;
}

TEST(LocalRedisTest, TwoInstancesGetDifferentPorts) {
  auto a = StartOrDie();
  auto b = StartOrDie();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a->port(), b->port());
  EXPECT_NE(a->dir(), b->dir());
  std::string info_a = RawCommand(a->port(), "INFO server", "tcp_port");
  std::string info_b = RawCommand(b->port(), "INFO server", "tcp_port");
  EXPECT_NE(info_a.find("process_id:" + std::to_string(a->pid()) + "\r\n"), std::string::npos);
  EXPECT_NE(info_b.find("process_id:" + std::to_string(b->pid()) + "\r\n"), std::string::npos);
}

TEST(LocalRedisTest, GivenBaseDirIsUsedAndKept) {
  char tmpl[] = "/tmp/local_redis_test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  LocalRedisOptions options;
  options.base_dir = std::string(tmpl) + "/nested/dir";
  auto redis = StartOrDie(options);
  ASSERT_NE(redis, nullptr);
  EXPECT_EQ(redis->dir(), options.base_dir);
  ASSERT_TRUE(redis->Stop().ok());
  EXPECT_TRUE(Exists(options.base_dir + "/redis.log"));
  EXPECT_NE(redis->LogTail(3).find("ready to exit"), std::string::npos) << redis->LogTail(3);
  std::system(("rm -rf '" + std::string(tmpl) + "'").c_str());
}

TEST(LocalRedisTest, LogTailKeepsTheLastLines) {
  auto redis = StartOrDie();
  ASSERT_NE(redis, nullptr);
  std::string two = redis->LogTail(2);
  EXPECT_EQ(std::count(two.begin(), two.end(), '\n'), 1) << two;
  EXPECT_NE(two.find("Ready to accept connections"), std::string::npos) << two;
  EXPECT_EQ(redis->LogTail(0), "");
  std::string all = redis->LogTail(1000);
  EXPECT_NE(all.find("Redis is starting"), std::string::npos) << all;
  EXPECT_EQ(all.substr(all.size() - two.size()), two);
}

TEST(LocalRedisTest, CrashBeforeStopIsReported) {
  auto redis = StartOrDie();
  ASSERT_NE(redis, nullptr);
  ASSERT_EQ(kill(redis->pid(), SIGKILL), 0);
  for (int i = 0; i < 6000; ++i) {  // until it is waitable (a hang guard, not a timing)
    siginfo_t info{};
    waitid(P_PID, redis->pid(), &info, WEXITED | WNOHANG | WNOWAIT);  // does not reap
    if (info.si_pid == redis->pid()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::string dir = redis->dir();
  Status s = redis->Stop();
  EXPECT_EQ(s.code(), Status::Code::kFailed);
  EXPECT_NE(s.message().find("killed by signal 9"), std::string::npos) << s.message();
  EXPECT_FALSE(Exists(dir));
}

TEST(LocalRedisTest, EarlyExitCarriesLogTail) {
  FakeServer fake("echo 'fake: cannot start' >&2; exit 3");
  LocalRedisOptions options;
  options.binary = fake.path();
  auto r = LocalRedis::Start(options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kFailed);
  EXPECT_NE(r.status().message().find("exited with code 3"), std::string::npos);
  EXPECT_NE(r.status().message().find("fake: cannot start"), std::string::npos);
}

TEST(LocalRedisTest, SilentServerTimesOutAndIsKilled) {
  FakeServer fake("echo \"fake pid $$ never listens\"; exec sleep 1000");
  LocalRedisOptions options;
  options.binary = fake.path();
  options.ready_timeout_ms = 100;
  auto r = LocalRedis::Start(options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kTimeout);
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find("did not answer PING within 100 ms"), std::string::npos) << msg;
  size_t at = msg.find("fake pid ");
  ASSERT_NE(at, std::string::npos) << msg;
  EXPECT_TRUE(ProcessGone(std::atoi(msg.c_str() + at + 9)));
}

// The old probe took -NOAUTH for "not ready yet" and waited the whole ready timeout
// (20 s for `memstand up`) before a Timeout that did not say why.
TEST(LocalRedisTest, RequirepassFailsAtOnceNamingTheReason) {
  LocalRedisOptions options;
  options.config = {{"requirepass", "s3cret"}};
  options.ready_timeout_ms = 20000;
  auto r = LocalRedis::Start(options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << r.status().message();
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find("answered memstand's readiness probe (PING, INFO server) with '-NOAUTH "
                     "Authentication required.': it requires a password"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("requirepass"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("s3cret"), std::string::npos) << msg;
}

TEST(LocalRedisTest, AnErrorReplyThatCannotBecomeReadyFailsAtOnce) {
  char tmpl[] = "/tmp/local_redis_test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string acl = std::string(tmpl) + "/users.acl";  // INFO is forbidden, PING allowed
  std::ofstream(acl) << "user default on nopass ~* &* +@all -info\n";
  LocalRedisOptions options;
  options.config = {{"aclfile", acl}};
  options.ready_timeout_ms = 20000;
  auto r = LocalRedis::Start(options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << r.status().message();
  EXPECT_NE(r.status().message().find("with '-NOPERM"), std::string::npos) << r.status().message();
  std::system(("rm -rf '" + std::string(tmpl) + "'").c_str());
}

}  // namespace
}  // namespace memstand
