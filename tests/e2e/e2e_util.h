// Running the real memstand binary in end-to-end tests.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "client/redis_client.h"
#include "npm_util.h"
#include "stand/local_redis.h"
#include "stand/process.h"

namespace memstand::e2e {

struct Outcome {
  int exit_code = -1;       // -1: killed by a signal or timed out
  bool timed_out = false;
  double seconds = 0;       // wall time until exit
  std::string output;       // stdout and stderr, interleaved
};

/// A memstand process started in the background; its output goes to a temp file.
class Running {
 public:
  static std::unique_ptr<Running> Start(const std::vector<std::string>& args);
  ~Running();
  pid_t pid() const { return process_->pid(); }
  /// Waits up to timeout_s; on timeout kills it and says so.
  Outcome Wait(double timeout_s);
  /// Its stdout and stderr so far.
  std::string OutputSoFar() const;
  /// Polls the output until it holds `needle` (true) or the process exits or timeout_s
  /// passes (false).
  bool WaitForOutput(const std::string& needle, double timeout_s);

 private:
  std::unique_ptr<Process> process_;
  std::string log_path_;
  double started_ = 0;
};

/// Runs memstand with args to completion (bounded by timeout_s).
Outcome RunMemstand(const std::vector<std::string>& args, double timeout_s = 60);

/// A new empty temporary directory path, removed with its contents when the test
/// process exits (MEMSTAND_KEEP_TEST_DIRS=1 keeps it).
std::string TempDir();
/// While it lives, the memstand processes this test starts keep their servers' folders
/// (MEMSTAND_RUN_DIR) in a new private folder in memory (/dev/shm, else TempDir()): the
/// servers that sync each write to their files (etcd's WAL, Tarantool's vinyl) then wait
/// on no disk, which the tests' counts and outcomes do not depend on (a scenario's 50,000
/// etcd puts took 61 s on /tmp's disk, 27 s there). Unsets MEMSTAND_RUN_DIR at its end.
class RunDirInMemory {
 public:
  RunDirInMemory();
  ~RunDirInMemory();
  RunDirInMemory(const RunDirInMemory&) = delete;
  RunDirInMemory& operator=(const RunDirInMemory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};
/// "redis://127.0.0.1:<port>" + path.
std::string Url(const LocalRedis& r, const std::string& path = "");
/// The whole file (npm_util.h).
using testutil::ReadFile;
/// A control client of `redis` (SELECT db), null (and a test failure) when it cannot connect.
std::unique_ptr<RedisClient> Connect(const LocalRedis& redis, int db = 0);
/// The number of lines of a file (0 when it cannot be read).
int64_t CountLines(const std::string& path);
nlohmann::json ReadJson(const std::string& path);
/// `memstand run ARGS --json FILE -q`, which must exit 0 (a test failure otherwise,
/// with its output); its JSON, or an empty object.
nlohmann::json RunOk(std::vector<std::string> args);

/// A command line that must be refused: its exit code, a part of what it must say, and
/// (for secrets) a part it must not say, empty when nothing is forbidden.
struct BadInputCase {
  std::vector<std::string> argv;
  int exit_code;
  std::string must_say;
  std::string must_not_say = "";
};
/// Runs each case (timeout_s each) and checks its exit code, what it says and does not
/// say, and that the message does not echo its input whole (under 2,000 bytes).
void ExpectEveryCase(const std::vector<BadInputCase>& cases, double timeout_s);
/// The "ops" of the command labelled `label` in a run's JSON ("commands"), or -1 with a
/// test failure when the run has no such command.
int64_t CommandOps(const nlohmann::json& run, const std::string& label);
/// The run JSON's entry of `commands` for that label, or null.
const nlohmann::json* FindCommand(const nlohmann::json& run, const std::string& label);
/// The sum of `key` ("ok", "fail", "unknown") over every second of a run's all-commands
/// series.
uint64_t SeriesSum(const nlohmann::json& run, const char* key);
bool ProcessExists(pid_t pid);
/// Pids whose parent is `parent` and whose name starts with `name` (/proc/PID/stat).
std::set<pid_t> ChildrenNamed(pid_t parent, const std::string& name);
/// Waits until `pids` are all gone (true) or timeout_s passes. An exited process not yet
/// reaped (a zombie: memstand's orphans are reaped by whoever adopts them) counts as gone.
bool AllGone(const std::set<pid_t>& pids, double timeout_s);
/// With TMPDIR set to the folder that holds `folder`, a memstand temp folder left by the
/// memstand `pid` killed with SIGKILL: the next `memstand run` (its own redis-server)
/// must exit 0, say it removed `folder`, and leave it gone. Unsets TMPDIR.
void ExpectNextRunRemoves(const std::string& folder, pid_t pid);
/// GET /metrics from 127.0.0.1:port over a plain socket (reads bounded by 5 s): the
/// whole HTTP response, or "" when nothing listens.
std::string Scrape(int port);

/// `promtool check metrics` on a /metrics body: a test failure (with the body) unless it
/// exits 0 without a word; a missing promtool fails too (scripts/deps.sh installs it).
void ExpectPromtoolAccepts(const std::string& body);

/// Debian's `prometheus` scraping 127.0.0.1:scrape_port every second, listening on
/// 127.0.0.1:listen_port, its config, data and log (prometheus.log) in `dir`; nullptr
/// (and a test failure naming the package) when it is missing or cannot start.
std::unique_ptr<Process> StartPrometheus(int scrape_port, int listen_port, const std::string& dir);
/// `promtool query instant` of `query` against the Prometheus at 127.0.0.1:port
/// (bounded: 10 s); its output ("{labels} => VALUE @[T]" per result) and stderr.
testutil::CommandResult PromQuery(int port, const std::string& query);

/// What HdrHistogram's own Java reader (Debian's libhdrhistogram-java:
/// HistogramLogProcessor) read from an interval log, without a tag (tag "") or with -tag.
struct HdrLogRead {
  std::vector<int64_t> interval_counts;  // each interval's count, in the log's order
  int64_t total = -1;                    // "Total count" of the whole distribution
  std::string output;                    // what it printed (for failure messages)
};
/// Runs HistogramLogProcessor (bounded: 60 s) on `hlog`; a test failure (with its
/// output) when the jar or java is missing, it exits non-zero or prints no total.
HdrLogRead ReadHdrLogWithJava(const std::string& hlog, const std::string& tag);

/// A redis-server of the test's own (LocalRedis: a free loopback port, a temp dir),
/// with `config` added to its defaults; nullptr (and a test failure) if it cannot start.
std::unique_ptr<LocalRedis> StartRedis(
    std::vector<std::pair<std::string, std::string>> config = {});

/// `command`'s calls in the INFO commandstats of `r` (read with redis-cli), 0 if absent.
int64_t CommandCalls(const LocalRedis& r, const std::string& command);
/// Waits (bounded: about 10 s) until `r` counted `n` calls of `command` (CommandCalls):
/// a run's load is under way. False when it did not.
bool WaitForCalls(const LocalRedis& r, const std::string& command, int64_t n);

/// A test run once per socket I/O mode: INSTANTIATE_TEST_SUITE_P(EpollAndUring, Suite,
/// ::testing::Values("epoll", "uring")); Io() is the value for `--io`.
class IoModeTest : public ::testing::TestWithParam<const char*> {
 protected:
  std::string Io() const { return GetParam(); }
};

}  // namespace memstand::e2e
