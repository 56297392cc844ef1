// Unix socket targets end to end: a redis-server with `unixsocket` and `port 0` (no TCP
// at all) and memcached with -s, each driven through unix:// URLs and -S, in both I/O
// loops, the counts equal to the servers' own; bad paths and URLs exit 2, a missing
// socket file is a connection error (exit 1).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "core/socket.h"
#include "e2e/e2e_util.h"
#include "stand/process.h"

namespace memstand::e2e {
namespace {

// A server of the test's own listening on `path`, which it must create within 15 s.
std::unique_ptr<Process> StartOnSocket(std::vector<std::string> argv, const std::string& dir,
                                       const std::string& path) {
  SpawnOptions so;
  so.argv = std::move(argv);
  so.work_dir = dir;
  so.log_path = dir + "/server.log";
  auto p = Process::Spawn(so);
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (!p.ok()) return nullptr;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < deadline && (*p)->Alive()) {
    auto fd = ConnectUnix(path, 200, true);
    if (fd.ok()) {
      close(*fd);
      return std::move(*p);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << so.argv[0] << " did not listen on " << path;
  return nullptr;
}

struct UnixServer {
  std::string path;
  std::unique_ptr<Process> process;
};

UnixServer StartRedisOnSocket() {
  const std::string dir = TempDir();
  UnixServer s{dir + "/redis.sock", nullptr};
  s.process = StartOnSocket({"redis-server", "--port", "0", "--unixsocket", s.path, "--save", "",
                             "--appendonly", "no", "--dir", dir},
                            dir, s.path);
  return s;
}

UnixServer StartMemcachedOnSocket() {
  const std::string dir = TempDir();
  UnixServer s{dir + "/memcached.sock", nullptr};
  s.process =
      StartOnSocket({"memcached", "-s", s.path, "-U", "0", "-m", "64", "-u", "root"}, dir, s.path);
  return s;
}

int64_t ServerCount(const nlohmann::json& j, const std::string& name) {
  for (const auto& row : j["cross_check"]["commands"]) {
    if (row["command"] == name) {
      EXPECT_EQ(row["memstand"], row["server"]) << row.dump();
      return row["server"].get<int64_t>();
    }
  }
  ADD_FAILURE() << "no cross-check row " << name << ": " << j["cross_check"].dump();
  return -1;
}

class UnixSocketE2E : public IoModeTest {};

TEST_P(UnixSocketE2E, RedisCountsEqualInfoCommandstats) {
  UnixServer redis = StartRedisOnSocket();
  ASSERT_NE(redis.process, nullptr);
  nlohmann::json j =
      RunOk({"--target", "unix://" + redis.path, "--io", Io(), "--exclusive", "-n", "3000", "-c",
             "4", "--pipeline", "4", "--threads", "2", "--ratio", "1:3"});
  EXPECT_EQ(j["options"]["io"], Io());
  EXPECT_EQ(j["server"]["url"], "redis+unix://" + redis.path);
  EXPECT_EQ(j["server"]["transport"], "unix");
  EXPECT_EQ(j["totals"]["ops"], 3000);
  EXPECT_EQ(j["totals"]["errors"], 0);
  EXPECT_EQ(j["cross_check"]["available"], true) << j["cross_check"].dump();
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
  // The server's own counts, read here over the same socket.
  RedisClientOptions o;
  o.unix_path = redis.path;
  auto client = RedisClient::Connect(o);
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto info = (*client)->Command({"INFO", "commandstats"});
  ASSERT_TRUE(info.ok());
  auto stats = ParseCommandStats(info->str);
  EXPECT_EQ(stats["set"].calls, CommandOps(j, "SET"));
  EXPECT_EQ(stats["get"].calls, CommandOps(j, "GET"));
  EXPECT_EQ(stats["set"].calls + stats["get"].calls, 3000);
}

TEST_P(UnixSocketE2E, MemcachedCountsEqualStats) {
  UnixServer mc = StartMemcachedOnSocket();
  ASSERT_NE(mc.process, nullptr);
  nlohmann::json j = RunOk({"--target", "memcache+unix://" + mc.path, "--io", Io(), "-n", "3000",
                            "-c", "4", "--pipeline", "4", "--key-maximum", "200"});
  EXPECT_EQ(j["server"]["protocol"], "memcache");
  EXPECT_EQ(j["server"]["url"], "memcache+unix://" + mc.path);
  EXPECT_EQ(j["totals"]["ops"], 3000);
  EXPECT_EQ(j["cross_check"]["available"], true) << j["cross_check"].dump();
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
  const int64_t gets = CommandOps(j, "GET");
  EXPECT_EQ(ServerCount(j, "cmd_get"), gets);
  EXPECT_EQ(ServerCount(j, "cmd_set"), 3000 - gets);
  // -S with --protocol: the same server, counted from its new totals.
  j = RunOk({"-S", mc.path, "--protocol", "memcache", "--io", Io(), "-n", "500", "-c", "2"});
  EXPECT_EQ(j["totals"]["ops"], 500);
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
  EXPECT_EQ(ServerCount(j, "cmd_get") + ServerCount(j, "cmd_set"), 500);
}

INSTANTIATE_TEST_SUITE_P(EpollAndUring, UnixSocketE2E, ::testing::Values("epoll", "uring"));

TEST(UnixSocketE2E, DashSAndTheTextReport) {
  UnixServer redis = StartRedisOnSocket();
  ASSERT_NE(redis.process, nullptr);
  Outcome out = RunMemstand({"run", "-S", redis.path, "--exclusive", "-n", "400", "-c", "2"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("redis+unix://" + redis.path), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("over a Unix socket: no TCP, so no TCP_INFO figures"),
            std::string::npos)
      << out.output;
}

// A pool of two sockets: every request reaches one of them, and their summed counters
// equal memstand's. The same socket twice (in two spellings) is refused.
TEST(UnixSocketE2E, PoolOfSockets) {
  UnixServer a = StartRedisOnSocket();
  UnixServer b = StartRedisOnSocket();
  ASSERT_NE(a.process, nullptr);
  ASSERT_NE(b.process, nullptr);
  nlohmann::json j = RunOk({"--target", "unix://" + a.path, "--target", "redis+unix://" + b.path,
                            "--exclusive", "-n", "1000", "-c", "4"});
  EXPECT_EQ(j["totals"]["ops"], 1000);
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
  Outcome out = RunMemstand(
      {"run", "--target", "unix://" + a.path, "--target", "redis+unix://" + a.path, "-n", "10"});
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find(a.path + " is given twice"), std::string::npos) << out.output;
}

// redis-server with an accept backlog of 4 and 300 connections opened at once: a Unix
// socket refuses a connect with EAGAIN while the backlog is full; memstand tries again
// within --connect-timeout, and every connection then runs.
TEST(UnixSocketE2E, ConnectionBurstPastTheBacklog) {
  const std::string dir = TempDir();
  UnixServer redis{dir + "/redis.sock", nullptr};
  redis.process = StartOnSocket({"redis-server", "--port", "0", "--unixsocket", redis.path,
                                 "--tcp-backlog", "4", "--save", "", "--appendonly", "no",
                                 "--dir", dir},
                                dir, redis.path);
  ASSERT_NE(redis.process, nullptr);
  nlohmann::json j = RunOk({"-S", redis.path, "--exclusive", "-n", "3000", "-c", "300"});
  EXPECT_EQ(j["totals"]["ops"], 3000);
  EXPECT_EQ(j["options"]["connections"], 300) << j["options"].dump();
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
}

TEST(UnixSocketE2E, BadInputsExit2) {
  const std::string too_long = "/tmp/" + std::string(kMaxUnixPath, 's');
  const struct {
    std::vector<std::string> args;
    const char* says;
  } kBad[] = {
      {{"--target", "unix://localhost/tmp/r.sock"}, "a path and no host ('localhost')"},
      {{"--target", "unix://"}, "missing the socket's path"},
      {{"--target", "unix://" + too_long}, "a Unix socket address holds at most 107"},
      {{"-S", too_long}, "-S/--unix-socket: the socket path is"},
      {{"-S", "relative.sock"}, "-S/--unix-socket: the socket path must be absolute"},
      {{"-S", "/tmp/r.sock", "-s", "127.0.0.1"}, "give either a Unix socket or -s/-p"},
      {{"-S", "/tmp/r.sock", "--target", "redis://127.0.0.1:1"},
       "give either --target or -s/-p/-S"},
      {{"-S", "/tmp/r.sock", "--cluster"}, "--cluster: needs a TCP target"},
      {{"-S", "/tmp/r.sock", "--protocol", "etcd"}, "not over a Unix socket"},
      {{"--target", "tarantool+unix:///tmp/t.sock"}, "Redis (RESP) and memcached"},
  };
  for (const auto& bad : kBad) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), bad.args.begin(), bad.args.end());
    Outcome out = RunMemstand(args, 30);
    EXPECT_EQ(out.exit_code, 2) << bad.args[1] << ": " << out.output;
    EXPECT_NE(out.output.find(bad.says), std::string::npos) << out.output;
  }
}

TEST(UnixSocketE2E, MissingSocketFileIsAConnectionError) {
  const std::string path = TempDir() + "/nobody.sock";
  for (const std::string io : {"epoll", "uring"}) {
    Outcome out = RunMemstand({"run", "--target", "unix://" + path, "--io", io, "-n", "10"}, 30);
    EXPECT_EQ(out.exit_code, 1) << out.output;
    EXPECT_NE(out.output.find(path + ": connect: No such file or directory"), std::string::npos)
        << out.output;
  }
  Outcome out = RunMemstand({"run", "--target", "memcache+unix://" + path, "-n", "10"}, 30);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find(path + ": connect: No such file or directory"), std::string::npos)
      << out.output;
}

}  // namespace
}  // namespace memstand::e2e
