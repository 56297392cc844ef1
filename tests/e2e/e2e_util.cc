#include "e2e/e2e_util.h"
#include "test_paths.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "core/clock.h"
#include "core/socket.h"
#include "npm_util.h"

namespace memstand::e2e {

namespace {

// The directories TempDir made in this process, removed when it exits (each test is
// its own process under ctest), unless MEMSTAND_KEEP_TEST_DIRS is set to look at them.
class TempDirs {
 public:
  ~TempDirs() {
    if (std::getenv("MEMSTAND_KEEP_TEST_DIRS") != nullptr) return;
    std::error_code ec;
    for (const auto& d : dirs_) std::filesystem::remove_all(d, ec);
  }
  void Add(std::string dir) {
    std::lock_guard<std::mutex> lock(mu_);
    dirs_.push_back(std::move(dir));
  }

 private:
  std::mutex mu_;
  std::vector<std::string> dirs_;
};

TempDirs& Registry() {
  static TempDirs dirs;
  return dirs;
}

}  // namespace

std::string TempDir() {
  std::string pattern = "/tmp/memstand-e2e-XXXXXX";
  char* dir = mkdtemp(pattern.data());
  if (dir == nullptr) return "/tmp";
  Registry().Add(dir);
  return dir;
}

RunDirInMemory::RunDirInMemory() {
  std::string pattern = "/dev/shm/memstand-e2e-XXXXXX";
  char* dir = mkdtemp(pattern.data());
  if (dir != nullptr) {
    Registry().Add(dir);
    path_ = dir;
  } else {
    path_ = TempDir();
  }
  setenv("MEMSTAND_RUN_DIR", path_.c_str(), 1);
}

RunDirInMemory::~RunDirInMemory() { unsetenv("MEMSTAND_RUN_DIR"); }

std::unique_ptr<Running> Running::Start(const std::vector<std::string>& args) {
  auto r = std::unique_ptr<Running>(new Running());
  r->log_path_ = TempDir() + "/memstand.out";
  SpawnOptions so;
  so.argv.push_back(testutil::MemstandBinary());
  so.argv.insert(so.argv.end(), args.begin(), args.end());
  so.log_path = r->log_path_;
  auto p = Process::Spawn(so);
  if (!p.ok()) {
    ADD_FAILURE() << "memstand did not start: " << p.status().message();
    return nullptr;
  }
  r->process_ = std::move(*p);
  r->started_ = NowNs() / 1e9;
  return r;
}

Running::~Running() {
  if (process_ != nullptr) process_->Terminate(1000);  // null when the spawn failed
}

std::string Running::OutputSoFar() const {
  std::ifstream in(log_path_);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool Running::WaitForOutput(const std::string& needle, double timeout_s) {
  const double until = NowNs() / 1e9 + timeout_s;
  while (NowNs() / 1e9 < until) {
    if (OutputSoFar().find(needle) != std::string::npos) return true;
    if (!process_->Alive()) return OutputSoFar().find(needle) != std::string::npos;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

Outcome Running::Wait(double timeout_s) {
  Outcome out;
  while (process_->Alive()) {
    if (NowNs() / 1e9 - started_ > timeout_s) {
      out.timed_out = true;
      process_->Terminate(1000);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  out.seconds = NowNs() / 1e9 - started_;
  auto status = process_->wait_status();
  if (!out.timed_out && status && WIFEXITED(*status)) out.exit_code = WEXITSTATUS(*status);
  std::ifstream f(log_path_);
  std::stringstream ss;
  ss << f.rdbuf();
  out.output = ss.str();
  return out;
}

Outcome RunMemstand(const std::vector<std::string>& args, double timeout_s) {
  auto r = Running::Start(args);
  if (r == nullptr) return Outcome{};
  return r->Wait(timeout_s);
}

nlohmann::json RunOk(std::vector<std::string> args) {
  const std::string json = TempDir() + "/run.json";
  args.insert(args.begin(), "run");
  args.insert(args.end(), {"--json", json, "-q"});
  Outcome out = RunMemstand(args, 120);
  EXPECT_EQ(out.exit_code, 0) << out.output;
  return out.exit_code == 0 ? ReadJson(json) : nlohmann::json::object();
}

int64_t CommandOps(const nlohmann::json& run, const std::string& label) {
  for (const auto& c : run["commands"]) {
    if (c["command"] == label) return c["ops"].get<int64_t>();
  }
  ADD_FAILURE() << "no command " << label << " in the run's JSON";
  return -1;
}

std::string Url(const LocalRedis& r, const std::string& path) {
  return "redis://127.0.0.1:" + std::to_string(r.port()) + path;
}

std::unique_ptr<RedisClient> Connect(const LocalRedis& redis, int db) {
  RedisClientOptions o;
  o.host = redis.host();
  o.port = redis.port();
  o.db = db;
  auto c = RedisClient::Connect(o);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? std::move(*c) : nullptr;
}

int64_t CountLines(const std::string& path) {
  std::ifstream in(path);
  int64_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

const nlohmann::json* FindCommand(const nlohmann::json& run, const std::string& label) {
  for (const auto& c : run["commands"]) {
    if (c["command"] == label) return &c;
  }
  return nullptr;
}

uint64_t SeriesSum(const nlohmann::json& run, const char* key) {
  uint64_t n = 0;
  for (const auto& p : run["series"]["Total"]) n += p[key].get<uint64_t>();
  return n;
}

void ExpectEveryCase(const std::vector<BadInputCase>& cases, double timeout_s) {
  for (const BadInputCase& c : cases) {
    std::string shown;
    for (const std::string& a : c.argv) shown += " '" + (a.size() > 60 ? a.substr(0, 60) + "..." : a) + "'";
    Outcome out = RunMemstand(c.argv, timeout_s);
    EXPECT_EQ(out.exit_code, c.exit_code) << shown << "\n" << out.output;
    EXPECT_NE(out.output.find(c.must_say), std::string::npos) << shown << "\n" << out.output;
    if (!c.must_not_say.empty()) {
      EXPECT_EQ(out.output.find(c.must_not_say), std::string::npos) << shown << "\n" << out.output;
    }
    EXPECT_LT(out.output.size(), 2000u) << shown << ": a message that echoes its input whole";
  }
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f, nullptr, /*allow_exceptions=*/false);
}

bool ProcessExists(pid_t pid) { return kill(pid, 0) == 0 || errno != ESRCH; }

namespace {
// A process's /proc/PID/stat, "" once it is gone: reading the file of a process that
// exits meanwhile fails with ESRCH, and libstdc++'s filebuf throws on a failed read.
std::string ProcStat(const std::string& pid) {
  try {
    std::ifstream in("/proc/" + pid + "/stat");
    return std::string((std::istreambuf_iterator<char>(in)), {});
  } catch (const std::exception&) {
    return "";
  }
}
}  // namespace

std::set<pid_t> ChildrenNamed(pid_t parent, const std::string& name) {
  std::set<pid_t> out;
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir("/proc"), closedir);
  if (d == nullptr) return out;
  while (dirent* e = readdir(d.get())) {
    const pid_t pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    const std::string stat = ProcStat(e->d_name);
    const size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    const std::string comm = stat.substr(open + 1, close - open - 1);
    const pid_t ppid = std::atoi(stat.c_str() + close + 4);  // ") S PPID"
    if (ppid == parent && comm.starts_with(name)) out.insert(pid);
  }
  return out;
}

namespace {
// An exited process its (adoptive) parent has not reaped yet: it runs no more.
bool IsZombie(pid_t pid) {
  const std::string stat = ProcStat(std::to_string(pid));
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}
}  // namespace

bool AllGone(const std::set<pid_t>& pids, double timeout_s) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < until) {
    bool any = false;
    for (pid_t p : pids) any |= ProcessExists(p) && !IsZombie(p);
    if (!any) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

void ExpectNextRunRemoves(const std::string& folder, pid_t pid) {
  Outcome next = RunMemstand({"run", "--requests", "100", "-q"});
  unsetenv("TMPDIR");
  EXPECT_EQ(next.exit_code, 0) << next.output;
  EXPECT_NE(next.output.find("memstand: removed leftover folder " + folder + " of a killed run (pid " +
                             std::to_string(pid) + ")"),
            std::string::npos)
      << next.output;
  EXPECT_FALSE(std::filesystem::exists(folder));
}

std::string Scrape(int port) {
  auto fd = ConnectTcp("127.0.0.1", port, 2000, true);
  if (!fd.ok()) return "";
  std::string req = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  (void)WriteAll(*fd, req.data(), req.size());
  SetIoTimeout(*fd, 5000);
  std::string resp;
  char buf[65536];
  for (;;) {
    auto n = ReadSome(*fd, buf, sizeof(buf));
    if (!n.ok() || *n == 0) break;
    resp.append(buf, *n);
  }
  close(*fd);
  return resp;
}

void ExpectPromtoolAccepts(const std::string& body) {
  std::string path = TempDir() + "/metrics.txt";
  std::ofstream(path) << body;
  ASSERT_TRUE(testutil::HaveProgram("promtool"))
      << "promtool is needed: install the Debian package prometheus (scripts/deps.sh)";
  auto check = testutil::RunShell("promtool check metrics < " + path + " 2>&1");
  EXPECT_EQ(check.exit_code, 0) << check.output << body;
  EXPECT_EQ(check.output, "") << check.output;
}

int64_t CommandCalls(const LocalRedis& r, const std::string& command) {
  const std::string info =
      testutil::RunShell("redis-cli -p " + std::to_string(r.port()) + " info commandstats").output;
  const std::string key = "cmdstat_" + command + ":calls=";
  const size_t at = info.find(key);
  return at == std::string::npos ? 0 : std::stoll(info.substr(at + key.size()));
}

bool WaitForCalls(const LocalRedis& r, const std::string& command, int64_t n) {
  for (int i = 0; i < 200; ++i) {
    if (CommandCalls(r, command) >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

HdrLogRead ReadHdrLogWithJava(const std::string& hlog, const std::string& tag) {
  HdrLogRead read;
  const std::string jar = "/usr/share/java/hdrhistogram.jar";
  EXPECT_TRUE(testutil::HaveProgram("java") && testutil::RunShell("test -r " + jar).exit_code == 0)
      << "install libhdrhistogram-java and a JRE (scripts/deps.sh)";
  // With -o it writes the intervals to OUT and the whole distribution to OUT.hgrm.
  const std::string out = hlog + ".read" + (tag.empty() ? "" : "-" + tag);
  const auto r = testutil::RunShell(
      "timeout 60 java -cp " + jar + " org.HdrHistogram.HistogramLogProcessor -i " +
      testutil::ShellQuote(hlog) + " -o " + testutil::ShellQuote(out) +
      (tag.empty() ? "" : " -tag " + testutil::ShellQuote(tag)) + " 2>&1");
  const std::string intervals = testutil::ReadFile(out), hgrm = testutil::ReadFile(out + ".hgrm");
  read.output = r.output + intervals + hgrm;
  EXPECT_EQ(r.exit_code, 0) << read.output;
  // Interval lines: "<end s>: I:<count> ( <p50> <p90> <max> ) T:<count> ( ... )".
  std::istringstream lines(intervals);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t at = line.find(": I:");
    if (at != std::string::npos) read.interval_counts.push_back(std::stoll(line.substr(at + 4)));
  }
  const size_t at = hgrm.find("Total count    =");
  if (at == std::string::npos) {
    ADD_FAILURE() << "no total count: " << read.output;
  } else {
    read.total = std::stoll(hgrm.substr(at + 16));
  }
  return read;
}

std::unique_ptr<Process> StartPrometheus(int scrape_port, int listen_port, const std::string& dir) {
  EXPECT_TRUE(testutil::HaveProgram("prometheus") && testutil::HaveProgram("promtool"))
      << "install the Debian package prometheus (scripts/deps.sh)";
  std::ofstream(dir + "/prometheus.yml") << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                                            "scrape_configs:\n  - job_name: memstand\n    static_configs:\n"
                                            "      - targets: ['127.0.0.1:"
                                         << scrape_port << "']\n";
  SpawnOptions o;
  o.argv = {"prometheus", "--config.file=" + dir + "/prometheus.yml", "--storage.tsdb.path=" + dir + "/data",
            "--web.listen-address=127.0.0.1:" + std::to_string(listen_port)};
  o.log_path = dir + "/prometheus.log";
  auto prom = Process::Spawn(o);
  EXPECT_TRUE(prom.ok()) << prom.status().message();
  return prom.ok() ? std::move(*prom) : nullptr;
}

testutil::CommandResult PromQuery(int port, const std::string& query) {
  return testutil::RunShell("timeout 10 promtool query instant http://127.0.0.1:" + std::to_string(port) + " '" +
                            query + "' 2>&1");
}

std::unique_ptr<LocalRedis> StartRedis(std::vector<std::pair<std::string, std::string>> config) {
  LocalRedisOptions o;
  o.config = std::move(config);
  auto r = LocalRedis::Start(o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(*r) : nullptr;
}

}  // namespace memstand::e2e
