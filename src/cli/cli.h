// The command line: one table of subcommands (ninja's kTools[] style).
#pragma once

#include <string>

namespace memstand::cli {

/// Exit codes (docs/exit-codes.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;       // the run failed: unreachable, lost connection, check
inline constexpr int kExitUsage = 2;        // a flag, target or template is wrong
inline constexpr int kExitInterrupted = 130;  // SIGINT/SIGTERM: results so far were printed

int Main(int argc, char** argv);

/// Prints "memstand <command>: <message>" on stderr; returns code.
int FailWith(const char* command, const std::string& message, int code);

/// The command line as typed (arguments quoted where a shell needs it), passwords
/// redacted: for reports that say how they were produced.
const std::string& CommandLine();

}  // namespace memstand::cli
