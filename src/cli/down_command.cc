// `memstand down [NAME]`: stops what `memstand up` started (only processes proven to
// be the ones memstand started: owner_proof.h) and removes the run folders.
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/stand_common.h"
#include "cli/subcommands.h"
#include "stand/stand_state.h"

namespace memstand::cli {
namespace {

struct DownFlags {
  std::string name;
  std::string run_dir;
};

// Stops one listed topology; false if something was left behind.
bool Down(const ListedTopology& t) {
  if (!t.record.ok()) {
    fmt::print(stderr, "memstand down: {}: state file not used, nothing signalled: {}\n", t.dir,
               t.record.status().message());
    return false;
  }
  std::vector<std::string> messages;
  Status s = StopRecordedTopology(*t.record, &messages);
  fmt::print("{} ({}):\n", t.record->name, t.record->kind);
  for (const std::string& m : messages) fmt::print("  {}\n", m);
  if (!s.ok()) {
    fmt::print(stderr, "memstand down: {}\n", s.message());
    return false;
  }
  fmt::print("  removed {}\n", t.record->dir);
  return true;
}

int DownBody(const DownFlags& f) {
  std::string root = RunRoot(f.run_dir);
  auto found = ListTopologies(root);
  if (!found.ok()) {
    return FailStand("down", Status::Failed(found.status().message() + "; nothing was signalled"));
  }
  std::vector<ListedTopology> listed = std::move(found).value();
  if (!f.name.empty()) {
    std::erase_if(listed, [&](const ListedTopology& t) {
      return std::filesystem::path(t.dir).filename() != f.name;
    });
    if (listed.empty()) {
      return FailStand("down", Status::InvalidArgument("no topology '" + f.name + "' under " +
                                                       root + " (see memstand ps)"));
    }
  } else if (listed.empty()) {
    fmt::print("nothing to stop under {}\n", root);
    return kExitOk;
  }
  bool all = true;
  for (const ListedTopology& t : listed) all &= Down(t);
  return all ? kExitOk : kExitFailed;
}

}  // namespace

SubcommandBody SetupDown(CLI::App* app) {
  auto f = std::make_shared<DownFlags>();
  app->add_option("name", f->name, "The topology to stop (default: all under the run root)");
  AddRunDirFlag(app, &f->run_dir);
  return [f] { return DownBody(*f); };
}

}  // namespace memstand::cli
