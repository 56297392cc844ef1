// Issue #25, outputs and secrets, against the real binary: one table of command lines
// with the exit code and a part of the message each must give (and, for secrets, a part
// it must not); then every subcommand with its standard output on a full device (through
// a shell: `> /dev/full`), an export cut short, and passwords given as server settings.
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"
#include "npm_util.h"
#include "test_paths.h"

namespace memstand::e2e {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSecret = "Zq9Outputs-S3cret";

// Nothing listens on port 1: a case that got past its check fails to connect (exit 1).
std::vector<BadInputCase> OutputCases(const std::string& dir) {
  const std::string secret = kSecret;
  const std::string missing = dir + "/missing.json";
  return {
      // Row 2: a credential with the scheme left out, mistyped, or no host after it.
      {{"run", "-n", "1", "--target", "default:" + secret + "@127.0.0.1:1"}, 2, "default:***@127.0.0.1:1",
       secret},
      {{"run", "-n", "1", "--target", "redis//u:" + secret + "@127.0.0.1:1"}, 2, "redis//u:***@127.0.0.1:1",
       secret},
      {{"run", "-n", "1", "--target", "redis://default:" + secret}, 2, "redis://default:***", secret},
      {{"memtier", "-u", "default:" + secret + "@127.0.0.1:1", "-n", "1", "-c", "1", "-t", "1"}, 2,
       "default:***@127.0.0.1:1", secret},
      // Row 16: an empty output path is refused, never taken as "not given".
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--duration", "1s", "--json", ""}, 2,
       "--json: needs a file path, got ''", ""},
      {{"merge", missing, "-o", ""}, 2, "-o: needs a file path, got ''", ""},
      {{"merge", missing, "--hdr-log", ""}, 2, "--hdr-log: needs a file path, got ''", ""},
      {{"compare", missing, missing, "--json", ""}, 2, "--json: needs a file path, got ''", ""},
      {{"memtier", "-s", "127.0.0.1", "-p", "1", "--hdr-file-prefix", ""}, 2,
       "memtier flag --hdr-file-prefix: needs a file path, got ''", ""},
      {{"dataset", "export", "--out", ""}, 2, "--out: needs a file path, got ''", ""},
      // Row 22: one file named twice; memtier's own flag named in its messages.
      {{"memtier", "-s", "127.0.0.1", "-p", "1", "-n", "1", "-o", dir + "/m.txt", "--json-out-file",
        dir + "/./m.txt"},
       2, "--out-file '" + dir + "/m.txt' and --json-out-file", ""},
      {{"memtier", "-s", "127.0.0.1", "-p", "1", "--test-time", "0"}, 2,
       "memtier flag --test-time: must be above 0", "--duration"},
      {{"memtier", "-s", "127.0.0.1", "-p", "1", "--select-db=-1"}, 2,
       "memtier flag --select-db: '-1' is not a whole number", "--db:"},
  };
}

TEST(HardeningOutputsE2E, EveryCaseExitsWithItsMessage) {
  const std::string dir = TempDir();
  ExpectEveryCase(OutputCases(dir), 30);
  EXPECT_FALSE(fs::exists(dir + "/m.txt"));  // nothing written for the refused ones
}

