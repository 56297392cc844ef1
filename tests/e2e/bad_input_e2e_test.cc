// Bad input, tried as a careless or hostile user would, against the real binary: one
// table of command lines, each with the exit code and a part of the message it must
// give (and, for secrets, a part it must not). Then the cases that need a real server:
// a password over every output channel, memcached key injection, maxclients.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "client/redis_client.h"
#include "codec/server_util.h"
#include "core/socket.h"
#include "e2e/e2e_util.h"
#include "proto/memcache/memcache.h"

namespace memstand::e2e {
namespace {

constexpr const char* kPassword = "S3cretPW-e2e";
// Nothing listens on port 1: a case that got past the checks fails to connect (exit
// 1) instead of giving its own message.
constexpr const char* kNowhere = "redis://127.0.0.1:1";

std::vector<std::string> Run(std::vector<std::string> args) {
  args.insert(args.begin(), {"run", "-n", "1"});
  return args;
}

std::vector<BadInputCase> Cases(const std::string& loose_auth_file) {
  const std::string long_template = "set \"" + std::string(120000, 'x');
  return {
      // Secrets: a target that does not parse, every scheme.
      {Run({"--target", "redis://user:S3cretPW-e2e@127.0.0.1:1:bad"}), 2,
       "invalid target 'redis://user:***@", kPassword},
      {Run({"--target", "memcache://user:S3cretPW-e2e@127.0.0.1:1:bad"}), 2,
       "invalid target 'memcache://user:***@", kPassword},
      {Run({"--target", "etcd://user:S3cretPW-e2e@127.0.0.1:1:bad"}), 2,
       "invalid target 'etcd://user:***@", kPassword},
      {Run({"--target", "tarantool://user:S3cretPW-e2e@127.0.0.1:1:bad"}), 2,
       "invalid target 'tarantool://user:***@", kPassword},
      // ... and one CLI11 quotes (an argument it did not expect).
      {Run({"redis://user:S3cretPW-e2e@127.0.0.1:1"}), 2, "not expected: redis://user:***@",
       kPassword},
      // Credentials.
      {Run({"--target", kNowhere, "--user", "bob"}), 2, "--user: the user 'bob' has no password",
       ""},
      {Run({"--target", "redis://bob:@127.0.0.1:1"}), 2, "--target: the user 'bob' has no password",
       ""},
      {Run({"--target", kNowhere, "-a", ""}), 2, "-a/--authenticate: empty", ""},
      {Run({"--protocol", "memcache", "--target", "memcache://127.0.0.1:1", "--user", "bob"}), 2,
       "--user: not for --protocol memcache", ""},
      {Run({"--target", kNowhere, "--auth-file", loose_auth_file}), 2,
       "has mode 0644: group or others may read it", kPassword},
      {Run({"--target", kNowhere, "--auth-file", loose_auth_file + ".missing"}), 2,
       "--auth-file: cannot open", ""},
      // Values CLI11 took as any number.
      {Run({"--target", kNowhere, "--metrics-addr", ""}), 2,
       "--metrics-addr: empty; it takes HOST:PORT", ""},
      {Run({"--target", kNowhere, "--data-compress-ratio", "nan"}), 2,
       "--data-compress-ratio: nan is out of range", ""},
      {Run({"--target", kNowhere, "--data-compress-ratio", "inf"}), 2,
       "--data-compress-ratio: inf is out of range", ""},
      {Run({"--target", kNowhere, "--data-compress-ratio", "0.5"}), 2,
       "--data-compress-ratio: 0.5 is out of range", ""},
      {Run({"--target", kNowhere, "--key-stddev", "-1"}), 2, "--key-stddev: -1 is out of range",
       ""},
      {Run({"--target", kNowhere, "--key-median", "-1e300"}), 2,
       "--key-median: -1e+300 is outside the key range", ""},
      {Run({"--target", kNowhere, "--key-zipf-exp", "0"}), 2,
       "--key-zipf-exp: 0 is out of range; it takes a finite exponent > 0", ""},
      {Run({"--target", kNowhere, "--key-median", "5"}), 2,
       "--key-median: shapes the G (gaussian) key pattern, which no command uses", ""},
      {Run({"--target", kNowhere, "--key-pattern", "G", "--key-zipf-exp", "1.2"}), 2,
       "--key-zipf-exp: shapes the Z (zipf) key pattern, which no command uses", ""},
      {{"sweep", "--target", kNowhere, "--sweep-clients", "1,2", "--runs", "2"},
       2,
       "sweep takes --runs only with --sweep-set or --sweep-topology",
       ""},
      // Echoed input is cut: the template is 120005 bytes.
      {Run({"--target", kNowhere, "--command", long_template}), 2, "... (120005 bytes)",
       std::string(200, 'x')},
      // Keys and values per protocol, refused before connecting.
      {Run({"--target", "memcache://127.0.0.1:1", "--key-prefix", "a\r\nflush_all\r\n"}), 2,
       "--key-prefix: 'a\\x0d\\x0aflush_all\\x0d\\x0a' puts the control character 0x0d at byte 1",
       ""},
      {Run({"--target", "memcache://127.0.0.1:1", "--key-prefix", "a b"}), 2,
       "puts a space at byte 1", ""},
      {Run({"--target", "memcache://127.0.0.1:1", "--key-prefix", std::string(244, 'k')}), 2,
       "--key-prefix/--key-maximum: memcache keys are at most 250 bytes, but SET's longest key is "
       "251",
       ""},
      {Run({"--target", "memcache://127.0.0.1:1", "--command", "get \"a b\""}), 2,
       "--command: 'a b' puts a space", ""},
      {Run({"--target", "etcd://127.0.0.1:1", "-d", "2M"}), 2,
       "-d/--data-size: an etcd PUT of up to", ""},
      {Run({"--target", "tarantool://127.0.0.1:1", "-d", "512M", "--command",
            "replace 512 [__data__, __data__, __data__, __data__]"}),
       2, "over Tarantool's IPROTO_PACKET_SIZE_MAX of 2 GiB", ""},
      // --wait-replicas: N from 1, a TIMEOUT WAIT can take and --request-timeout allows, RESP, a write.
      {Run({"--target", kNowhere, "--wait-replicas", "0"}), 2,
       "--wait-replicas: takes N[,TIMEOUT], N replicas from 1 to 100, got '0'", ""},
      {Run({"--target", kNowhere, "--wait-replicas", "one"}), 2,
       "--wait-replicas: takes N[,TIMEOUT], N replicas from 1 to 100, got 'one'", ""},
      {Run({"--target", kNowhere, "--wait-replicas", "1,soon"}), 2, "--wait-replicas: ", ""},
      {Run({"--target", kNowhere, "--wait-replicas", "1,0ms"}), 2,
       "--wait-replicas: TIMEOUT must be whole milliseconds, at least 1ms", ""},
      {Run({"--target", kNowhere, "--wait-replicas", "1,1500us"}), 2,
       "--wait-replicas: TIMEOUT must be whole milliseconds", ""},
      {Run({"--target", kNowhere, "--request-timeout", "1s", "--wait-replicas", "1,1s"}), 2,
       "below --request-timeout (1000 ms), got '1,1s'", ""},
      {Run({"--target", "memcache://127.0.0.1:1", "--wait-replicas", "1"}), 2,
       "--wait-replicas: Redis's WAIT, not for --protocol memcache", ""},
      {Run({"--target", kNowhere, "--command", "get __key__", "--wait-replicas", "1"}), 2,
       "--wait-replicas: WAIT follows writes, and every command is a read", ""},
      // --call-errors: a mode it knows, and only where it reads something.
      {Run({"--target", "tarantool://127.0.0.1:1", "--command", "call f", "--call-errors", "second"}), 2,
       "--call-errors: takes auto, none or second-value, got 'second'", ""},
      {Run({"--target", kNowhere, "--call-errors", "none"}), 2,
       "--call-errors: reads Tarantool's call and eval replies, not for --protocol resp", ""},
      {Run({"--target", "tarantool://127.0.0.1:1", "--call-errors", "none"}), 2,
       "--call-errors: reads the replies of call and eval templates, and no --command is one", ""},
  };
}

TEST(BadInputE2E, EveryCaseExitsWithItsMessage) {
  const std::string loose = TempDir() + "/auth-loose";
  std::ofstream(loose) << kPassword << "\n";
  ASSERT_EQ(chmod(loose.c_str(), 0644), 0);
  ExpectEveryCase(Cases(loose), 30);
}

// The password of a Redis with requirepass, given as a URL, -a, --auth-file and
// MEMSTAND_PASSWORD: in no output (stdout, stderr, --json, --samples, --hdr-log,
// --hgrm, /metrics) nor in /proc/PID/cmdline during the run, nor in run --runs' and
// sweep's summaries, also when AUTH fails.
TEST(BadInputE2E, PasswordInNoOutputChannel) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  RedisClientOptions co;
  co.port = redis->port();
  auto admin = RedisClient::Connect(co);
  ASSERT_TRUE(admin.ok()) << admin.status().message();
  ASSERT_TRUE((*admin)->Command({"CONFIG", "SET", "requirepass", kPassword}).ok());
  const std::string addr = "127.0.0.1:" + std::to_string(redis->port());
  const std::string dir = TempDir();
  const std::string auth_file = dir + "/auth";
  std::ofstream(auth_file) << kPassword << "\n";
  ASSERT_EQ(chmod(auth_file.c_str(), 0600), 0);

