// `memstand relay` as a binary: in front of a real redis-server with memstand's own load
// through it, and its bad flags.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "core/socket.h"
#include "e2e/e2e_util.h"
#include "test_paths.h"

namespace memstand::e2e {
namespace {

// "127.0.0.1:LISTEN=127.0.0.1:TARGET".
std::string Link(int listen_port, int target_port) {
  return "127.0.0.1:" + std::to_string(listen_port) + "=127.0.0.1:" + std::to_string(target_port);
}

// The port a running relay's start line names for its first link ("relaying
// 127.0.0.1:PORT -> ..."), or 0.
int ListenPortFromStartLine(const std::string& output) {
  const size_t at = output.find("relaying 127.0.0.1:");
  return at == std::string::npos ? 0 : std::atoi(output.c_str() + at + 19);
}

// n PINGs over one connection to port, one at a time: each a 6-byte chunk one way and
// a 7-byte reply the other. False (and a test failure) if a reply is not +PONG.
bool PingPong(int port, int n) {
  auto fd = ConnectTcp("127.0.0.1", port, 5000, true);
  EXPECT_TRUE(fd.ok()) << fd.status().message();
  if (!fd.ok()) return false;
  SetIoTimeout(*fd, 5000);
  bool ok = true;
  for (int i = 0; i < n && ok; ++i) {
    ok = WriteAll(*fd, "PING\r\n", 6).ok();
    std::string reply;
    char buf[16];
    while (ok && reply.size() < 7) {
      auto got = ReadSome(*fd, buf, sizeof(buf));
      ok = got.ok() && *got > 0;
      if (ok) reply.append(buf, *got);
    }
    EXPECT_EQ(reply, "+PONG\r\n");
    ok = ok && reply == "+PONG\r\n";
  }
  close(*fd);
  return ok;
}

// The value of the sample line that starts with `prefix` + " ", or -1.
double Sample(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix + " ", 0) == 0) return std::stod(line.substr(prefix.size() + 1));
  }
  return -1;
}

// utime + stime of pid in clock ticks (/proc/PID/stat fields 14 and 15), or -1.
long CpuTicks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stol(field);
    if (i == 15) stime = std::stol(field);
  }
  return utime + stime;
}

TEST(RelayE2E, RelaysMemstandRunToRedisWithEveryCommandCounted) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  auto port = PickFreePort();
  ASSERT_TRUE(port.ok());
  const std::string link =
      "127.0.0.1:" + std::to_string(*port) + "=127.0.0.1:" + std::to_string(redis->port());
  auto relay = Running::Start({"relay", "--link", link, "--delay", "0"});
  ASSERT_TRUE(relay->WaitForOutput("relaying", 10)) << relay->OutputSoFar();
  Outcome run = RunMemstand({"run", "--target", "redis://127.0.0.1:" + std::to_string(*port),
                             "-n", "2000", "-c", "4", "--ratio", "1:3", "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  kill(relay->pid(), SIGTERM);
  Outcome out = relay->Wait(10);
  EXPECT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("connections, 0 refused"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("client->target"), std::string::npos) << out.output;

  RedisClientOptions o;
  o.host = redis->host();
  o.port = redis->port();
  auto client = RedisClient::Connect(o);
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto info = (*client)->Command({"INFO", "commandstats"});
  ASSERT_TRUE(info.ok());
  auto stats = ParseCommandStats(info->str);
  EXPECT_EQ(stats["set"].calls + stats["get"].calls, 2000);
  EXPECT_EQ(stats["set"].calls, 500);
}

TEST(RelayE2E, BadFlagsExit2WithTheReason) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"relay"}, "--link is required"},
      {{"relay", "--link", "127.0.0.1:7000"}, "bad link '127.0.0.1:7000'"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--delay", "5xs"}, "--delay: bad duration"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--delay-back", "2d"}, "--delay-back: bad duration"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--mode", "serial"}, "bad mode 'serial'"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--rate", "100"}, "--rate: bad rate"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--jitter", "x"}, "--jitter"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--duration", "25h"}, "at most 24h"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--spin", "11ms"}, "--spin: at most 10ms"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--realtime", "100"}, "--realtime"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--segment-tap", "yes"},
       "--segment-tap: bad value 'yes': expected on or off"},
  };
  for (const auto& [args, message] : cases) {
    Outcome out = RunMemstand(args, 20);
    EXPECT_EQ(out.exit_code, 2) << args.back() << ": " << out.output;
    EXPECT_NE(out.output.find(message), std::string::npos) << out.output;
  }
}

