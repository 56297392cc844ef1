#include "cli/run_series.h"

#include <fmt/format.h>

#include "cli/cli.h"
#include "report/repeat_report.h"

namespace memstand::cli {

namespace {

using Json = nlohmann::ordered_json;

struct Series {
  std::vector<std::unique_ptr<MeasuredRun>> measured;
  std::vector<RunFigures> figures;
  Json runs = Json::array();  // each run's JSON, or {run, verdict, exit_code, failure}
};

void MeasureOne(RunSession& session, const RunConfig& cfg, int i, int runs, Series* series) {
  fmt::print("\n=== run {} of {} ===\n", i + 1, runs);
  std::fflush(stdout);
  auto run = session.Measure(cfg.load, fmt::format("run {}/{}", i + 1, runs));
  if (!run.ok()) {
    fmt::print("    FAILED: {} (nothing measured)\n", run.status().message());
    series->figures.push_back(FailedRunFigures(run.status().message()));
    series->runs.push_back({{"run", i + 1}, {"verdict", series->figures.back().reason},
                            {"exit_code", kExitFailed}, {"failure", run.status().message()}});
    return;
  }
  const RunReport& rep = (*run)->report;
  PrintTextReport(stdout, rep, cfg.quiet);
  series->figures.push_back(FiguresOf(rep));
  Json j = RunReportJson(rep);
  j["run"] = i + 1;
  series->runs.push_back(std::move(j));
  series->measured.push_back(std::move(*run));
}

int ExitCode(const RepeatSummary& s) {
  if (s.failed > 0) return kExitFailed;
  if (s.interrupted > 0 || s.runs < s.requested) return kExitInterrupted;
  return kExitOk;
}

std::string Verdict(const RepeatSummary& s) {
  if (s.failed > 0) return fmt::format("FAILED: {} of {} runs failed", s.failed, s.runs);
  if (s.interrupted > 0 || s.runs < s.requested) {
    return fmt::format("INTERRUPTED: {} of {} runs made", s.runs, s.requested);
  }
  return fmt::format("OK: {} of {} runs", s.ok, s.requested);
}

Status WriteOutputs(RunSession& session, const RunConfig& cfg, const Series& series,
                    const RepeatSummary& s) {
  Status w = session.FinishHdrLog();
  if (w.ok() && !cfg.hgrm_path.empty()) {
    CommandStats all;
    for (const auto& run : series.measured) all.Add(run->result.AllCommands());
    w = session.WriteHgrm(all.latency_ns);
  }
  if (!w.ok() || cfg.json_path.empty()) return w;
  Json j;
  j["schema"] = "memstand.run";
  j["version"] = kRunJsonVersion;
  j["memstand_version"] = MEMSTAND_VERSION;
  j["verdict"] = Verdict(s);
  j["exit_code"] = ExitCode(s);
  j["interrupted"] = s.interrupted > 0 || s.runs < s.requested;
  j["runs"] = series.runs;
  j["summary"] = RepeatSummaryJson(s);
  return session.WriteJson(j);
}

}  // namespace

int RunSeries(RunSession& session, const RunConfig& cfg, int runs) {
  Series series;
  for (int i = 0; i < runs && !session.interrupted(); ++i) MeasureOne(session, cfg, i, runs, &series);
  RepeatSummary summary = Summarize(series.figures, runs);
  PrintRepeatSummary(stdout, summary);
  fmt::print("    {} (exit {})\n", Verdict(summary), ExitCode(summary));
  std::fflush(stdout);
  Status s = WriteOutputs(session, cfg, series, summary);
  if (!s.ok()) return Fail("run", s);
  return ExitCode(summary);
}

}  // namespace memstand::cli
