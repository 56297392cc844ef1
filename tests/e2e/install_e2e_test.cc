// `cmake --install` of the build the tests run: the binary, a man page made from its own
// help (help2man) that `man` renders with every subcommand and scenario, and a bash
// completion that completes subcommands, scenario names and flags.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"
#include "npm_util.h"
#include "test_paths.h"

namespace memstand::e2e {
namespace {

namespace fs = std::filesystem;
using testutil::RunShell;
using testutil::ShellQuote;

TEST(InstallE2E, ManPageAndCompletionComeWithTheBinary) {
  const std::string build = fs::path(testutil::MemstandBinary()).parent_path().string();
  const std::string prefix = TempDir() + "/prefix";
  auto install = RunShell("cmake --install " + ShellQuote(build) + " --prefix " + ShellQuote(prefix) + " 2>&1");
  ASSERT_EQ(install.exit_code, 0) << install.output;
  EXPECT_TRUE(fs::exists(prefix + "/bin/memstand"));
  const std::string page = prefix + "/share/man/man1/memstand.1";
  ASSERT_TRUE(fs::exists(page)) << install.output;
  auto man = RunShell("MANWIDTH=100 man -l " + ShellQuote(page) + " 2>&1");
  ASSERT_EQ(man.exit_code, 0) << man.output;
  for (const char* text : {"memstand - a test stand for in-memory data systems", "memstand run", "memstand relay",
                           "memstand scenario run stretched-cache", "--pipeline"}) {
    EXPECT_NE(man.output.find(text), std::string::npos) << text;
  }
  const std::string completion = prefix + "/share/bash-completion/completions/memstand";
  ASSERT_TRUE(fs::exists(completion));
  EXPECT_TRUE(fs::exists(prefix + "/share/zsh/vendor-completions/_memstand"));
  auto complete = [&](const std::string& words, int cword) {
    return RunShell("bash -c " + ShellQuote("source " + ShellQuote(completion) + "; COMP_WORDS=(" + words +
                                            "); COMP_CWORD=" + std::to_string(cword) +
                                            "; _memstand; echo \"${COMPREPLY[*]}\""))
        .output;
  };
  EXPECT_EQ(complete("memstand ru", 1), "run\n");
  EXPECT_EQ(complete("memstand scenario run dur", 3), "durability-overload\n");
  EXPECT_EQ(complete("memstand run --pipel", 2), "--pipeline\n");
  EXPECT_EQ(complete("memstand scenario run stretched-cache --dist", 4), "--distances\n");
  // memtier's own flags, not the run flags its refusal reasons name.
  EXPECT_EQ(complete("memstand memtier --hide-h", 2), "--hide-histogram\n");
  EXPECT_EQ(complete("memstand memtier --metrics", 2), "\n");
}

}  // namespace
}  // namespace memstand::e2e
