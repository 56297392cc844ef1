// `memstand run --runs N`: the measured run repeated against one session's server.
#pragma once

#include "cli/run_flags.h"
#include "cli/run_session.h"

namespace memstand::cli {

/// Makes up to `runs` runs of cfg.load (fewer after SIGINT/SIGTERM), printing each
/// run's report, then the summary (ranges with N, failed runs and why); writes --hgrm
/// (every run's requests together) and --json (each run, and the summary). Returns
/// kExitFailed if any run failed, else kExitInterrupted if the series was cut short,
/// else kExitOk. REQUIRES: runs >= 1.
int RunSeries(RunSession& session, const RunConfig& cfg, int runs);

}  // namespace memstand::cli
