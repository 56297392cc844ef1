// SIGINT, SIGTERM and SIGHUP as a flag the subcommand polls: a process runs one
// subcommand, so one flag serves all of them.
#pragma once

#include <atomic>

namespace memstand::cli {

/// True once SIGINT, SIGTERM or SIGHUP arrived (after InstallStopSignals).
std::atomic<bool>& StopFlag();
/// Installs the handlers that set StopFlag().
void InstallStopSignals();

}  // namespace memstand::cli
