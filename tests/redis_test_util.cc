#include "redis_test_util.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/socket.h"

namespace memstand::testutil {

namespace {

constexpr int kStartAttempts = 5;
constexpr auto kStartTimeout = std::chrono::seconds(10);
constexpr auto kStopTimeout = std::chrono::seconds(5);
constexpr auto kPollInterval = std::chrono::milliseconds(20);

// Forks and execs redis-server with stdout/stderr in dir/redis.log. Returns the pid.
Result<pid_t> Spawn(const std::vector<std::string>& args, const std::string& dir) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string log = dir + "/redis.log";
  pid_t pid = fork();
  if (pid < 0) return Status::IoError(ErrnoMessage("fork", errno));
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    execvp(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Polls until the server answers PING (OK), exits (IoError) or the time runs out.
Status WaitReady(pid_t pid, int port) {
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  RedisClientOptions options;
  options.port = port;
  options.timeout_ms = 1000;
  while (std::chrono::steady_clock::now() < deadline) {
    int wstatus = 0;
    if (waitpid(pid, &wstatus, WNOHANG) == pid) return Status::IoError("redis-server exited");
    if (RedisClient::Connect(options).ok()) return Status::OK();
    std::this_thread::sleep_for(kPollInterval);
  }
  return Status::Timeout("redis-server did not answer PING within 10 s");
}

void Stop(pid_t pid) {
  kill(pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + kStopTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, nullptr, WNOHANG) == pid) return;
    std::this_thread::sleep_for(kPollInterval);
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

}  // namespace

Result<std::unique_ptr<RedisServerProcess>> RedisServerProcess::Start(
    const std::vector<std::string>& extra_args) {
  Status last = Status::Failed("redis-server was not started");
  for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
    auto port = PickFreePort();
    if (!port.ok()) return port.status();
    char tmpl[] = "/tmp/memstand-redis-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) return Status::IoError(ErrnoMessage("mkdtemp", errno));
    const std::string dir = tmpl;
    std::vector<std::string> args = {"redis-server",
                                     "--port",
                                     std::to_string(*port),
                                     "--bind",
                                     "127.0.0.1",
                                     "--save",
                                     "",
                                     "--appendonly",
                                     "no",
                                     "--dir",
                                     dir};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    auto pid = Spawn(args, dir);
    if (!pid.ok()) return pid.status();
    Status s = WaitReady(*pid, *port);
    if (s.ok())
      return std::unique_ptr<RedisServerProcess>(new RedisServerProcess(*pid, *port, dir));
    last =
        s.WithContext("port " + std::to_string(*port) + ", log: " + ReadFile(dir + "/redis.log"));
    Stop(*pid);
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  return last;
}

RedisServerProcess::~RedisServerProcess() {
  Stop(pid_);
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

RedisClientOptions RedisServerProcess::ClientOptions() const {
  RedisClientOptions options;
  options.port = port_;
  return options;
}

}  // namespace memstand::testutil
