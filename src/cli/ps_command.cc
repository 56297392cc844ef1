// `memstand ps`: the topologies under the run root, from their state files, with each
// recorded process alive, gone, or its pid reused.
#include <memory>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/stand_common.h"
#include "cli/subcommands.h"
#include "stand/stand_state.h"

namespace memstand::cli {
namespace {

struct PsFlags {
  std::string run_dir;
};

void PrintTopology(const TopologyRecord& r) {
  int alive = 0;
  for (const NodeRecord& n : r.nodes) alive += NodeOwnership(r, n).verdict == Ownership::kOurs;
  std::string owner = r.detached ? "detached" : "held by memstand pid " + std::to_string(r.memstand_pid);
  fmt::print("{} ({}, {}): {}/{} process(es) alive, {}, run folder {}\n", r.name, r.kind,
             r.status, alive, r.nodes.size(), owner, r.dir);
  PrintNodeTable(r, /*with_state=*/true);
}

int PsBody(const PsFlags& f) {
  std::string root = RunRoot(f.run_dir);
  auto listed = ListTopologies(root);
  if (!listed.ok()) return FailStand("ps", listed.status());
  if (listed->empty()) {
    fmt::print("no topologies under {}\n", root);
    return kExitOk;
  }
  for (const ListedTopology& t : *listed) {
    if (!t.record.ok()) {
      fmt::print("{}: unreadable state file: {}\n", t.dir, t.record.status().message());
      continue;
    }
    PrintTopology(*t.record);
  }
  return kExitOk;
}

}  // namespace

SubcommandBody SetupPs(CLI::App* app) {
  auto f = std::make_shared<PsFlags>();
  AddRunDirFlag(app, &f->run_dir);
  return [f] { return PsBody(*f); };
}

}  // namespace memstand::cli
