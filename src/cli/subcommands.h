// Every subcommand registers itself here: its flags on a CLI11 sub-app, then its body.
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "util/status.h"

namespace memstand::cli {

/// A subcommand's body, run after a successful parse. Returns the exit code.
using SubcommandBody = std::function<int()>;

struct Subcommand {
  const char* name;
  const char* help;
  /// Declares flags on `app` and returns the body that will read them.
  SubcommandBody (*setup)(CLI::App* app);
};

/// Output flags of `app` as (flag, path) pairs: the first one given an empty path
/// (`--json ''`) is refused, InvalidArgument "<flag>: needs a file path, got ''", not
/// taken as absent. OK when every given one has a path.
Status RefuseEmptyPaths(const CLI::App& app,
                        std::initializer_list<std::pair<const char*, const std::string*>> outputs);
/// For a uint64_t flag: a whole number in 0..2^64-1, as typed (CLI11 alone reads "-1"
/// as 2^64-1 and saturates above 2^64-1).
const CLI::Validator& WholeNumberU64();

SubcommandBody SetupRun(CLI::App* app);
SubcommandBody SetupMemtier(CLI::App* app);
SubcommandBody SetupSweep(CLI::App* app);
SubcommandBody SetupUp(CLI::App* app);
SubcommandBody SetupPs(CLI::App* app);
SubcommandBody SetupDown(CLI::App* app);
SubcommandBody SetupDataset(CLI::App* app);
SubcommandBody SetupScenario(CLI::App* app);
SubcommandBody SetupRelay(CLI::App* app);
SubcommandBody SetupCompare(CLI::App* app);
SubcommandBody SetupReport(CLI::App* app);
SubcommandBody SetupMerge(CLI::App* app);
SubcommandBody SetupCheck(CLI::App* app);
SubcommandBody SetupHistory(CLI::App* app);

}  // namespace memstand::cli
