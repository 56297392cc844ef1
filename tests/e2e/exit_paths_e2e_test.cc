// How memstand ends, end to end on the real binary: signals (SIGINT to a sweep, SIGHUP
// to a run with its own server, SIGKILL) and output files that appear whole or not at
// all; output paths refused up front with exit 2 (docs/exit-codes.md).
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "core/clock.h"
#include "e2e/e2e_util.h"
#include "stand/local_redis.h"

namespace memstand::e2e {
namespace {

namespace fs = std::filesystem;

// A port nothing listens on: a run that got as far as connecting would exit 1.
constexpr const char* kNowhere = "redis://127.0.0.1:1";

double Now() { return NowNs() / 1e9; }

std::string Read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
  return names;
}

std::unique_ptr<RedisClient> TryConnect(const LocalRedis& redis) {
  RedisClientOptions o;
  o.host = redis.host();
  o.port = redis.port();
  auto c = RedisClient::Connect(o);
  return c.ok() ? std::move(*c) : nullptr;
}

// Waits (up to 20 s) until the load reaches `redis`: memstand's handlers are installed.
bool WaitForLoad(const LocalRedis& redis) {
  auto c = TryConnect(redis);
  if (c == nullptr) return false;
  for (double end = Now() + 20; Now() < end;) {
    auto info = c->Command({"INFO", "stats"});
    if (!info.ok()) return false;
    if (std::stoll(ParseInfo(info->str)["total_commands_processed"]) > 1000) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// The pid of a child of `parent` named `comm`, waited for up to 20 s; 0 if none.
pid_t WaitForChild(pid_t parent, const std::string& comm) {
  for (double end = Now() + 20; Now() < end;) {
    for (const auto& e : fs::directory_iterator("/proc")) {
      std::string name = e.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::string stat = Read(e.path().string() + "/stat");  // pid (comm) state ppid ...
      size_t close = stat.rfind(')');
      if (close == std::string::npos || stat.find('(') == std::string::npos) continue;
      std::string child = stat.substr(stat.find('(') + 1, close - stat.find('(') - 1);
      std::istringstream rest(stat.substr(close + 1));
      std::string state;
      pid_t ppid = 0;
      rest >> state >> ppid;
      if (ppid == parent && child == comm) return std::stoi(name);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return 0;
}

TEST(ExitPathsE2E, SweepInterruptedBySigintExits130WithTheStepsSoFar) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  const std::string json = TempDir() + "/sweep.json";
  auto run = Running::Start({"sweep", "--target", Url(*redis), "--sweep-clients", "1,2,4",
                             "--duration", "20s", "-q", "--json", json});
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(WaitForLoad(*redis));
  kill(run->pid(), SIGINT);  // during the first step: a sweep used to call that step failed
  Outcome out = run->Wait(30);
  EXPECT_EQ(out.exit_code, 130) << out.output;
  EXPECT_NE(out.output.find("INTERRUPTED: results so far"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("INTERRUPTED: 1 of 3 steps made (exit 130)"), std::string::npos)
      << out.output;
  auto j = ReadJson(json);
  ASSERT_TRUE(j.is_object()) << out.output;
  EXPECT_EQ(j["exit_code"], 130);
  EXPECT_EQ(j["interrupted"], true);
  ASSERT_EQ(j["steps"].size(), 1u);
  EXPECT_EQ(j["steps"][0]["exit_code"], 130);
  EXPECT_GT(j["steps"][0]["run"]["totals"]["ops"].get<int64_t>(), 0);
}

TEST(ExitPathsE2E, SighupDuringARunWithItsOwnServerReportsAndCleansUp) {
  const std::string json = TempDir() + "/run.json";
  auto run = Running::Start({"run", "--duration", "60s", "--json", json});
  ASSERT_NE(run, nullptr);
  const pid_t server = WaitForChild(run->pid(), "redis-server");
  ASSERT_NE(server, 0) << "memstand started no redis-server";
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let it get ready
  std::error_code ec;  // the server's folder holds its log, its stdout
  const std::string dir =
      fs::read_symlink("/proc/" + std::to_string(server) + "/fd/1", ec).parent_path();
  ASSERT_NE(dir.find("memstand-redis-"), std::string::npos) << dir;
  kill(run->pid(), SIGHUP);
  Outcome out = run->Wait(30);
  EXPECT_EQ(out.exit_code, 130) << out.output;
  EXPECT_NE(out.output.find("INTERRUPTED"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("dir " + dir), std::string::npos) << "block 1 names " << dir;
  EXPECT_TRUE(ReadJson(json).is_object()) << out.output;
  EXPECT_FALSE(ProcessExists(server)) << "redis-server " << server << " survived SIGHUP";
  EXPECT_FALSE(fs::exists(dir)) << dir << " was left behind";
  fs::remove_all(dir, ec);  // what a failed run left
}

TEST(ExitPathsE2E, SigkillLeavesNoOutputFileAndThePreviousOneUntouched) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  const std::string dir = TempDir();
  const std::string previous = "{\"a complete previous result\": true}\n";
  std::ofstream(dir + "/old.json") << previous;
  auto run = Running::Start({"run", "--target", Url(*redis), "--duration", "60s", "-q", "--json",
                             dir + "/new.json", "--samples", dir + "/old.json", "--hdr-log",
                             dir + "/run.hlog", "--hgrm", dir + "/run.hgrm"});
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(WaitForLoad(*redis));
  kill(run->pid(), SIGKILL);
  run->Wait(20);
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"old.json"});
  EXPECT_EQ(Read(dir + "/old.json"), previous);
}

TEST(ExitPathsE2E, AnAuthFailureWritesNoJson) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  auto client = TryConnect(*redis);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->Command({"CONFIG", "SET", "requirepass", "right"}).ok());
  const std::string dir = TempDir();
  Outcome out =
      RunMemstand({"run", "--target", "redis://:wrong@127.0.0.1:" + std::to_string(redis->port()),
                   "-n", "100", "--json", dir + "/run.json"},
                  30);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_TRUE(Entries(dir).empty()) << out.output;
}

TEST(ExitPathsE2E, BadOutputPathsExit2BeforeAnythingIsSent) {
  const std::string dir = TempDir();
  const std::string x = dir + "/x";
  struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--json", ""}, "--json: needs a file path, got ''"},
      {{"--samples", ""}, "--samples: needs a file path, got ''"},
      {{"--hdr-log", ""}, "--hdr-log: needs a file path, got ''"},
      {{"--hgrm", ""}, "--hgrm: needs a file path, got ''"},
      {{"--json", x, "--samples", x},
       "--json '" + x + "' and --samples '" + x + "' name the same file"},
      {{"--hgrm", x, "--hdr-log", dir + "/../" + fs::path(dir).filename().string() + "/x"},
       "' and --hgrm '" + x + "' name the same file"},
      {{"--json", dir}, "--json: cannot write '" + dir + "': Is a directory"},
      {{"--json", dir + "/no/x"}, "--json: cannot write '" + dir + "/no/x': No such file"},
      {{"--hdr-log", "/dev/full"}, "--hdr-log: cannot write '/dev/full': No space left on device"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"run", "--target", kNowhere, "-n", "10"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    Outcome out = RunMemstand(args, 20);
    EXPECT_EQ(out.exit_code, 2) << c.message << "\n" << out.output;
    EXPECT_NE(out.output.find(c.message), std::string::npos) << c.message << "\n" << out.output;
  }
  EXPECT_TRUE(Entries(dir).empty());
}

// Outputs of one run have no place in a sweep: refused, not accepted and left unwritten.
TEST(ExitPathsE2E, SweepRefusesOneRunOutputs) {
  const std::string dir = TempDir();
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--samples", dir + "/s.csv"}, "--samples: not available with sweep"},
      {{"--json", dir + "/j", "--json-format", "memtier"},
       "--json-format memtier: not available with sweep"}};
  for (const auto& [extra, message] : cases) {
    std::vector<std::string> args = {"sweep", "--target", kNowhere, "--sweep-clients", "1,2",
                                     "-n", "10"};
    args.insert(args.end(), extra.begin(), extra.end());
    Outcome out = RunMemstand(args, 20);
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find(message), std::string::npos) << out.output;
  }
  EXPECT_TRUE(Entries(dir).empty());
}