// Without CAP_NET_RAW (root's relay run as nobody) the segment tap cannot open: the
// relay runs as before and says so, on stderr and in its start line.
TEST(RelayE2E, WithoutCapNetRawTheSegmentTapFallsBackAndSaysSo) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to drop to nobody (setpriv)";
  if (std::system("command -v setpriv >/dev/null 2>&1") != 0) GTEST_SKIP() << "setpriv is not installed";
  const std::string cmd = "timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups " + testutil::MemstandBinary() +
                          " relay --link 127.0.0.1:0=127.0.0.1:1 --duration 100ms 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), p)) > 0;) out.append(buf, n);
  const int status = pclose(p);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 0) << out;
  EXPECT_NE(out.find("segment tap OFF (could not open: packet socket (needs CAP_NET_RAW)"), std::string::npos) << out;
  EXPECT_NE(out.find("memstand relay: segment tap off: "), std::string::npos) << out;
  EXPECT_EQ(out.find("segment tap: "), std::string::npos) << out;  // no tap counts without a tap
}

TEST(RelayE2E, ABusyListenAddressExits2) {
  auto taken = ListenTcp("127.0.0.1", 0);
  ASSERT_TRUE(taken.ok());
  const std::string link = "127.0.0.1:" + std::to_string(*LocalPort(*taken)) + "=127.0.0.1:1";
  Outcome out = RunMemstand({"relay", "--link", link, "--duration", "1s"}, 20);
  close(*taken);
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("link 1: bind"), std::string::npos) << out.output;
}

TEST(RelayE2E, DurationStopsItWithTheTable) {
  Outcome out = RunMemstand({"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--delay", "250us",
                             "--duration", "100ms"}, 20);
  EXPECT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("delay 250 us, back 250 us, pipelined"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("0 connections, 0 refused"), std::string::npos) << out.output;
}

