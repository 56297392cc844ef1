// What `memstand up`, `ps` and `down` share: the run root flag, exit codes, and the
// node table.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "stand/stand_state.h"
#include "util/status.h"

namespace memstand::cli {

/// Declares --run-dir on app, bound to *run_dir.
void AddRunDirFlag(CLI::App* app, std::string* run_dir);
/// The flag's value, or DefaultRunRoot() when it was not given.
std::string RunRoot(const std::string& run_dir_flag);
/// "memstand down NAME" plus " --run-dir ROOT" unless ROOT is the default.
std::string DownCommand(const std::string& name, const std::string& root);

/// Prints "memstand <command>: <message>" to stderr and returns the exit code: 2 for
/// bad input (InvalidArgument) and a missing server binary (NotFound), else 1 (a
/// refused run root or state file among them).
int FailStand(const std::string& command, const Status& s);

/// One line per node: role, name, host:port, pid, version and log (with `state`, a
/// liveness column from NodeOwnership: alive, gone, pid reused, or not proven ours).
void PrintNodeTable(const TopologyRecord& record, bool with_state);

}  // namespace memstand::cli
