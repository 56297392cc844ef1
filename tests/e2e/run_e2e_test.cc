// The real memstand binary against real redis-server instances started by the tests.
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <chrono>
#include <numeric>
#include <regex>
#include <thread>

#include <gtest/gtest.h>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "core/cpu_set.h"
#include "core/socket.h"
#include "e2e/e2e_util.h"
#include "npm_util.h"
#include "stand/local_redis.h"

namespace memstand::e2e {
namespace {

int64_t Integer(RedisClient& c, const std::vector<std::string>& cmd) {
  auto r = c.Command(cmd);
  EXPECT_TRUE(r.ok());
  return r.ok() ? r->integer : -1;
}

TEST(RunE2E, NoTargetStartsAndStopsItsOwnRedis) {
  std::string json = TempDir() + "/run.json";
  Outcome out = RunMemstand({"run", "-n", "3000", "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("started by memstand"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("[7] Cross-check"), std::string::npos);
  auto j = ReadJson(json);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["schema"], "memstand.run");
  EXPECT_EQ(j["totals"]["ops"], 3000);
  EXPECT_EQ(j["cross_check"]["mismatch"], false);
  EXPECT_TRUE(j["server"]["started_by_memstand"].get<bool>());
  pid_t pid = j["server"]["pid"].get<pid_t>();
  EXPECT_GT(pid, 0);
  EXPECT_FALSE(ProcessExists(pid)) << "memstand left its redis-server running";
  // SET:GET 1:10 by default.
  const auto* set = FindCommand(j, "SET");
  const auto* get = FindCommand(j, "GET");
  ASSERT_NE(set, nullptr);
  ASSERT_NE(get, nullptr);
  EXPECT_NEAR((*get)["ops"].get<double>() / (*set)["ops"].get<double>(), 10.0, 0.2);
  EXPECT_EQ((*get)["hits"].get<int64_t>() + (*get)["misses"].get<int64_t>(), (*get)["ops"]);
  // The per-second series adds up to the totals.
  int64_t series_ops = 0;
  for (const auto& p : j["series"]["Total"]) {
    series_ops += p["ops"].get<int64_t>();
    EXPECT_FALSE(p.contains("send_lag_p99_us")) << p.dump();  // a closed loop has no schedule
  }
  EXPECT_EQ(series_ops, 3000);
  ASSERT_TRUE(j["series"].contains("GET"));
}

// --cpus pins the load threads, round robin; the report says where they ran as the
// kernel reads it back, pinned or not.
TEST(RunE2E, CpusPinsTheLoadThreadsAndTheReportSaysWhereTheyRan) {
  auto usable = ThisThreadCpus();
  ASSERT_TRUE(usable.ok());
  const int cpu = usable->back();  // 1 on a two-CPU machine
  std::string json = TempDir() + "/run.json";
  const CpuList rest = CpuDifference(*usable, {cpu});  // {0} on a two-CPU machine
  Outcome out = RunMemstand({"run", "-n", "3000", "--threads", "2", "--cpus", std::to_string(cpu), "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const std::string others = rest.empty() ? "" : "; memstand's other threads kept on CPUs " + CpuListText(rest);
  EXPECT_NE(out.output.find("client CPUs " + std::to_string(cpu) + " (load threads pinned one CPU each, round robin "
                            "over --cpus " + std::to_string(cpu) + others + "; read back from the kernel)"),
            std::string::npos)
      << out.output;
  EXPECT_NE(out.output.find("thread 1: "), std::string::npos);
  auto j = ReadJson(json);
  EXPECT_EQ(j["options"]["cpus"], nlohmann::json::array({cpu}));
  EXPECT_EQ(j["client"]["cpus"], nlohmann::json::array({cpu}));
  ASSERT_EQ(j["client"]["threads"].size(), 2u);
  for (const auto& t : j["client"]["threads"]) EXPECT_EQ(t["cpus"], nlohmann::json::array({cpu}));
  EXPECT_EQ(j["client"]["other_threads_cpus"].get<CpuList>(), rest);

  out = RunMemstand({"run", "-n", "1000", "--json", json});  // not pinned: memstand's whole affinity
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("client CPUs " + CpuListText(*usable) + " (load threads not pinned"), std::string::npos)
      << out.output;
  j = ReadJson(json);
  EXPECT_EQ(j["options"]["cpus"], nlohmann::json::array());
  EXPECT_EQ(j["client"]["cpus"].get<CpuList>(), *usable);
}

// --cpus keeps memstand's other threads off the load threads' CPUs, as the kernel says
// during the run: each thread of the process may run on the load CPU alone (a load
// thread) or on the others alone (the main thread, the collector, the sampler).
TEST(RunE2E, CpusKeepTheOtherThreadsOffTheLoadThreadsCpus) {
  auto usable = ThisThreadCpus();
  ASSERT_TRUE(usable.ok());
  if (usable->size() < 2) GTEST_SKIP() << "one CPU: nothing to keep apart";
  const int cpu = usable->back();
  const CpuList rest = CpuDifference(*usable, {cpu});
  Outcome out;
  std::thread run([&] {
    out = RunMemstand({"run", "--duration", "3s", "--warmup", "0", "--rate", "2000", "--cpus", std::to_string(cpu),
                       "-q"});
  });
  std::map<pid_t, CpuList> seen;  // thread -> its CPUs, once a load thread was pinned
  for (int i = 0; i < 2000 && seen.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    for (pid_t pid : ChildrenNamed(getpid(), "memstand")) {
      std::map<pid_t, CpuList> threads;
      std::error_code ec;
      for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
        const pid_t tid = std::stoi(e.path().filename().string());
        auto cpus = ProcessCpus(tid);  // /proc/TID/status reads that thread's
        if (cpus.ok()) threads[tid] = *cpus;
      }
      bool pinned = false;
      for (const auto& [tid, cpus] : threads) pinned = pinned || cpus == CpuList{cpu};
      if (pinned) seen = threads;
    }
  }
  run.join();
  ASSERT_EQ(out.exit_code, 0) << out.output;
  ASSERT_FALSE(seen.empty()) << "no load thread seen pinned";
  int load = 0, others = 0;
  for (const auto& [tid, cpus] : seen) {
    if (cpus == CpuList{cpu}) {
      ++load;
    } else {
      ++others;
      EXPECT_EQ(cpus, rest) << "thread " << tid << " on CPUs " << CpuListText(cpus);
    }
  }
  EXPECT_EQ(load, 1);
  EXPECT_GE(others, 3);  // the main thread, the collector, the resource sampler
}

TEST(RunE2E, CountsEqualInfoCommandstats) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  std::string json = TempDir() + "/run.json";
  Outcome out = RunMemstand({"run", "--target", Url(*redis), "--exclusive", "-n", "7777", "-c",
                             "8", "--pipeline", "4", "--threads", "2", "--ratio", "1:3",
                             "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto j = ReadJson(json);
  auto client = Connect(*redis);
  ASSERT_NE(client, nullptr);
  auto info = client->Command({"INFO", "commandstats"});
  ASSERT_TRUE(info.ok());
  auto stats = ParseCommandStats(info->str);
  EXPECT_EQ(stats["set"].calls, (*FindCommand(j, "SET"))["ops"].get<int64_t>());
  EXPECT_EQ(stats["get"].calls, (*FindCommand(j, "GET"))["ops"].get<int64_t>());
  EXPECT_EQ(stats["set"].calls + stats["get"].calls, 7777);
  for (const auto& row : j["cross_check"]["commands"]) {
    EXPECT_EQ(row["memstand"], row["server"]) << row.dump();
  }
}

TEST(RunE2E, SequentialSetsLeaveEveryKey) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  Outcome out = RunMemstand({"run", "--target", Url(*redis), "--command", "set __key__ __data__",
                             "--key-pattern", "S", "--key-minimum", "1", "--key-maximum",
                             "1000", "-n", "1000", "-c", "7", "-q"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto client = Connect(*redis);
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(Integer(*client, {"DBSIZE"}), 1000);
  EXPECT_EQ(Integer(*client, {"EXISTS", "memtier-1", "memtier-1000"}), 2);
}

TEST(RunE2E, AclUserAndSelect) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  auto admin = Connect(*redis);
  ASSERT_NE(admin, nullptr);
  ASSERT_TRUE(admin->Command({"ACL", "SETUSER", "bench", "on", ">s3cret", "~*", "+@all"}).ok());
  for (const char* resp : {"2", "3"}) {
    Outcome out = RunMemstand({"run", "--target", Url(*redis).replace(0, 8, "redis://bench:s3cret@") + "/3",
                               "--resp", resp, "-n", "500", "--command", "set __key__ x", "-q"});
    ASSERT_EQ(out.exit_code, 0) << out.output;
  }
  auto db3 = Connect(*redis, 3);
  ASSERT_NE(db3, nullptr);
  EXPECT_GT(Integer(*db3, {"DBSIZE"}), 0);
  EXPECT_EQ(Integer(*admin, {"DBSIZE"}), 0);
  Outcome bad = RunMemstand({"run", "--target", Url(*redis).replace(0, 8, "redis://bench:wrong@"),
                             "-n", "10"});
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("WRONGPASS"), std::string::npos) << bad.output;
}

TEST(RunE2E, Resp3AndCustomCommandsWithErrorsCounted) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  std::string json = TempDir() + "/run.json";
  // LPUSH on a key holding a string: WRONGTYPE errors are counted, not fatal.
  Outcome out = RunMemstand({"run", "--target", Url(*redis), "--resp", "3", "--key-maximum", "9",
                             "--command", "set __key__ __data__", "--command-ratio", "1",
                             "--command", "lpush __key__ x", "--command-ratio", "1",
                             "-n", "400", "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto j = ReadJson(json);
  const auto* lpush = FindCommand(j, "LPUSH");
  ASSERT_NE(lpush, nullptr);
  EXPECT_EQ((*lpush)["ops"], 200);
  EXPECT_GT((*lpush)["errors_by_kind"]["WRONGTYPE"]["count"].get<int>(), 0) << lpush->dump();
}

// The server memstand started and memstand itself are sampled each second.
TEST(RunE2E, ResourcesOfTheStartedServerAreSampled) {
  std::string json = TempDir() + "/run.json";
  Outcome out = RunMemstand({"run", "--duration", "2s", "--clients", "4", "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto j = ReadJson(json);
  const auto& res = j["resources"];
  ASSERT_EQ(res.size(), 2u) << out.output;
  EXPECT_EQ(res[0]["label"], "redis-server");
  EXPECT_EQ(res[0]["pid"], j["server"]["pid"]);
  EXPECT_EQ(res[1]["label"], "memstand");
  for (const auto& r : res) {
    EXPECT_GE(r["points"].size(), 2u);  // 2 s at 1 s, plus the last partial interval
    EXPECT_GT(r["summary"]["cpu_s"].get<double>(), 0.0) << r.dump();
    EXPECT_GT(r["summary"]["rss_max_bytes"].get<int64_t>(), int64_t{1} << 20);
    EXPECT_TRUE(r["ended"].is_null());
  }
  // Sampled CPU of the server agrees with the /proc delta around the run (both in
  // 10 ms ticks; the sampler's window is slightly wider).
  EXPECT_GE(res[0]["summary"]["cpu_s"].get<double>() + 0.02, j["server"]["proc_cpu_s"].get<double>());
  EXPECT_NE(out.output.find("redis-server (pid"), std::string::npos);
}

TEST(RunE2E, BadInputIsAUsageError) {
  // A closed port: had memstand tried to connect, it would exit 1, not 2.
  auto port = PickFreePort();
  ASSERT_TRUE(port.ok());
  std::string target = "redis://127.0.0.1:" + std::to_string(*port);
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  std::vector<Case> cases = {
      {{"run", "--no-such-flag"}, "--no-such-flag"},
      {{"run", "--threads", "0"}, "--threads"},
      {{"run", "--pipeline", "abc"}, "--pipeline"},
      {{"run", "--resp", "4"}, "--resp"},
      {{"run", "--target", "http://x"}, "invalid target"},
      {{"run", "--target", target, "--command", "set __key__ __value__"}, "unknown placeholder __value__"},
      {{"run", "--target", target, "--command", "set \"__key__ x"}, "unbalanced quotes"},
      {{"run", "--target", target, "--ratio", "1:x"}, "--ratio"},
      {{"run", "--target", target, "--key-pattern", "Q"}, "--key-pattern"},
      {{"run", "--target", target, "--duration", "ten"}, "bad duration"},
      {{"run", "--target", target, "--data-size", "0"}, "--data-size"},
      {{"run", "--target", target, "--percentiles", "50,200"}, "--percentiles"},
      {{"run", "--target", target, "--json", "/nonexistent/dir/x.json"}, "--json"},
      {{"run", "--target", target, "--hdr-log", "/nonexistent/dir/x.hlog"}, "--hdr-log"},
      {{"run", "--target", target, "--hgrm", "/nonexistent/dir/x.hgrm"}, "--hgrm"},
      {{"run", "--target", target, "--command-ratio", "2"}, "must follow a --command"},
      {{"run", "--target", target, "--rate", "0"}, "--rate must be > 0"},
      {{"run", "--target", target, "--rate", "-5"}, "--rate must be > 0"},
      {{"run", "--target", target, "--rate", "fast"}, "--rate: 'fast' is not a rate"},
      {{"run", "--target", target, "--rate", "1e12"}, "above the cap"},
      {{"run", "--target", target, "--rate", "inf"}, "finite"},
      {{"run", "--target", target, "--arrival", "poisson"}, "--arrival: applies to the open loop"},
      {{"run", "--target", target, "--rate", "100", "--arrival", "bursty"}, "--arrival"},
      {{"run", "--target", target, "--spin", "50us"}, "--spin: applies to the open loop"},
      {{"run", "--target", target, "--rate", "100", "--spin", "20ms"}, "--spin: at most 10ms"},
      {{"run", "--target", target, "--rate", "100", "--spin", "soon"}, "--spin: bad duration"},
      {{"run", "--target", target, "--realtime", "100"}, "--realtime"},
      {{"run", "--target", target, "--cpus", "1-0"}, "--cpus: bad CPU list '1-0'"},
      {{"run", "--target", target, "--cpus", "1023"}, "--cpus 1023: CPU 1023 is not online on this machine"},
      {{"frobnicate"}, "unknown subcommand 'frobnicate'"},
  };
  for (const Case& c : cases) {
    Outcome out = RunMemstand(c.args, 20);
    EXPECT_EQ(out.exit_code, 2) << c.says << "\n" << out.output;
    EXPECT_NE(out.output.find(c.says), std::string::npos) << out.output;
  }
}

TEST(RunE2E, UnreachableTargetFailsFast) {
  auto port = PickFreePort();
  ASSERT_TRUE(port.ok());
  Outcome out = RunMemstand({"run", "--target", "redis://127.0.0.1:" + std::to_string(*port),
                             "--connect-timeout", "2s"}, 20);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("refused"), std::string::npos) << out.output;

  // A listener that never answers: the handshake is bounded by --connect-timeout.
  auto fd = ListenTcp("127.0.0.1", 0);
  ASSERT_TRUE(fd.ok());
  auto silent = LocalPort(*fd);
  out = RunMemstand({"run", "--target", "redis://127.0.0.1:" + std::to_string(*silent),
                     "--connect-timeout", "1s"}, 20);
  close(*fd);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_FALSE(out.timed_out);
  EXPECT_NE(out.output.find("no reply within 1000 ms"), std::string::npos) << out.output;
}

// A server killed mid-run: IoModeE2E.ServerKilledMidRunEndsTheRun, over each I/O path.

// A peer that answers the control client's INFO and then sends garbage.
void ServeGarbage(int listen_fd, std::atomic<bool>* done) {
  std::vector<int> fds;
  while (!*done) {
    int fd = accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK);
    if (fd >= 0) fds.push_back(fd);
    for (int c : fds) {
      char buf[4096];
      ssize_t n = read(c, buf, sizeof(buf));
      if (n <= 0) continue;
      std::string req(buf, static_cast<size_t>(n));
      std::string reply = req.find("INFO") != std::string::npos   ? "$3\r\nx:1\r\n"
                          : req.find("PING") != std::string::npos ? "+PONG\r\n"
                                                                  : "Xgarbage\r\n";
      (void)!write(c, reply.data(), reply.size());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (int c : fds) close(c);
}

TEST(RunE2E, MalformedReplyIsAProtocolError) {
  auto fd = ListenTcp("127.0.0.1", 0);
  ASSERT_TRUE(fd.ok());
  SetNonBlocking(*fd, true);
  auto port = LocalPort(*fd);
  std::atomic<bool> done{false};
  std::thread server(ServeGarbage, *fd, &done);
  std::string json = TempDir() + "/run.json";
  Outcome out = RunMemstand({"run", "--target", "redis://127.0.0.1:" + std::to_string(*port),
                             "-n", "100", "-c", "2", "--json", json}, 30);
  done = true;
  server.join();
  close(*fd);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("malformed reply"), std::string::npos) << out.output;
  auto j = ReadJson(json);
  ASSERT_TRUE(j.is_object());
  EXPECT_GE(j["protocol_errors"].get<int>(), 1);
}

TEST(RunE2E, SigintPrintsResultsMarkedInterrupted) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  auto run = Running::Start({"run", "--target", Url(*redis), "--duration", "60s"});
  ASSERT_NE(run, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(run->pid(), SIGINT);
  Outcome out = run->Wait(20);
  EXPECT_EQ(out.exit_code, 130) << out.output;
  EXPECT_NE(out.output.find("INTERRUPTED"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("Total"), std::string::npos);
}

TEST(RunE2E, NoTargetServerIsStoppedOnSigint) {
  std::string json = TempDir() + "/run.json";
  auto run = Running::Start({"run", "--duration", "60s", "--json", json});
  ASSERT_NE(run, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(run->pid(), SIGINT);
  Outcome out = run->Wait(20);
  EXPECT_EQ(out.exit_code, 130) << out.output;
  auto j = ReadJson(json);
  ASSERT_TRUE(j.is_object()) << out.output;
  EXPECT_TRUE(j["interrupted"].get<bool>());
  pid_t pid = j["server"]["pid"].get<pid_t>();
  EXPECT_FALSE(ProcessExists(pid)) << "redis-server " << pid << " survived SIGINT";
}

TEST(RunE2E, MissingRedisServerSaysHowToInstallIt) {
  Outcome out = RunMemstand({"run", "--redis-server", "no-such-redis-server-binary", "-n", "10"});
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("apt-get install redis-server"), std::string::npos) << out.output;
}

TEST(RunE2E, WarmupIsSentButKeptOutOfTheStatistics) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  std::string json = TempDir() + "/run.json";
  Outcome out = RunMemstand({"run", "--target", Url(*redis), "--exclusive", "--warmup", "1s",
                             "-n", "1000", "-c", "4", "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto j = ReadJson(json);
  EXPECT_EQ(j["totals"]["ops"], 1000);
  EXPECT_EQ(j["totals"]["latency"]["count"], 1000);
  int64_t server_total = 0;
  for (const auto& row : j["cross_check"]["commands"]) {
    EXPECT_EQ(row["memstand"], row["server"]) << row.dump();
    if (row["command"] == "set" || row["command"] == "get") server_total += row["server"].get<int64_t>();
  }
  EXPECT_GT(server_total, 1000) << "the warm-up sent nothing";
}

TEST(RunE2E, ThousandsOfConnectionsFromOneProcess) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  std::string json = TempDir() + "/run.json";
  Outcome out = RunMemstand({"run", "--target", Url(*redis), "--exclusive", "--threads", "2",
                             "--clients", "1500", "-n", "30000", "--json", json}, 120);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto j = ReadJson(json);
  EXPECT_EQ(j["options"]["connections"], 3000);
  EXPECT_EQ(j["totals"]["ops"], 30000);
  EXPECT_EQ(j["cross_check"]["mismatch"], false);
  auto client = Connect(*redis);
  ASSERT_NE(client, nullptr);
  auto info = client->Command({"INFO", "stats"});
  ASSERT_TRUE(info.ok());
  auto stats = ParseInfo(info->str);
  // 3000 load connections + the control client + this client.
  EXPECT_GE(std::stoll(stats["total_connections_received"]), 3001);
}

TEST(RunE2E, HdrLogDecodesWithTheReferenceDecoder) {
  std::string dir = TempDir();
  std::string json = dir + "/run.json", hlog = dir + "/run.hlog", hgrm = dir + "/run.hgrm";
  Outcome out = RunMemstand({"run", "--duration", "2s", "--json", json, "--hdr-log", hlog,
                             "--hgrm", hgrm, "-q"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto j = ReadJson(json);
  std::string error;
  auto decoded = testutil::DecodeHlog(hlog, &error);
  ASSERT_TRUE(decoded.is_object()) << error;
  for (const char* tag : {"SET", "GET"}) {
    SCOPED_TRACE(tag);
    ASSERT_TRUE(decoded["tags"].contains(tag)) << decoded.dump();
    const auto& t = decoded["tags"][tag];
    EXPECT_EQ(t["totalCount"], (*FindCommand(j, tag))["ops"]);
    EXPECT_GE(t["intervals"].size(), 2u);  // one line a second
  }
  std::string text = testutil::ReadFile(hgrm);
  EXPECT_NE(text.find("Value     Percentile TotalCount 1/(1-Percentile)"), std::string::npos) << text;
  const std::string total = std::to_string(j["totals"]["ops"].get<int64_t>());
  EXPECT_NE(text.find("Total count    = " + std::string(12 - total.size(), ' ') + total + "]"),
            std::string::npos) << text;
}

// HdrHistogram's own Java reader (Debian's libhdrhistogram-java): without -tag it reads
// the untagged line of every second (all commands), with -tag one command's; the counts
// are the run's. The StartTime has milliseconds, and the last second its true length.
TEST(RunE2E, HdrLogReadByHistogramLogProcessorWithAndWithoutTag) {
  const std::string dir = TempDir(), json = dir + "/run.json", hlog = dir + "/run.hlog";
  Outcome out = RunMemstand({"run", "--duration", "2500ms", "-c", "4", "--json", json, "--hdr-log", hlog, "-q"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const auto j = ReadJson(json);
  const HdrLogRead all = ReadHdrLogWithJava(hlog, "");
  EXPECT_EQ(all.total, j["totals"]["ops"].get<int64_t>());
  EXPECT_GE(all.interval_counts.size(), 3u) << all.output;  // 2.5 s: 1 + 1 + 0.5
  EXPECT_EQ(std::accumulate(all.interval_counts.begin(), all.interval_counts.end(), int64_t{0}), all.total);
  EXPECT_EQ(ReadHdrLogWithJava(hlog, "GET").total, (*FindCommand(j, "GET"))["ops"].get<int64_t>());
  EXPECT_EQ(ReadHdrLogWithJava(hlog, "SET").total, (*FindCommand(j, "SET"))["ops"].get<int64_t>());
  const std::string text = testutil::ReadFile(hlog);
  EXPECT_TRUE(std::regex_search(text, std::regex("#\\[StartTime: [0-9]+\\.[0-9]{3} "))) << text.substr(0, 200);
  // The last line's length: the measured phase less its whole seconds (2.5 s: about 0.5).
  const size_t last = text.rfind("\n", text.size() - 2);
  const std::string line = text.substr(last + 1);
  const size_t comma = line.find(',', line.find("Tag=") == 0 ? line.find(',') + 1 : 0);
  const double length = std::stod(line.substr(comma + 1));
  EXPECT_GT(length, 0.0) << line;
  EXPECT_LT(length, 1.0) << line;
}

TEST(RunE2E, LiveMetricsPassPromtool) {
  auto port = PickFreePort();
  ASSERT_TRUE(port.ok());
  // Open loop, so the send-lag gauge has something to show.
  auto run = Running::Start({"run", "--duration", "5s", "--rate", "5000", "--metrics-addr",
                             "127.0.0.1:" + std::to_string(*port), "-q"});
  ASSERT_NE(run, nullptr);
  std::string resp;
  for (int i = 0; i < 80; ++i) {  // until a completed second shows up (bounded: 8 s)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    resp = Scrape(*port);
    if (resp.find("memstand_run_elapsed_seconds ") != std::string::npos &&
        resp.find("memstand_run_elapsed_seconds 0\n") == std::string::npos) {
      break;
    }
  }
  Outcome out = run->Wait(30);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  ASSERT_NE(resp.find("HTTP/1.1 200"), std::string::npos) << resp;
  ASSERT_NE(resp.find("memstand_requests_total{command=\"GET\"}"), std::string::npos) << resp;
  EXPECT_NE(resp.find("memstand_request_duration_seconds_bucket{command=\"SET\",le=\"+Inf\"}"),
            std::string::npos) << resp;
  EXPECT_NE(resp.find("memstand_build_info"), std::string::npos);
  size_t lag = resp.find("\nmemstand_send_lag_seconds ");
  ASSERT_NE(lag, std::string::npos) << resp;
  EXPECT_GT(std::stod(resp.substr(lag + 27)), 0.0) << resp;
  ExpectPromtoolAccepts(resp.substr(resp.find("\r\n\r\n") + 4));
}

// --metrics-linger keeps /metrics up after the run with the final totals (the last
// second included: they equal the JSON's ops), and SIGINT ends the linger at once
// without changing the run's exit code.
TEST(RunE2E, MetricsLingerServesTheFinalTotalsUntilInterrupted) {
  auto port = PickFreePort();
  ASSERT_TRUE(port.ok());
  const std::string json_path = TempDir() + "/run.json";
  auto run = Running::Start({"run", "-n", "3000", "-c", "2", "--metrics-addr",
                             "127.0.0.1:" + std::to_string(*port), "--metrics-linger", "60s",
                             "--json", json_path});
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(run->WaitForOutput("keeps its final totals for 60 s", 30)) << run->OutputSoFar();
  const std::string resp = Scrape(*port);
  const nlohmann::json rep = ReadJson(json_path);  // written before the linger
  ASSERT_TRUE(rep.contains("commands")) << rep.dump();
  for (const auto& c : rep["commands"]) {
    const std::string line = "\nmemstand_requests_total{command=\"" + c["command"].get<std::string>() +
                             "\"} " + std::to_string(c["ops"].get<uint64_t>()) + "\n";
    EXPECT_NE(resp.find(line), std::string::npos) << line << resp;
  }
  ASSERT_EQ(kill(run->pid(), SIGINT), 0);
  Outcome out = run->Wait(10);
  EXPECT_FALSE(out.timed_out);
  EXPECT_EQ(out.exit_code, 0) << out.output;
  EXPECT_LT(out.seconds, 40) << "SIGINT ended the 60 s linger";
  EXPECT_EQ(Scrape(*port), "");  // the endpoint is gone with the process
}

TEST(RunE2E, MetricsLingerFlagErrors) {
  Outcome out = RunMemstand({"run", "--metrics-linger", "5s", "-n", "10"});
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("--metrics-linger: needs --metrics-addr"), std::string::npos) << out.output;
  out = RunMemstand({"run", "--metrics-addr", "127.0.0.1:1", "--metrics-linger", "soon", "-n", "10"});
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("--metrics-linger"), std::string::npos) << out.output;
  out = RunMemstand({"run", "--metrics-addr", "127.0.0.1:1", "--metrics-linger", "2h", "-n", "10"});
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("--metrics-linger: must be 0s .. 1h"), std::string::npos) << out.output;
}

TEST(RunE2E, MetricsPortInUseIsAUsageError) {
  auto fd = ListenTcp("127.0.0.1", 0);
  ASSERT_TRUE(fd.ok());
  auto port = LocalPort(*fd);
  Outcome out = RunMemstand({"run", "--metrics-addr", "127.0.0.1:" + std::to_string(*port),
                             "-n", "10"});
  close(*fd);
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("--metrics-addr: cannot listen on"), std::string::npos) << out.output;
  out = RunMemstand({"run", "--metrics-addr", "nonsense", "-n", "10"});
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("--metrics-addr"), std::string::npos) << out.output;
}

}  // namespace
}  // namespace memstand::e2e
