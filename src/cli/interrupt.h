// SIGINT, SIGTERM and SIGHUP as one flag that long-running subcommands poll: they stop
// what they are doing, keep what was measured, and exit 130 (docs/exit-codes.md).
#pragma once

#include <atomic>

namespace memstand::cli {

/// Installs the handlers (idempotent). Call before starting work that polls the flag.
void InstallInterruptHandlers();

/// Set once one of the signals arrived; never cleared.
const std::atomic<bool>* InterruptFlag();

}  // namespace memstand::cli
