// `memstand memtier [memtier_benchmark flags]`: memtier's command line with memtier's
// meanings, mapped onto `memstand run`'s flags (cli/memtier_flags.h), parsed by run's
// own flag table and run by run's session; printed in memtier's shape
// (report/memtier_text.h), memstand's report blocks after it. docs/memtier.md.
#include <fmt/format.h>

#include <memory>
#include <random>
#include <system_error>

#include "cli/cli.h"
#include "cli/memtier_flags.h"
#include "cli/run_flags.h"
#include "cli/run_session.h"
#include "cli/subcommands.h"
#include "cli/version.h"
#include "report/memtier_json.h"
#include "report/memtier_text.h"
#include "report/repeat_report.h"
#include "stats/hdr_log.h"
#include "util/output_file.h"
#include "util/redact.h"

namespace memstand::cli {

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kName = "memtier";

void PrintHelp() {
  fmt::print(
      "Usage: memstand memtier [memtier_benchmark options]\n\n"
      "memtier_benchmark's flags with memtier's meanings (-h/--host is the host, -n is per\n"
      "client, 4 threads x 50 clients x 10000 requests by default), run by memstand's engine\n"
      "and printed in memtier's shape, memstand's report blocks after it. The flags memstand\n"
      "does not implement are refused by name (exit 2) with the reason shown here.\n"
      "Details and differences from memtier: docs/memtier.md.\n\nImplemented:\n");
  auto name = [](const MemtierFlag& f) {
    std::string n = f.short_name != 0 ? fmt::format("-{}, ", f.short_name) : std::string("    ");
    return n + "--" + f.long_name + (f.takes_value ? "=VALUE" : "");
  };
  for (const MemtierFlag& f : MemtierFlags()) {
    if (f.refused == nullptr) fmt::print("  {}\n", name(f));
  }
  fmt::print("\nRefused (exit 2, naming the flag):\n");
  for (const MemtierFlag& f : MemtierFlags()) {
    if (f.refused != nullptr) fmt::print("  {:<44} {}\n", name(f), f.refused);
  }
}

// The mapped flags through `memstand run`'s own table and checks.
Result<RunConfig> RunConfigOf(const MemtierPlan& plan) {
  CLI::App app;
  RunFlags flags;
  AddRunFlags(&app, &flags);
  std::vector<std::string> argv(plan.run_args.rbegin(), plan.run_args.rend());  // CLI11 takes it reversed
  try {
    app.parse(argv);
  } catch (const CLI::ParseError& e) {
    return Status::InvalidArgument(std::string("as memstand run flags: ") + e.what());
  }
  return BuildRunConfig(app, flags);
}

MemtierTextOptions TextOptions(const MemtierPlan& plan) {
  MemtierTextOptions o;
  o.cluster_mode = plan.cluster_mode;
  o.arbitrary_commands = plan.arbitrary_commands;
  o.hide_histogram = plan.hide_histogram;
  return o;
}

// memtier's AGGREGATED AVERAGE of -x N runs: every run's counts and histograms added,
// over their measured seconds added (memtier averages the runs' rates instead: the same
// when the runs are equally long). No per-second series.
std::unique_ptr<MeasuredRun> Average(const std::vector<std::unique_ptr<MeasuredRun>>& runs) {
  auto avg = std::make_unique<MeasuredRun>();
  avg->options = runs.front()->options;
  avg->result.totals = ThreadStats(avg->options.commands.size());
  avg->result.measured_start_unix_s = runs.front()->result.measured_start_unix_s;
  for (const auto& r : runs) {
    avg->result.totals.Add(r->result.totals);
    avg->result.measured_s += r->result.measured_s;
    avg->result.interrupted = avg->result.interrupted || r->result.interrupted;
  }
  avg->report.options = &avg->options;
  avg->report.result = &avg->result;
  return avg;
}

double OpsPerSecond(const MeasuredRun& r) {
  return r.result.measured_s > 0 ? static_cast<double>(r.result.measured_ops()) / r.result.measured_s : 0;
}

// memtier's sections: ALL STATS for one run; for -x N each run (--print-all-runs), the
// best and the worst by ops/sec, and the average.
std::vector<MemtierSection> Sections(const MemtierPlan& plan,
                                     const std::vector<std::unique_ptr<MeasuredRun>>& runs,
                                     const MeasuredRun* average) {
  const bool h = !plan.hide_histogram;
  if (runs.size() == 1 && plan.run_count == 1) return {{"ALL STATS", &runs[0]->report, h}};
  std::vector<MemtierSection> out;
  if (plan.print_all_runs) {
    for (size_t i = 0; i < runs.size(); ++i) {
      out.push_back({fmt::format("RUN #{} RESULTS", i + 1), &runs[i]->report, h});
    }
  }
  const MeasuredRun* best = runs[0].get();
  const MeasuredRun* worst = runs[0].get();
  for (const auto& r : runs) {
    if (OpsPerSecond(*r) > OpsPerSecond(*best)) best = r.get();
    if (OpsPerSecond(*r) < OpsPerSecond(*worst)) worst = r.get();
  }
  out.push_back({"BEST RUN RESULTS", &best->report, h});
  out.push_back({"WORST RUN RESULTS", &worst->report, h});
  out.push_back({fmt::format("AGGREGATED AVERAGE RESULTS ({} runs)", runs.size()), &average->report, h});
  return out;
}

Status WriteFile(const std::string& flag, const std::string& path, const std::string& text) {
  auto f = OutputFile::Open(flag, path);
  if (!f.ok()) return f.status();
  Status s = (*f)->Write(text);
  return s.ok() ? (*f)->Commit() : s;
}

// memtier's --hdr-file-prefix files of one histogram: PREFIX_WHAT.txt, the percentile
// distribution in ms, and PREFIX_WHAT.hgrm, an HdrHistogram log of one interval (the
// run) in microseconds, memtier's unit. None for an empty histogram, as memtier.
Status WriteHdrPair(const std::string& base, const HdrHistogram& ns, const RunResult& r) {
  if (ns.total_count() == 0) return Status::OK();
  fmt::print(stderr, "Writing {} and {}.hgrm (--hdr-file-prefix)\n", base + ".txt", base);
  Status s = WriteFile("--hdr-file-prefix", base + ".txt", FormatHgrm(ns, kNanosPerMilli, 10));
  if (!s.ok()) return s;
  std::string log;
  HdrLogWriter w(&log, 1000);  // the interval's max in ms, from microseconds
  s = w.WriteHeader(r.measured_start_unix_s);
  if (s.ok()) s = w.WriteInterval("", 0, r.measured_s, MemtierMicros(ns));
  return s.ok() ? WriteFile("--hdr-file-prefix", base + ".hgrm", log) : s;
}

// memtier's names: PREFIX_FULL_RUN_N, PREFIX_SET_command_run_N, PREFIX_GET_command_run_N
// (a --command run: PREFIX_<COMMAND>_command_run_N per command type).
Status WriteHdrFiles(const std::string& prefix, int run_number, const MeasuredRun& run) {
  Status s = WriteHdrPair(fmt::format("{}_FULL_RUN_{}", prefix, run_number),
                          run.result.AllCommands().latency_ns, run.result);
  for (const MemtierGroup& g : MemtierGroups(run.report)) {
    if (!s.ok()) return s;
    s = WriteHdrPair(fmt::format("{}_{}_command_run_{}", prefix, g.command, run_number),
                     g.stats.latency_ns, run.result);
  }
  return s;
}

// Nothing is sent when an output cannot be written: each is tried (not kept) first. An
// output naming a file memtier reads (--cert, --key, --cacert, -S) is refused.
Status CheckOutputs(const MemtierPlan& plan, const RunConfig& cfg) {
  const std::string hdr = plan.hdr_file_prefix.empty() ? "" : plan.hdr_file_prefix + "_FULL_RUN_1";
  const std::vector<std::pair<std::string, std::string>> outputs = {
      {"--out-file", plan.out_file},
      {"--json-out-file", plan.json_out_file},
      {"--hdr-file-prefix", hdr.empty() ? "" : hdr + ".txt"},
      {"--hdr-file-prefix", hdr.empty() ? "" : hdr + ".hgrm"}};
  Status s = CheckDistinctOutputs(outputs);
  std::vector<std::string> inputs;
  for (const std::string& path :
       {cfg.load.tls.ca_file, cfg.load.tls.cert_file, cfg.load.tls.key_file, cfg.load.target.unix_path}) {
    if (!path.empty()) inputs.push_back(path);
  }
  if (s.ok()) s = CheckOutputsSpareInputs(outputs, inputs);
  if (!s.ok()) return s;
  if (!plan.json_out_file.empty()) {
    auto f = OutputFile::Open("--json-out-file", plan.json_out_file);
    if (!f.ok()) return f.status();
  }
  if (!plan.hdr_file_prefix.empty()) {
    auto f = OutputFile::Open("--hdr-file-prefix", plan.hdr_file_prefix + "_FULL_RUN_1.txt");
    if (!f.ok()) return f.status();
  }
  return Status::OK();
}

int ExitCode(const std::vector<std::unique_ptr<MeasuredRun>>& runs, int requested) {
  for (const auto& r : runs) {
    if (r->report.exit_code != kExitOk) return r->report.exit_code;
  }
  return static_cast<int>(runs.size()) < requested ? kExitInterrupted : kExitOk;
}

// memtier's tables, then memstand's report of each run (and the range over -x N runs).
void PrintReports(std::FILE* out, const MemtierPlan& plan, const std::vector<std::unique_ptr<MeasuredRun>>& runs,
                  const std::vector<MemtierSection>& sections) {
  fmt::print(out, "\n");
  PrintMemtierRunInformation(out, runs.front()->options);
  for (const MemtierSection& s : sections) PrintMemtierStats(out, *s.report, s.title, TextOptions(plan));
  fmt::print(out, "\n\n=== memstand's report ===\n");
  std::vector<RunFigures> figures;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs.size() > 1) fmt::print(out, "\n=== run {} of {} ===\n", i + 1, runs.size());
    PrintTextReport(out, runs[i]->report, false);
    figures.push_back(FiguresOf(runs[i]->report));
  }
  if (runs.size() > 1) PrintRepeatSummary(out, Summarize(figures, plan.run_count));
  std::fflush(out);
}