// Row 6 for run, sweep, memtier and scenario: an output naming a file the command reads
// (the password file, a TLS file, the Unix socket; through "." or a symlink too) is
// refused before anything is sent or written, and the input is kept; a scenario's
// --json inside its --evidence folder too (the evidence is written over it).
TEST(HardeningOutputsE2E, AnOutputNamingARunInputIsRefusedAndTheInputKept) {
  const std::string dir = TempDir();
  const std::string pw = dir + "/pw", ca = dir + "/ca.pem", sock = dir + "/s.sock";
  std::ofstream(pw) << "Zq9-run-input-pw\n";
  fs::permissions(pw, fs::perms::owner_read | fs::perms::owner_write);
  fs::copy_file("/etc/ssl/certs/ca-certificates.crt", ca);
  std::ofstream(sock) << "not a socket, but the path run was given\n";
  fs::create_symlink(pw, dir + "/link");
  const std::string pw_before = ReadFile(pw), ca_before = ReadFile(ca), sock_before = ReadFile(sock);
  const auto run = [](std::vector<std::string> args) {
    args.insert(args.begin(), {"run", "-n", "1", "-c", "1", "-t", "1"});
    return args;
  };
  const std::string names = "', which writing it would destroy";
  const std::vector<BadInputCase> cases = {
      {run({"--target", "redis://127.0.0.1:1", "--auth-file", pw, "--json", pw}), 2,
       "--json '" + pw + "' names the input '" + pw + names},
      {run({"--target", "redis://127.0.0.1:1", "--auth-file", pw, "--hdr-log", dir + "/./pw"}), 2,
       "--hdr-log '" + dir + "/./pw' names the input '" + pw + names},
      {run({"--target", "redis://127.0.0.1:1", "--auth-file", pw, "--history", dir + "/link"}), 2,
       "--history '" + dir + "/link' names the input '" + pw + names},
      {run({"--target", "rediss://127.0.0.1:1", "--tls-ca", ca, "--samples", ca}), 2,
       "--samples '" + ca + "' names the input '" + ca + names},
      {run({"-S", sock, "--hgrm", sock}), 2, "--hgrm '" + sock + "' names the input '" + sock + names},
      {{"sweep", "--target", "redis://127.0.0.1:1", "-n", "10", "--sweep-clients", "1,2", "--auth-file", pw,
        "--json", pw},
       2, "--json '" + pw + "' names the input '" + pw + names},
      {{"memtier", "-s", "127.0.0.1", "-p", "1", "-n", "1", "--tls", "--cacert", ca, "--json-out-file", ca}, 2,
       "--json-out-file '" + ca + "' names the input '" + ca + names},
      {{"memtier", "-S", sock, "-n", "1", "-o", sock}, 2, "--out-file '" + sock + "' names the input '" + sock + names},
      {{"scenario", "run", "working-set", "--evidence", dir + "/ev", "--json", dir + "/ev/../ev/result.json"}, 2,
       "--json '" + dir + "/ev/../ev/result.json' is inside the --evidence folder '" + dir + "/ev'"},
  };
  ExpectEveryCase(cases, 30);
  EXPECT_EQ(ReadFile(pw), pw_before);
  EXPECT_EQ(ReadFile(ca), ca_before);
  EXPECT_EQ(ReadFile(sock), sock_before);
  EXPECT_FALSE(fs::exists(dir + "/ev"));
}

// `memstand ARGS 2>&1 >/dev/full` through /bin/sh (bounded by timeout_s): what it said on
// stderr and its exit code.
testutil::CommandResult RunToFullDevice(const std::vector<std::string>& args, int timeout_s = 120,
                                        const std::string& shell_prefix = "") {
  std::string cmd = shell_prefix + "timeout -s KILL " + std::to_string(timeout_s) + " " +
                    testutil::ShellQuote(testutil::MemstandBinary());
  for (const std::string& a : args) cmd += " " + testutil::ShellQuote(a);
  return testutil::RunShell(cmd + " 2>&1 >/dev/full");
}

constexpr const char* kFullMessage = "cannot write the standard output: No space left on device";

