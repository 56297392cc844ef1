// scripts/check-deploy.sh, the offline checks of deploy/ (deploy/README.md): it passes
// on the repository's deploy/, and fails, naming the fault, on copies broken in each way
// one of its checks must catch.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"
#include "test_paths.h"

namespace memstand::e2e {
namespace {

namespace fs = std::filesystem;
using testutil::ReadFile;
using testutil::RunShell;
using testutil::ShellQuote;

testutil::CommandResult CheckDeploy(const std::string& dir) {
  return RunShell("timeout 120 " + ShellQuote(testutil::SourceDir() + "/scripts/check-deploy.sh") +
                  " " + ShellQuote(dir) + " 2>&1");
}

// A copy of deploy/ with `from` replaced by `to` in `file` (which must hold it).
std::string BrokenCopy(const std::string& file, const std::string& from, const std::string& to) {
  const std::string dir = TempDir() + "/deploy";
  fs::copy(testutil::SourceDir() + "/deploy", dir, fs::copy_options::recursive);
  std::string text = ReadFile(dir + "/" + file);
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << file << " holds no '" << from << "'";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  std::ofstream(dir + "/" + file, std::ios::trunc) << text;
  return dir;
}

TEST(DeployE2E, CheckDeployPassesOnTheRepositorysManifests) {
  const auto r = CheckDeploy(testutil::SourceDir() + "/deploy");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("3 documents in 2 files match the models"), std::string::npos) << r.output;
}

TEST(DeployE2E, CheckDeployFailsOnABrokenManifest) {
  struct Case {
    std::string file, from, to, says;
  };
  const Case cases[] = {
      // A misspelt field: kubectl apply --validate=false would drop it silently.
      {"k8s/shards-job.yaml", "completionMode: Indexed", "completionMod: Indexed",
       "Job.spec.completionMod: unknown field of V1JobSpec"},
      {"k8s/shards-job.yaml", "parallelism: 3", "parallelism: \"3\"",
       "Job.spec.parallelism: int expected, got str '3'"},
      {"k8s/merge-job.yaml", "- name: merge\n          image:", "- image:",
       "Invalid value for `name`, must not be `None`"},
      {"k8s/merge-job.yaml", "backoffLimit: 0", "backoffLimit: 0   ", "trailing spaces"},
      {"k8s/merge-job.yaml", "kind: Job", "kind: Jobb", "no model for apiVersion batch/v1 kind Jobb"},
      {"ssh-launch.sh", "wait \"$p\"", "wait $p", "SC2086"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file + ": " + c.to);
    const auto r = CheckDeploy(BrokenCopy(c.file, c.from, c.to));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace memstand::e2e
