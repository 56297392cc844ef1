#include "cli/stand_common.h"

#include <fmt/format.h>

#include "cli/cli.h"

namespace memstand::cli {
namespace {

std::string Liveness(const NodeRecord& n) {
  ProcessIdentity now;
  switch (CheckOwnership(n.process, &now)) {
    case Ownership::kOurs:
      return "alive";
    case Ownership::kGone:
      return "gone";
    case Ownership::kOther:
      return "pid reused by '" + JoinCmdline(now.cmdline) + "'";
  }
  return "?";
}

}  // namespace

void AddRunDirFlag(CLI::App* app, std::string* run_dir) {
  app->add_option("--run-dir", *run_dir,
                  "Folder holding the run folders (default: $MEMSTAND_RUN_DIR or "
                  "/tmp/memstand-stand)");
}

std::string RunRoot(const std::string& run_dir_flag) {
  return run_dir_flag.empty() ? DefaultRunRoot() : run_dir_flag;
}

std::string DownCommand(const std::string& name, const std::string& root) {
  std::string cmd = "memstand down " + name;
  if (root != DefaultRunRoot()) cmd += " --run-dir " + root;
  return cmd;
}

int FailStand(const std::string& command, const Status& s) {
  fmt::print(stderr, "memstand {}: {}\n", command, s.message());
  bool usage = s.code() == Status::Code::kInvalidArgument || s.code() == Status::Code::kNotFound;
  return usage ? kExitUsage : kExitFailed;
}

void PrintNodeTable(const std::vector<NodeRecord>& nodes, bool with_state) {
  fmt::print("  {:<8} {:<12} {:<21} {:>8}  {:<8} {}\n", "ROLE", "NODE", "ADDRESS", "PID",
             with_state ? "STATE" : "VERSION", "LOG");
  for (const NodeRecord& n : nodes) {
    fmt::print("  {:<8} {:<12} {:<21} {:>8}  {:<8} {}\n", n.role, n.name,
               n.host + ":" + std::to_string(n.port), n.process.pid,
               with_state ? Liveness(n) : n.version, n.log);
  }
}

}  // namespace memstand::cli
