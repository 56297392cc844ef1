#include "cli/stand_common.h"

#include <algorithm>

#include <fmt/format.h>

#include "cli/cli.h"
#include "core/cpu_set.h"
#include "util/redact.h"

namespace memstand::cli {
namespace {

std::string Liveness(const OwnerCheck& check) {
  switch (check.verdict) {
    case Ownership::kOurs:
      return "alive";
    case Ownership::kGone:
      return "gone";
    case Ownership::kOther:
      return "pid reused by '" + JoinCmdline(check.now.cmdline) + "'";
    case Ownership::kUnproven:
      return "not proven ours (" + check.why + ")";
  }
  return "?";
}

// The CPUs the node's process may run on, read back from /proc; "-" for a process that
// is not (or no longer) ours.
std::string NodeCpus(const NodeRecord& n, bool ours) {
  if (!ours || n.process.pid <= 1) return "-";
  auto cpus = ProcessCpus(n.process.pid);
  return cpus.ok() ? CpuListText(*cpus) : "-";
}

}  // namespace

void AddRunDirFlag(CLI::App* app, std::string* run_dir) {
  app->add_option("--run-dir", *run_dir,
                  "Folder holding the run folders, private to you (default: "
                  "$MEMSTAND_RUN_DIR, else $XDG_RUNTIME_DIR/memstand, else /tmp/memstand-UID)");
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
  fmt::print(stderr, "memstand {}: {}\n", command, RedactSecrets(s.message()));
  // A refused run root or state file (Failed) is 1: the input is well-formed, the
  // folder is not safe to act on.
  bool usage = s.code() == Status::Code::kInvalidArgument || s.code() == Status::Code::kNotFound;
  return usage ? kExitUsage : kExitFailed;
}

void PrintNodeTable(const TopologyRecord& record, bool with_state) {
  // tarantool-sharded's roles and names are longer than the other kinds'.
  size_t role_w = 8, name_w = 12;
  for (const NodeRecord& n : record.nodes) {
    role_w = std::max(role_w, n.role.size());
    name_w = std::max(name_w, n.name.size());
  }
  fmt::print("  {:<{}} {:<{}} {:<21} {:>8}  {:<8} {:<8} {}\n", "ROLE", role_w, "NODE", name_w, "ADDRESS", "PID",
             with_state ? "STATE" : "VERSION", "CPUS", "LOG");
  for (const NodeRecord& n : record.nodes) {
    // `up` prints the processes it has just started; `ps` reads /proc only for a
    // process proven ours.
    const OwnerCheck check = with_state ? NodeOwnership(record, n) : OwnerCheck{Ownership::kOurs, {}, ""};
    fmt::print("  {:<{}} {:<{}} {:<21} {:>8}  {:<8} {:<8} {}\n", n.role, role_w, n.name, name_w,
               n.host + ":" + std::to_string(n.port), n.process.pid,
               with_state ? Liveness(check) : n.version, NodeCpus(n, check.verdict == Ownership::kOurs), n.log);
  }
}

}  // namespace memstand::cli