// --metrics-addr during a run: a real scrape shows what the test sent, per link and
// direction, and promtool accepts the page; --json at the end holds the same counts.
TEST(RelayE2E, MetricsScrapeAndJsonCountWhatPassed) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  auto metrics_port = PickFreePort();
  ASSERT_TRUE(metrics_port.ok());
  const std::string json_path = TempDir() + "/relay.json";
  auto relay = Running::Start({"relay", "--link", Link(0, redis->port()), "--delay", "200us",
                               "--metrics-addr", "127.0.0.1:" + std::to_string(*metrics_port),
                               "--json", json_path});
  ASSERT_TRUE(relay->WaitForOutput("relaying", 10)) << relay->OutputSoFar();
  const int port = ListenPortFromStartLine(relay->OutputSoFar());
  ASSERT_GT(port, 0) << relay->OutputSoFar();
  constexpr int kPings = 50;
  ASSERT_TRUE(PingPong(port, kPings));

  const std::string response = Scrape(*metrics_port);
  ASSERT_NE(response.find("200 OK"), std::string::npos) << response;
  const std::string body = response.substr(response.find("\r\n\r\n") + 4);
  const std::string fwd = "{link=\"1\",direction=\"client_to_target\"}";
  const std::string back = "{link=\"1\",direction=\"target_to_client\"}";
  EXPECT_EQ(Sample(body, "memstand_relay_chunks_total" + fwd), kPings) << body;
  EXPECT_EQ(Sample(body, "memstand_relay_bytes_total" + fwd), 6 * kPings);
  EXPECT_EQ(Sample(body, "memstand_relay_bytes_total" + back), 7 * kPings);
  EXPECT_EQ(Sample(body, "memstand_relay_connections_total{link=\"1\"}"), 1);
  EXPECT_EQ(Sample(body, "memstand_relay_nodelay_sockets_total{link=\"1\"}"), 2);
  EXPECT_EQ(Sample(body, "memstand_relay_applied_delay_seconds_count" + fwd), kPings);
  // Every chunk waited its 200 us: none is in the buckets below it.
  EXPECT_EQ(Sample(body,
                   "memstand_relay_applied_delay_seconds_bucket{link=\"1\",direction="
                   "\"client_to_target\",le=\"0.0001\"}"),
            0);
  EXPECT_EQ(Sample(body, "memstand_relay_delay_seconds{direction=\"target_to_client\"}"), 0.0002);
  // Each ping is one write, one segment and one read: the segment tap (on as root) covers
  // every read and splits none.
  const bool tap = relay->OutputSoFar().find("segment tap on") != std::string::npos;
  EXPECT_EQ(tap, geteuid() == 0) << relay->OutputSoFar();
  EXPECT_EQ(Sample(body, "memstand_relay_segment_tap"), tap ? 1 : 0);
  EXPECT_EQ(Sample(body, "memstand_relay_reads_total" + fwd), kPings);
  EXPECT_GT(Sample(body, "memstand_relay_stamped_reads_total" + fwd), 0);
  EXPECT_EQ(Sample(body, "memstand_relay_read_late_seconds_count" + fwd), kPings);
  EXPECT_EQ(Sample(body, "memstand_relay_tap_reads_total" + fwd), tap ? kPings : 0);
  EXPECT_EQ(Sample(body, "memstand_relay_tap_splits_total" + fwd), 0);
  EXPECT_EQ(Sample(body, "memstand_relay_tap_fallbacks_total" + back), 0);
  ExpectPromtoolAccepts(body);

  kill(relay->pid(), SIGTERM);
  Outcome out = relay->Wait(10);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  nlohmann::json j = ReadJson(json_path);
  EXPECT_EQ(j["schema"], "memstand.relay");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["stopped_by"], "signal");
  EXPECT_EQ(j["options"]["delay_us"], 200.0);
  EXPECT_EQ(j["options"]["mode"], "pipelined");
  EXPECT_EQ(j["options"]["nodelay"], true);
  ASSERT_EQ(j["links"].size(), 1u) << j.dump(2);
  const nlohmann::json& l = j["links"][0];
  EXPECT_EQ(l["listen"], "127.0.0.1:" + std::to_string(port));
  EXPECT_EQ(l["target"], "127.0.0.1:" + std::to_string(redis->port()));
  EXPECT_EQ(l["connections"], 1);
  EXPECT_EQ(l["refused"], 0);
  EXPECT_EQ(l["nodelay_sockets"], 2);
  EXPECT_EQ(l["client_to_target"]["chunks"], kPings);
  EXPECT_EQ(l["client_to_target"]["bytes"], 6 * kPings);
  EXPECT_EQ(l["target_to_client"]["chunks"], kPings);
  EXPECT_EQ(l["target_to_client"]["bytes"], 7 * kPings);
  EXPECT_EQ(l["client_to_target"]["applied"]["count"], kPings);
  EXPECT_EQ(l["client_to_target"]["reads"], kPings);
  EXPECT_EQ(l["target_to_client"]["tap_reads"], tap ? kPings : 0);
  EXPECT_EQ(l["target_to_client"]["tap_splits"], 0);
  EXPECT_EQ(l["target_to_client"]["tap_fallbacks"], 0);
  EXPECT_EQ(j["options"]["segment_tap"], true);
  EXPECT_EQ(j["segment_tap"]["on"], tap);
  EXPECT_EQ(j["segment_tap"]["malformed"], 0);
  EXPECT_GE(l["client_to_target"]["applied"]["min_us"].get<double>(), 200.0);
  EXPECT_GE(l["target_to_client"]["applied"]["percentiles_us"]["50"].get<double>(), 200.0);
  EXPECT_TRUE(l["client_to_target"]["added"]["percentiles_us"].contains("99"));
  EXPECT_NE(j["start_line"].get<std::string>().find("delay 200 us, back 200 us"),
            std::string::npos);
  EXPECT_GT(j["platform"]["cpus"].get<int>(), 0);
}