  const std::vector<std::vector<std::string>> ways = {
      {"--target", "redis://:" + std::string(kPassword) + "@" + addr},
      {"--target", "redis://" + addr, "-a", kPassword},
      {"--target", "redis://" + addr, "--auth-file", auth_file},
      {"--target", "redis://" + addr}};  // MEMSTAND_PASSWORD
  for (size_t i = 0; i < ways.size(); ++i) {
    const std::string json = dir + "/run.json", samples = dir + "/s.csv", hlog = dir + "/h.hlog",
                      hgrm = dir + "/h.hgrm";
    std::vector<std::string> args = {"run",    "--duration", "1s",        "-c",    "2",
                                     "--json", json,         "--samples", samples, "--hdr-log",
                                     hlog,     "--hgrm",     hgrm};
    args.insert(args.end(), ways[i].begin(), ways[i].end());
    auto port = PickFreePort();
    ASSERT_TRUE(port.ok());
    args.insert(args.end(), {"--metrics-addr", "127.0.0.1:" + std::to_string(*port)});
    if (i == 3) setenv("MEMSTAND_PASSWORD", kPassword, 1);  // the child inherits it
    auto run = Running::Start(args);
    unsetenv("MEMSTAND_PASSWORD");
    ASSERT_NE(run, nullptr);
    std::string metrics;
    for (int t = 0; t < 50 && metrics.find("memstand_requests_total") == std::string::npos; ++t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // bounded: 5 s
      metrics = Scrape(*port);
    }
    // argv is masked once parsed: /proc/PID/cmdline no longer shows the password.
    const std::string cmdline = ReadFile("/proc/" + std::to_string(run->pid()) + "/cmdline");
    Outcome out = run->Wait(60);
    ASSERT_EQ(out.exit_code, 0) << i << ": " << out.output;
    EXPECT_NE(cmdline.find("--metrics-addr"), std::string::npos) << i << ": " << cmdline;
    EXPECT_EQ(cmdline.find(kPassword), std::string::npos) << i << ": " << cmdline;
    EXPECT_NE(metrics.find("memstand_requests_total"), std::string::npos) << i << ": " << metrics;
    for (const std::string& text :
         {out.output, metrics, ReadFile(json), ReadFile(samples), ReadFile(hlog), ReadFile(hgrm)}) {
      EXPECT_FALSE(text.empty()) << i;
      EXPECT_EQ(text.find(kPassword), std::string::npos) << i << ": " << text.substr(0, 2000);
    }
  }
  // The multi-run summaries: run --runs and sweep, their text and JSON.
  const std::string json = dir + "/multi.json";
  using Args = std::vector<std::string>;
  for (Args args : {Args{"run", "--runs", "2"}, Args{"sweep", "--sweep-clients", "1,2"}}) {
    args.insert(args.end(), {"--target", "redis://:" + std::string(kPassword) + "@" + addr,
                             "-n", "200", "--json", json});
    Outcome out = RunMemstand(args, 60);
    ASSERT_EQ(out.exit_code, 0) << args[0] << ": " << out.output;
    for (const std::string& text : {out.output, ReadFile(json)}) {
      EXPECT_NE(text.find(addr), std::string::npos) << args[0] << ": " << text.substr(0, 2000);
      EXPECT_EQ(text.find(kPassword), std::string::npos) << args[0] << ": " << text.substr(0, 2000);
    }
  }
  // A wrong password: AUTH fails, and the wrong one is not shown either.
  Outcome bad =
      RunMemstand({"run", "--target", "redis://" + addr, "-a", "Wr0ngPW-e2e", "-n", "10"}, 30);
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("WRONGPASS"), std::string::npos) << bad.output;
  EXPECT_EQ(bad.output.find("Wr0ngPW-e2e"), std::string::npos) << bad.output;
}

