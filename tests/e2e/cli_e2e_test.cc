// The command line's edges a new user meets first (issue 19): --version says what the
// binary is built with, memtier's `-h HOST` is refused instead of printing help and
// sending nothing, and `-` on an output flag is the standard output, not a file named "-".
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"

namespace memstand::e2e {
namespace {

TEST(CliE2E, VersionSaysWhatTheBinaryIsBuiltWith) {
  Outcome out = RunMemstand({"--version"});
  EXPECT_EQ(out.exit_code, 0) << out.output;
  EXPECT_EQ(out.output.rfind("memstand " MEMSTAND_VERSION "\n", 0), 0u) << out.output;
  for (const char* line : {"  compiler: ", "  build: ", "  libraries: fmt ", "  io_uring: "}) {
    EXPECT_NE(out.output.find(line), std::string::npos) << line << "\n" << out.output;
  }
}

TEST(CliE2E, AHostAfterDashHIsRefusedNotHelp) {
  for (const char* sub : {"run", "sweep"}) {
    Outcome out = RunMemstand({sub, "-h", "10.0.0.1", "-p", "6379"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find("'-h 10.0.0.1': -h is help here; did you mean -s/--server (or `memstand memtier`"),
              std::string::npos)
        << out.output;
  }
  Outcome help = RunMemstand({"run", "-h"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("--server"), std::string::npos);
  // Every option's default is in the help (CLI11 shows it after '=').
  for (const char* shown : {"-c,--clients INT:INT in [1 - 100000]=50", "--key-prefix TEXT=memtier-",
                            "--connect-timeout TEXT=5s"}) {
    EXPECT_NE(help.output.find(shown), std::string::npos) << shown << "\n" << help.output;
  }
}

// An option whose variable starts at a sentinel ("not given": port 0, -1, an empty list)
// shows no default after '=': the sentinel is no value a user could pass, and its real
// default is in the description.
TEST(CliE2E, HelpShowsNoSentinelAsADefault) {
  struct Case {
    std::vector<std::string> argv;
    std::vector<std::string> absent;
    std::vector<std::string> present;
  };
  const Case cases[] = {
      {{"run", "--help"},
       {"=[]", "65535]=0", "--key-stddev FLOAT=-1", "--key-median FLOAT=-1",
        "--data-compress-ratio FLOAT=0", "281474976710656]=0", "4294967296]=0"},
       {"default: the protocol's, 6379 for RESP", "--db INT:INT in [0 - 1048576]=0"}},
      {{"up", "--help"},
       {"=[]", "--masters INT=0", "--replicas INT=0", "--port INT=0", "--peer-port INT=0"},
       {"redis-cluster: masters (default 8)"}},
      {{"scenario", "run", "working-set", "--help"}, {"=[]"}, {"--config TEXT ..."}},
  };
  for (const Case& c : cases) {
    Outcome out = RunMemstand(c.argv);
    EXPECT_EQ(out.exit_code, 0) << out.output;
    for (const std::string& s : c.absent) {
      EXPECT_EQ(out.output.find(s), std::string::npos) << c.argv[0] << ": " << s << "\n"
                                                       << out.output;
    }
    for (const std::string& s : c.present) {
      EXPECT_NE(out.output.find(s), std::string::npos) << c.argv[0] << ": " << s << "\n"
                                                       << out.output;
    }
  }
}

// A flag error names the --help of the subcommand it is in, however deep.
TEST(CliE2E, AFlagErrorPointsAtItsSubcommandsHelp) {
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  for (const Case& c : {Case{{"run", "--no-such-flag"}, "Run 'memstand run --help' for the flags."},
                        Case{{"scenario", "run", "replication-cost", "--out", "x"},
                             "Run 'memstand scenario run replication-cost --help' for the flags."},
                        Case{{"--no-such-flag"}, "Run 'memstand --help' for the flags."}}) {
    Outcome out = RunMemstand(c.args);
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find(c.says), std::string::npos) << out.output;
  }
}

TEST(CliE2E, DashIsTheStandardOutput) {
  const std::string dir = TempDir();
  Outcome out = RunMemstand({"run", "-n", "200", "-c", "2", "-q", "--json", "-"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const size_t at = out.output.find("{\n  \"schema\": \"memstand.run\"");
  ASSERT_NE(at, std::string::npos) << out.output;
  auto doc = nlohmann::json::parse(out.output.substr(at, out.output.rfind('}') + 1 - at), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << out.output.substr(at);
  EXPECT_EQ(doc["totals"]["ops"], 200);
  EXPECT_FALSE(std::filesystem::exists("-"));
}

}  // namespace
}  // namespace memstand::e2e
