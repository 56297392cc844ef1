// `memstand run`: flags -> config -> session (outputs, local server) -> one run, or a
// series of runs (--runs) -> report -> exit code.
#include <cstdio>
#include <memory>

#include "cli/cli.h"
#include "cli/run_flags.h"
#include "cli/run_series.h"
#include "cli/run_session.h"
#include "cli/subcommands.h"
#include "report/memtier_json.h"
#include "report/run_report.h"

namespace memstand::cli {

namespace {

std::vector<std::string> CommandLabels(const LoadOptions& o) {
  std::vector<std::string> labels;
  for (const auto& c : o.commands) labels.push_back(c.label);
  return labels;
}

// One run: --samples, its report, --hgrm and --json.
int RunOnce(RunSession& session, const RunConfig& cfg) {
  auto run = session.Measure(cfg.load, "");
  if (!run.ok()) return Fail("run", run.status());
  RunReport& rep = (*run)->report;
  rep.samples_path = cfg.samples_path;  // --samples before the report, which says what it holds
  Status s = session.WriteSamples((*run)->result.samples, CommandLabels(cfg.load));
  PrintTextReport(stdout, rep, cfg.quiet);
  if (s.ok()) s = session.FinishHdrLog();
  if (s.ok()) s = session.WriteHgrm((*run)->result.AllCommands().latency_ns);
  if (s.ok()) s = session.WriteJson(cfg.json_memtier ? MemtierJson(rep) : RunReportJson(rep));
  if (!s.ok()) return Fail("run", s);
  return rep.exit_code;
}

int RunBody(const CLI::App& app, const RunFlags& flags, int runs) {
  auto cfg = BuildRunConfig(app, flags);
  if (!cfg.ok()) return Fail("run", cfg.status());
  if (runs > 1 && cfg->load.start_at_unix_s > 0) {
    return Fail("run", Status::InvalidArgument("--start-at: starts one run; give --runs 1 with it"));
  }
  if (runs > 1 && (cfg->json_memtier || !cfg->samples_path.empty() || !cfg->load.history_path.empty())) {
    return Fail("run", Status::InvalidArgument(
                           "--runs: --json-format memtier, --samples and --history describe one run; "
                           "give --runs 1 with them"));
  }
  auto session = RunSession::Open(&*cfg);
  if (!session.ok()) return Fail("run", session.status());
  const int code = runs == 1 ? RunOnce(**session, *cfg) : RunSeries(**session, *cfg, runs);
  (*session)->LingerMetrics(*cfg);
  return code;
}

}  // namespace

SubcommandBody SetupRun(CLI::App* app) {
  auto flags = std::make_shared<RunFlags>();
  auto runs = std::make_shared<int>(1);
  AddRunFlags(app, flags.get());
  app->add_option("--runs", *runs,
                  "Repeat the measured run N times against the same server (warm-up each "
                  "time); figures become min/median/max with N")
      ->check(CLI::Range(1, 10000));
  return [app, flags, runs] { return RunBody(*app, *flags, *runs); };
}

}  // namespace memstand::cli
