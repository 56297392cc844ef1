// What `memstand run` and `memstand sweep` set up once per command line — output files
// (each written whole or not at all, util/output_file.h),
// live metrics, the progress line, the local server, the signal handlers — and the
// measured runs made against it, as many as asked.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/run_flags.h"
#include "load/engine.h"
#include "report/run_report.h"
#include "stand/resource_sampler.h"
#include "stats/reservoir.h"
#include "util/status.h"

namespace memstand::cli {

/// Prints "memstand <subcommand>: <message>" on stderr; returns the exit code for `s`
/// (kExitUsage for InvalidArgument, kExitFailed otherwise).
int Fail(const char* subcommand, const Status& s);

/// One measured run and its judged report. Not copyable: the report points at the
/// options and the result beside it.
struct MeasuredRun {
  LoadOptions options;
  RunResult result;
  RunReport report;

  MeasuredRun() = default;
  MeasuredRun(const MeasuredRun&) = delete;
  MeasuredRun& operator=(const MeasuredRun&) = delete;
};

class RunSession {
 public:
  /// Prepares --json, --samples, --hdr-log and --hgrm (nothing appears at their paths
  /// before they are written whole), starts the metrics server and the progress line,
  /// installs SIGINT/SIGTERM/SIGHUP handlers and, with no target given, starts a local
  /// server and points cfg->load at it. InvalidArgument for a bad or shared output
  /// path, or a taken metrics port (nothing sent yet).
  static Result<std::unique_ptr<RunSession>> Open(RunConfig* cfg);
  /// Stops the local server, if any.
  ~RunSession();
  RunSession(const RunSession&) = delete;
  RunSession& operator=(const RunSession&) = delete;

  /// One run with `options` (the set-up's target; the caller may vary the shape):
  /// the load with its warm-up, the server's CPU, the verdict and exit code. An error
  /// only when nothing was measured (target unreachable, handshake refused).
  /// `label` prefixes the progress line (e.g. "run 2/3"); may be empty.
  /// Each run's seconds follow the previous run's in the --hdr-log and live metrics.
  Result<std::unique_ptr<MeasuredRun>> Measure(const LoadOptions& options, const std::string& label);

  /// The servers the caller stood up for the next runs (RunConfig::servers_by_caller:
  /// sweep's points). Their CPU is sampled and summed as a local server's is, the first
  /// one's pid is the report's, and `note` names them in the reports.
  void UseServers(std::vector<WatchedProcess> servers, std::string note);

  /// SIGINT, SIGTERM or SIGHUP arrived: make no further run.
  bool interrupted() const;

  /// Each writes its output whole and puts it at its path; OK when the flag was not
  /// given. IoError naming the flag, the path and the errno text, and then the path is
  /// left as it was. Call each once, after the last run.
  Status WriteSamples(const std::vector<Sample>& samples, const std::vector<std::string>& labels);
  Status WriteHgrm(const HdrHistogram& h);  // --hgrm, milliseconds
  Status WriteJson(const nlohmann::ordered_json& j);  // --json, 2-space indented
  /// Puts the --hdr-log written during the runs in place; its first write error.
  Status FinishHdrLog();
  /// --metrics-linger: keeps serving /metrics (the final totals) for cfg.metrics_linger_s
  /// after the last run, so that a scrape after the run's end still sees them, or until
  /// SIGINT/SIGTERM/SIGHUP. Says so on stderr unless --quiet. Returns at once without
  /// --metrics-addr, with 0 s, or when a signal already ended the run.
  void LingerMetrics(const RunConfig& cfg);
  /// How the server was started, or that the user gave it (for reports).
  const std::string& server_note() const { return server_note_; }
  const Platform& platform() const { return platform_; }

 private:
  struct Outputs;
  RunSession();
  Status OpenOutputs(const RunConfig& cfg);
  Status StartLocalServer(RunConfig* cfg);
  Status StartLocalOther(RunConfig* cfg);
  IntervalSink Sink();

  std::unique_ptr<Outputs> out_;
  Platform platform_;
  bool strict_ = false;  // --strict
  std::string server_note_;
  std::vector<WatchedProcess> servers_;  // those memstand started, sampled in Measure
  int second_offset_ = 0;  // measured seconds of the runs before this one
};

}  // namespace memstand::cli