// Rows 4 and 5: a report that cannot reach stdout is a message and exit 1 (was: exit 0
// with the report lost, or fmt's std::system_error and SIGABRT, rc 134).
TEST(HardeningOutputsE2E, StdoutOnAFullDeviceIsAMessageAndExitOne) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  const std::string dir = TempDir();
  const std::string target = Url(*redis);
  for (const char* name : {"a", "b"}) {
    Outcome run = RunMemstand({"run", "--target", target, "-n", "2000", "-c", "2", "--json",
                               dir + "/" + name + ".json", "-q"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
  }
  const std::string a = dir + "/a.json", b = dir + "/b.json";
  const std::vector<std::vector<std::string>> cases = {
      {"run", "--target", target, "-n", "500", "-q"},
      {"memtier", "-s", "127.0.0.1", "-p", std::to_string(redis->port()), "-n", "50", "-c", "1", "-t", "1"},
      {"sweep", "--target", target, "-n", "300", "--sweep-clients", "1,2", "-q"},
      {"relay", "--link", "127.0.0.1:0=" + std::string("127.0.0.1:") + std::to_string(redis->port()),
       "--duration", "200ms"},
      {"compare", a, b},
      {"compare", a, b, "--json", dir + "/cmp.json"},
      {"merge", a},
      {"report", a, "--choice-map"},
      {"dataset", "stats", "--count", "100"},
      {"dataset", "export", "--count", "100"},
      {"ps", "--run-dir", dir + "/runs"},
      {"scenario", "list"},
      {"scenario", "run", "working-set", "--records", "2000", "--portion", "500", "--config",
       "redis maxmemory=3mb name=small", "--only", "small", "-q"},
      {"--help"},
  };
  for (const auto& args : cases) {
    std::string shown;
    for (const std::string& x : args) shown += " " + x;
    const testutil::CommandResult r = RunToFullDevice(args);
    EXPECT_EQ(r.exit_code, 1) << shown << "\n" << r.output;
    EXPECT_NE(r.output.find(kFullMessage), std::string::npos) << shown << "\n" << r.output;
    EXPECT_EQ(r.output.find("terminate called"), std::string::npos) << shown << "\n" << r.output;
  }
  // The files beside stdout are still written whole: the report's loss is not theirs.
  ASSERT_TRUE(fs::exists(dir + "/cmp.json"));
  EXPECT_EQ(ReadJson(dir + "/cmp.json")["schema"], "memstand.compare");
}

// Row 12: `dataset export --out` is whole or not at all: a write refused midway (here
// the file-size limit, as a full disk would) leaves the previous file as it was.
TEST(HardeningOutputsE2E, DatasetExportOutIsWholeOrNotAtAll) {
  const std::string dir = TempDir();
  const std::string out = dir + "/products.jsonl";
  std::ofstream(out) << "previous\n";
  // 64 KiB allowed, the export is megabytes: EFBIG (SIGXFSZ ignored) partway through.
  const testutil::CommandResult r = RunToFullDevice(
      {"dataset", "export", "--out", out}, 120, "trap '' XFSZ; ulimit -f 128; ");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--out: cannot write '" + out + "': File too large"), std::string::npos) << r.output;
  EXPECT_EQ(ReadFile(out), "previous\n");
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) entries += e.exists() ? 1 : 0;
  EXPECT_EQ(entries, 1) << "a temporary file left behind";
  // And whole when it can be: the same bytes as stdout's.
  Outcome ok = RunMemstand({"dataset", "export", "--count", "500", "--out", out});
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_EQ(CountLines(out), 500);
}

// The size of the largest regular file `pid` has open under `dir` (its --out being
// written: an unnamed temporary file there), 0 when none.
uintmax_t OpenFileBytesUnder(pid_t pid, const std::string& dir) {
  uintmax_t most = 0;
  std::error_code ec;
  for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::error_code link_ec;
    const std::string target = fs::read_symlink(fd.path(), link_ec).string();
    if (link_ec || !target.starts_with(dir + "/")) continue;
    struct stat st {};
    if (stat(fd.path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) most = std::max(most, uintmax_t(st.st_size));
  }
  return most;
}