TEST(RelayE2E, BadMetricsAddressOrJsonPathExits2) {
  Outcome out = RunMemstand({"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--metrics-addr",
                             "nonsense", "--duration", "1s"},
                            20);
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("--metrics-addr"), std::string::npos) << out.output;
  auto taken = ListenTcp("127.0.0.1", 0);
  ASSERT_TRUE(taken.ok());
  out = RunMemstand({"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--metrics-addr",
                     "127.0.0.1:" + std::to_string(*LocalPort(*taken)), "--duration", "1s"},
                    20);
  close(*taken);
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("--metrics-addr: cannot listen on"), std::string::npos) << out.output;
  out = RunMemstand({"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--json",
                     TempDir() + "/missing/relay.json", "--duration", "1s"},
                    20);
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("--json"), std::string::npos) << out.output;
}

// Out of descriptors, accept() fails on every pass: the relay must pause the listener
// instead of spinning. The relay's open-files limit is lowered below what it holds, a
// burst of clients waits in the backlog for 2 s, and the relay's CPU ticks and its
// count of failed accepts stay small (a spinning loop takes a core: ~200 ticks, and
// millions of failures). Then the limit is raised back and a client gets through.
TEST(RelayE2E, OutOfDescriptorsPausesTheListenerInsteadOfSpinning) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  const std::string json_path = TempDir() + "/relay.json";
  auto relay = Running::Start({"relay", "--link", Link(0, redis->port()), "--json", json_path});
  ASSERT_TRUE(relay->WaitForOutput("relaying", 10)) << relay->OutputSoFar();
  const int port = ListenPortFromStartLine(relay->OutputSoFar());
  ASSERT_GT(port, 0);
  rlimit old{};
  ASSERT_EQ(prlimit(relay->pid(), RLIMIT_NOFILE, nullptr, &old), 0);
  const rlimit low{3, old.rlim_max};  // below stdio plus the loop's own descriptors
  ASSERT_EQ(prlimit(relay->pid(), RLIMIT_NOFILE, &low, nullptr), 0) << strerror(errno);
  const long ticks_before = CpuTicks(relay->pid());
  std::vector<int> clients;
  for (int i = 0; i < 8; ++i) {
    auto fd = ConnectTcp("127.0.0.1", port, 2000, true);  // completes in the backlog
    ASSERT_TRUE(fd.ok()) << fd.status().message();
    clients.push_back(*fd);
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const long ticks = CpuTicks(relay->pid()) - ticks_before;
  for (int fd : clients) close(fd);
  ASSERT_EQ(prlimit(relay->pid(), RLIMIT_NOFILE, &old, nullptr), 0);
  EXPECT_LT(ticks, 40) << "the relay took " << ticks << " ticks of CPU in 2 s";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a pause passes
  EXPECT_TRUE(PingPong(port, 3));                               // accepting again

  kill(relay->pid(), SIGTERM);
  Outcome out = relay->Wait(20);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("accept failed for lack of descriptors"), std::string::npos)
      << out.output;
  nlohmann::json j = ReadJson(json_path);
  const int64_t failures = j["links"][0]["accept_failures"].get<int64_t>();
  EXPECT_GE(failures, 1) << j.dump(2);
  EXPECT_LE(failures, 60) << "one failure per 100 ms pause over about 2 s";
  EXPECT_EQ(j["links"][0]["target_to_client"]["bytes"], 3 * 7) << j.dump(2);
}

}  // namespace
}  // namespace memstand::e2e
