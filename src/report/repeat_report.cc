#include "report/repeat_report.h"

#include <fmt/format.h>

namespace memstand {

namespace {

constexpr int kInterruptedExit = 130;  // docs/exit-codes.md

void AddLatencyFigures(const std::string& row, const CommandStats& s, double secs,
                       const std::vector<double>& percentiles, std::vector<Figure>* out) {
  const HdrHistogram& h = s.latency_ns;
  out->push_back({row, "ops_per_sec", "ops/s", secs > 0 ? s.ops / secs : 0});
  out->push_back({row, "mean_us", "mean µs", h.mean() / 1000});
  for (double p : percentiles) {
    out->push_back({row, fmt::format("p{:g}_us", p), fmt::format("p{:g} µs", p),
                    h.ValueAtPercentile(p) / 1000.0});
  }
  out->push_back({row, "max_us", "max µs", h.max() / 1000.0});
}

void AddCpuFigures(const RunReport& rep, std::vector<Figure>* out) {
  const RunResult& r = *rep.result;
  const double ops = static_cast<double>(r.measured_ops());
  if (ops == 0) return;
  out->push_back({"client", "cpu_us_per_request", "CPU µs/request", r.client_cpu_s() * 1e6 / ops});
  if (r.server_cpu_known) {
    double cpu = r.server_cpu_user_s + r.server_cpu_sys_s;
    out->push_back({"server", "cpu_us_per_request", "CPU µs/request (INFO)", cpu * 1e6 / ops});
  }
  if (rep.server_proc_known) {
    out->push_back({"server", "proc_cpu_us_per_request", "CPU µs/request (/proc)",
                    rep.server_proc_cpu_s * 1e6 / ops});
  }
}

std::string RangeColumns(const Range& r) {
  return fmt::format("{:>12.1f} {:>12.1f} {:>12.1f}  (N={})  median in [{:.1f} .. {:.1f}] at {:.1f}%", r.min,
                     r.median, r.max, r.n, r.median_low, r.median_high, r.median_coverage * 100);
}

}  // namespace

RunFigures FiguresOf(const RunReport& rep) {
  const RunResult& r = *rep.result;
  const LoadOptions& o = *rep.options;
  RunFigures f;
  f.outcome = rep.exit_code == 0                   ? RunOutcome::kOk
              : rep.exit_code == kInterruptedExit ? RunOutcome::kInterrupted
                                                  : RunOutcome::kFailed;
  if (f.outcome != RunOutcome::kOk) f.reason = rep.verdict;
  for (size_t i = 0; i < o.commands.size(); ++i) {
    AddLatencyFigures(o.commands[i].label, r.totals.commands[i], r.measured_s, o.percentiles,
                      &f.figures);
  }
  AddLatencyFigures("Total", r.AllCommands(), r.measured_s, o.percentiles, &f.figures);
  AddCpuFigures(rep, &f.figures);
  return f;
}

RunFigures FailedRunFigures(const std::string& reason) {
  return {RunOutcome::kFailed, "FAILED: " + reason, {}};
}

void PrintRepeatSummary(std::FILE* out, const RepeatSummary& s) {
  fmt::print(out, "\n[S] Summary of {} run(s): min, median and max over the {} that ended OK, and the "
             "median's interval between runs (order statistics; 95% needs 6 runs)\n",
             s.runs, s.ok);
  if (!s.ranges.empty()) {
    fmt::print(out, "    {:<8} {:<24} {:>12} {:>12} {:>12}\n", "", "", "min", "median", "max");
  }
  for (const FigureRange& f : s.ranges) {
    fmt::print(out, "    {:<8} {:<24} {}\n", f.row, f.label, RangeColumns(f.range));
  }
  std::string reasons;
  for (const auto& r : s.failures) reasons += (reasons.empty() ? "" : "; ") + r;
  fmt::print(out, "    failed runs: {} of {}{}\n", s.failed, s.runs,
             reasons.empty() ? "" : " (" + reasons + ")");
  if (s.interrupted > 0 || s.runs < s.requested) {
    fmt::print(out, "    interrupted: {} of {} runs made{}\n", s.runs, s.requested,
               s.interrupted == 0 ? ""
                                  : "; the last was stopped by a signal: its partial figures "
                                    "are left out of the ranges (its report is above)");
  }
  std::fflush(out);
}

nlohmann::ordered_json RepeatSummaryJson(const RepeatSummary& s) {
  nlohmann::ordered_json j;
  j["requested"] = s.requested;
  j["runs"] = s.runs;
  j["n"] = s.ok;
  j["failed"] = s.failed;
  j["interrupted"] = s.interrupted;
  j["failures"] = s.failures;
  nlohmann::ordered_json figures = nlohmann::ordered_json::object();
  for (const FigureRange& f : s.ranges) {
    figures[f.row][f.key] = {{"min", f.range.min}, {"median", f.range.median},
                             {"max", f.range.max}, {"n", f.range.n},
                             {"median_low", f.range.median_low}, {"median_high", f.range.median_high},
                             {"median_coverage", f.range.median_coverage}};
  }
  j["figures"] = figures;
  return j;
}

}  // namespace memstand