// Row 12's other half: an export killed (SIGKILL, SIGTERM) once a megabyte of --out is
// written leaves the previous file as it was, and nothing beside it.
TEST(HardeningOutputsE2E, AKilledDatasetExportLeavesThePreviousFile) {
  for (int sig : {SIGKILL, SIGTERM}) {
    const std::string dir = TempDir();
    const std::string out = dir + "/products.jsonl";
    std::ofstream(out) << "previous\n";
    auto r = Running::Start({"dataset", "export", "--count", "200000", "--out", out});
    ASSERT_NE(r, nullptr);
    uintmax_t written = 0;
    for (int i = 0; i < 12000 && (written = OpenFileBytesUnder(r->pid(), dir)) < (1u << 20); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    kill(r->pid(), sig);
    Outcome o = r->Wait(60);
    ASSERT_GE(written, 1u << 20) << "signal " << sig << ": the export never wrote a megabyte:\n" << o.output;
    EXPECT_NE(o.exit_code, 0) << "signal " << sig << "\n" << o.output;
    EXPECT_EQ(ReadFile(out), "previous\n") << "signal " << sig;
    int entries = 0;
    for (const auto& e : fs::directory_iterator(dir)) entries += e.exists() ? 1 : 0;
    EXPECT_EQ(entries, 1) << "signal " << sig << ": a temporary file left behind";
  }
}

// Row 26: a password given as a server setting (--config, up --set) is *** in every
// output: stdout, stderr, the JSON, and each file of the evidence folder.
TEST(HardeningOutputsE2E, SettingSecretsInNoOutput) {
  const std::string dir = TempDir();
  const std::string secret = kSecret;
  Outcome ws = RunMemstand({"scenario", "run", "working-set", "--records", "2000", "--portion", "500",
                            "--config", "redis maxmemory=3mb requirepass=" + secret + " name=pw", "--only", "pw",
                            "--json", dir + "/ws.json", "--evidence", dir + "/ev", "-q"},
                           120);
  EXPECT_NE(ws.exit_code, 2) << ws.output;
  EXPECT_NE(ws.output.find("requirepass=***"), std::string::npos) << ws.output;
  EXPECT_EQ(ws.output.find(secret), std::string::npos) << ws.output;
  ASSERT_TRUE(fs::exists(dir + "/ws.json")) << ws.output;
  EXPECT_EQ(ReadFile(dir + "/ws.json").find(secret), std::string::npos);
  ASSERT_TRUE(fs::is_directory(dir + "/ev")) << ws.output;
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir + "/ev")) {
    if (!e.is_regular_file()) continue;
    ++files;
    EXPECT_EQ(ReadFile(e.path().string()).find(secret), std::string::npos) << e.path();
  }
  EXPECT_GE(files, 3);  // scenario.json, configurations.csv, README.txt at least
  const std::string runs = dir + "/runs";
  Outcome up = RunMemstand({"up", "redis", "--name", "pw", "--set", "requirepass=" + secret, "--run-dir", runs}, 60);
  RunMemstand({"down", "--run-dir", runs}, 30);
  EXPECT_NE(up.exit_code, 0) << up.output;
  EXPECT_EQ(up.output.find(secret), std::string::npos) << up.output;
}

// Row 32, through the binary: an evidence file that cannot be written whole (here the
// file-size limit, as a full disk would) is exit 1 with the file named, and the evidence
// folder the run made is gone, not left half written.
TEST(HardeningOutputsE2E, AnEvidenceFolderThatCannotBeWrittenIsNotLeftBehind) {
  const std::string dir = TempDir();
  const std::string ev = dir + "/ev";
  // 2 KiB allowed: the evidence's scenario.json (~6 KB) is refused partway through.
  std::string cmd =
      "trap '' XFSZ; ulimit -f 4; timeout -s KILL 120 " + testutil::ShellQuote(testutil::MemstandBinary());
  for (const char* a : {"scenario", "run", "working-set", "--records", "2000", "--portion", "500", "--config",
                        "redis maxmemory=3mb name=small", "--only", "small", "-q", "--evidence"}) {
    cmd += " " + testutil::ShellQuote(a);
  }
  const testutil::CommandResult r = testutil::RunShell(cmd + " " + testutil::ShellQuote(ev) + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--evidence: cannot write '" + ev + "/scenario.json': File too large"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(ev)) << r.output;
}

}  // namespace
}  // namespace memstand::e2e