TEST(ExitPathsE2E, AFullDeviceAfterTheRunExits1NamingTheFlagAndErrno) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  for (const char* flag : {"--json", "--hgrm", "--samples"}) {
    Outcome out = RunMemstand({"run", "--target", Url(*redis), "-n", "200", "-c", "2", flag,
                               "/dev/full", "--hdr-log", "/dev/null"},
                              30);
    EXPECT_EQ(out.exit_code, 1) << out.output;
    EXPECT_NE(out.output.find("Total"), std::string::npos) << out.output;  // the report
    EXPECT_NE(
        out.output.find(std::string(flag) + ": cannot write '/dev/full': No space left on device"),
        std::string::npos)
        << out.output;
  }
  struct stat st {};
  ASSERT_EQ(stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/full is no longer a device";
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null is no longer a device";
}

// The old file is replaced, not rewritten in place: a reader that opened it before the
// run still reads the old content whole, and the path then holds the new one whole.
TEST(ExitPathsE2E, AnExistingOutputFileIsReplacedWhole) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  const std::string dir = TempDir(), json = dir + "/run.json";
  const std::string old(100000, 'x');
  std::ofstream(json) << old;
  ASSERT_EQ(chmod(json.c_str(), 0640), 0);
  std::ifstream reader(json);
  Outcome out = RunMemstand(
      {"run", "--target", Url(*redis), "-n", "200", "-c", "2", "-q", "--json", json}, 30);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  std::stringstream before;
  before << reader.rdbuf();
  EXPECT_EQ(before.str().size(), old.size());
  auto j = ReadJson(json);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["totals"]["ops"], 200);
  struct stat st {};
  ASSERT_EQ(stat(json.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"run.json"});
}

}  // namespace
}  // namespace memstand::e2e