// MEMSTAND_PASSWORD is for targets: the server memstand starts itself has no password,
// and gets no AUTH.
TEST(BadInputE2E, EnvPasswordLeavesTheOwnServerAlone) {
  setenv("MEMSTAND_PASSWORD", kPassword, 1);
  auto run = Running::Start({"run", "-n", "100", "-q"});
  unsetenv("MEMSTAND_PASSWORD");
  ASSERT_NE(run, nullptr);
  Outcome out = run->Wait(60);
  EXPECT_EQ(out.exit_code, 0) << out.output;
}

std::map<std::string, std::string> MemcachedStats(int port) {
  auto conn = codec_test::BlockingConn::Connect(port);
  if (!conn.ok()) return {};
  Buffer out;
  memcache::AppendStats(&out);
  memcache::Reader reader(memcache::Reader::Mode::kFull);
  if (!(*conn)->Send(out).ok() || !(*conn)->ReadReply(&reader).ok()) return {};
  return memcache::StatsMap(reader.TakeReply());
}

// A --key-prefix holding "\r\nflush_all\r\n" once flushed the server; now it is refused
// before anything is sent: no flush, no item, no command.
TEST(BadInputE2E, MemcacheKeyInjectionSendsNothing) {
  auto server = codec_test::StartMemcached();
  ASSERT_TRUE(server.ok()) << server.status().message();
  const std::string url = "memcache://127.0.0.1:" + std::to_string((*server)->port());
  Outcome out = RunMemstand(
      {"run", "--target", url, "-n", "100", "--ratio", "1:0", "--key-prefix", "x\r\nflush_all\r\n"},
      30);
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("--key-prefix"), std::string::npos) << out.output;
  auto stats = MemcachedStats((*server)->port());
  ASSERT_FALSE(stats.empty());
  EXPECT_EQ(stats["cmd_flush"], "0");
  EXPECT_EQ(stats["curr_items"], "0");
  EXPECT_EQ(stats["cmd_set"], "0");
}

// A Redis at maxclients answers "-ERR max number of clients reached" and closes; the
// failure says so, also under -q.
TEST(BadInputE2E, MaxclientsShowsTheServersError) {
  auto redis = StartRedis({{"maxclients", "2"}});
  ASSERT_NE(redis, nullptr);
  Outcome out =
      RunMemstand({"run", "--target", "redis://127.0.0.1:" + std::to_string(redis->port()), "-n",
                   "100", "-c", "4", "-q"},
                  30);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("max number of clients reached"), std::string::npos) << out.output;
}

}  // namespace
}  // namespace memstand::e2e