// -o FILE: the report there (written whole, as every output file), else stdout.
Status Report(const MemtierPlan& plan, OutputFile* out_file, const std::vector<std::unique_ptr<MeasuredRun>>& runs,
              const std::vector<MemtierSection>& sections) {
  try {
    PrintReports(out_file != nullptr ? out_file->stream() : stdout, plan, runs, sections);
  } catch (const std::system_error& e) {  // fmt: -o's file is full (stdout's failures: cli::Main)
    if (out_file != nullptr) return out_file->Error(e.code().value());
    return Status::IoError(e.what());
  }
  return out_file != nullptr ? out_file->Commit() : Status::OK();
}

int MemtierBody(const std::vector<std::string>& args) {
  auto plan = MapMemtierArgs(args, std::random_device{}());
  if (!plan.ok()) return Fail(kName, plan.status());
  if (plan->help) {
    PrintHelp();
    return kExitOk;
  }
  if (plan->version) {
    fmt::print("{}\n", VersionText());
    return kExitOk;
  }
  auto cfg = RunConfigOf(*plan);
  if (!cfg.ok() && cfg.status().code() == Status::Code::kInvalidArgument) {
    return Fail(kName, Status::InvalidArgument(MemtierTerms(*plan, cfg.status().message())));
  }
  if (!cfg.ok()) return Fail(kName, cfg.status());
  if (plan->show_config) {
    std::string line = "memstand run";
    for (const std::string& a : plan->run_args) line += " " + a;
    fmt::print(stderr, "memstand memtier: runs as: {}\n", RedactSecrets(line));
  }
  Status s = CheckOutputs(*plan, *cfg);
  if (!s.ok()) return Fail(kName, s);
  std::unique_ptr<OutputFile> out_file;
  if (!plan->out_file.empty()) {
    auto f = OutputFile::Open("--out-file", plan->out_file);
    if (!f.ok()) return Fail(kName, f.status());
    out_file = std::move(*f);
  }
  auto session = RunSession::Open(&*cfg);
  if (!session.ok()) return Fail(kName, session.status());
  std::vector<std::unique_ptr<MeasuredRun>> runs;
  for (int i = 0; i < plan->run_count && !(*session)->interrupted(); ++i) {
    const std::string label = plan->run_count > 1 ? fmt::format("run {}/{}", i + 1, plan->run_count) : "";
    auto run = (*session)->Measure(cfg->load, label);
    if (!run.ok()) return Fail(kName, run.status());
    runs.push_back(std::move(*run));
  }
  if (runs.empty()) return kExitInterrupted;
  std::unique_ptr<MeasuredRun> average = runs.size() > 1 ? Average(runs) : nullptr;
  const std::vector<MemtierSection> sections = Sections(*plan, runs, average.get());
  s = Report(*plan, out_file.get(), runs, sections);
  for (size_t i = 0; i < runs.size() && s.ok() && !plan->hdr_file_prefix.empty(); ++i) {
    s = WriteHdrFiles(plan->hdr_file_prefix, static_cast<int>(i) + 1, *runs[i]);
  }
  if (s.ok() && !plan->json_out_file.empty()) {
    fmt::print(stderr, "Saving JSON output file: {}\n", plan->json_out_file);
    s = WriteFile("--json-out-file", plan->json_out_file,
                  MemtierJson(sections, plan->run_count, &plan->json_line).dump(2) + "\n");
  }
  if (!s.ok()) return Fail(kName, s);
  return ExitCode(runs, plan->run_count);
}

}  // namespace

SubcommandBody SetupMemtier(CLI::App* app) {
  // memtier's flags reach MapMemtierArgs as given: -h is memtier's host, --help its help.
  app->set_help_flag();
  app->allow_extras();
  app->prefix_command();
  return [app] { return MemtierBody(app->remaining()); };
}

}  // namespace memstand::cli
