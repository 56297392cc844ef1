// `memstand run`: flags -> config -> (local server) -> load -> report -> exit code.
#include <csignal>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/live_metrics.h"
#include "cli/run_flags.h"
#include "cli/subcommands.h"
#include "load/engine.h"
#include "report/memtier_json.h"
#include "report/metrics_server.h"
#include "report/run_report.h"
#include "report/samples_csv.h"
#include "stand/local_redis.h"
#include "stand/proc_stats.h"
#include "stats/hdr_log.h"

namespace memstand::cli {

namespace {

std::atomic<bool> g_interrupt{false};

void OnSignal(int) { g_interrupt.store(true); }

void InstallSignalHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int Fail(const Status& s) {
  fmt::print(stderr, "memstand run: {}\n", s.message());
  return s.code() == Status::Code::kInvalidArgument ? kExitUsage : kExitFailed;
}

// Opens (and truncates) an output path before the run, so a bad path fails early.
Status CheckWritable(const std::string& flag, const std::string& path) {
  if (path.empty()) return Status::OK();
  std::ofstream f(path, std::ios::trunc);
  if (!f) return Status::InvalidArgument(flag + ": cannot write '" + path + "'");
  return Status::OK();
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// The --hdr-log writer: one line per command per second, as the seconds complete.
class HdrLogSink {
 public:
  static Result<std::unique_ptr<HdrLogSink>> Open(const std::string& path,
                                                  const LoadOptions& options) {
    FilePtr f(std::fopen(path.c_str(), "w"));
    if (!f) return Status::InvalidArgument("--hdr-log: cannot write '" + path + "'");
    auto sink = std::unique_ptr<HdrLogSink>(new HdrLogSink(std::move(f), options));
    Status s = sink->writer_.WriteHeader(std::time(nullptr));
    if (!s.ok()) return s;
    return sink;
  }
  void Write(int second, const std::vector<CommandStats>& commands) {
    for (size_t i = 0; i < commands.size() && status_.ok(); ++i) {
      status_ = writer_.WriteInterval(options_.commands[i].label, second, 1.0,
                                      commands[i].latency_ns);
    }
  }
  const Status& status() const { return status_; }

 private:
  HdrLogSink(FilePtr f, const LoadOptions& options)
      : file_(std::move(f)), writer_(file_.get()), options_(options) {}
  FilePtr file_;
  HdrLogWriter writer_;
  const LoadOptions& options_;
  Status status_;
};

Status WriteHgrm(const std::string& path, const RunResult& r) {
  std::ofstream f(path, std::ios::trunc);
  f << FormatHgrm(r.AllCommands().latency_ns, kNanosPerMilli);
  if (!f) return Status::IoError("--hgrm: cannot write '" + path + "'");
  return Status::OK();
}

std::vector<std::string> CommandLabels(const LoadOptions& o) {
  std::vector<std::string> labels;
  for (const auto& c : o.commands) labels.push_back(c.label);
  return labels;
}

void Judge(const RunResult& r, bool server_started, RunReport* rep) {
  const CrossCheck& cc = r.cross_check;
  bool counts_complete = r.failure.ok() && r.unanswered == 0;
  uint64_t zero = 0;
  for (const auto& c : r.totals.commands) zero += c.zero_latency;
  if (zero * 100 > r.measured_ops() && r.measured_ops() > 0) {
    rep->warnings.push_back("more than 1% of latencies measured 0 ns: the clock is too coarse");
  }
  for (const auto& t : r.threads) {
    if (r.measured_s > 0 && (t.cpu_user_s + t.cpu_sys_s) / r.measured_s >= 0.9) {
      rep->warnings.push_back("a load thread used >= 90% of a core: the client may be the bottleneck");
      break;
    }
  }
  if (RateFellShort(*rep->options, r)) {
    rep->warnings.push_back(fmt::format(
        "achieved {:.1f} requests/s, below 99% of --rate {:.10g}: the client or the server could "
        "not keep the schedule (see the send lag)", AchievedRate(*rep->options, r), rep->options->rate));
  }
  if (!r.failure.ok()) {
    rep->exit_code = kExitFailed;
    rep->verdict = "FAILED: " + r.failure.message();
  } else if (r.interrupted) {
    rep->exit_code = kExitInterrupted;
    rep->verdict = "INTERRUPTED: results so far";
  } else if (cc.available && cc.mismatch && counts_complete && (cc.enforced || server_started)) {
    rep->exit_code = kExitFailed;
    rep->verdict = "FAILED: the server's command counts differ from memstand's (block 7)";
  } else {
    rep->exit_code = kExitOk;
    rep->verdict = "OK";
  }
  if (cc.available && cc.mismatch && rep->exit_code == kExitOk) {
    rep->warnings.push_back("command counts differ from the server's (another client?)");
  }
}

int RunBody(const CLI::App& app, const RunFlags& flags) {
  auto cfg = BuildRunConfig(app, flags);
  if (!cfg.ok()) return Fail(cfg.status());
  Status s = CheckWritable("--json", cfg->json_path);
  if (s.ok()) s = CheckWritable("--hgrm", cfg->hgrm_path);
  if (s.ok()) s = CheckWritable("--samples", cfg->samples_path);
  if (!s.ok()) return Fail(s);
  std::unique_ptr<HdrLogSink> hdr_log;
  if (!cfg->hdr_log_path.empty()) {
    auto opened = HdrLogSink::Open(cfg->hdr_log_path, cfg->load);
    if (!opened.ok()) return Fail(opened.status());
    hdr_log = std::move(*opened);
  }
  std::unique_ptr<LiveMetrics> live;
  std::unique_ptr<MetricsServer> metrics;
  if (!cfg->metrics_host.empty()) {
    live = std::make_unique<LiveMetrics>(cfg->load);
    auto started = MetricsServer::Start(cfg->metrics_host, cfg->metrics_port,
                                        [l = live.get()] { return l->Render(); });
    if (!started.ok()) return Fail(started.status());
    metrics = std::move(*started);
  }
  IntervalSink sink = [log = hdr_log.get(), l = live.get()](
                          int second, const std::vector<CommandStats>& commands) {
    if (log != nullptr) log->Write(second, commands);
    if (l != nullptr) l->OnSecond(second, commands);
  };
  InstallSignalHandlers();
  RunReport rep;
  std::unique_ptr<LocalRedis> local;
  if (!cfg->target_given) {
    LocalRedisOptions lo;
    lo.binary = cfg->redis_server;
    auto started = LocalRedis::Start(lo);
    if (!started.ok()) return Fail(started.status().WithContext("no --target given, starting a local server"));
    local = std::move(*started);
    cfg->load.target.host = local->host();
    cfg->load.target.port = local->port();
    cfg->load.exclusive_server = true;
    rep.server_started = true;
    rep.server_pid = local->pid();
    rep.server_note = local->Describe() + "; stopped when memstand exits";
  } else {
    rep.server_note = "given by the user (not started by memstand)";
  }
  auto before = local ? ReadProcSample(local->pid()) : Result<ProcSample>(Status::NotFound(""));
  auto result = RunLoad(cfg->load, &g_interrupt, std::move(sink));
  if (!result.ok()) return Fail(result.status());
  auto after = local ? ReadProcSample(local->pid()) : Result<ProcSample>(Status::NotFound(""));
  if (before.ok() && after.ok()) {
    rep.server_proc_known = true;
    rep.server_proc_cpu_s =
        after->user_sec + after->sys_sec - before->user_sec - before->sys_sec;
  }
  rep.options = &cfg->load;
  rep.result = &*result;
  rep.platform = Platform::Detect();
  Judge(*result, rep.server_started, &rep);
  if (!cfg->samples_path.empty()) {  // before the report, which says what it holds
    Status w = WriteSamplesCsv(cfg->samples_path, result->samples, CommandLabels(cfg->load));
    if (!w.ok()) return Fail(w);
    rep.samples_path = cfg->samples_path;
  }
  PrintTextReport(stdout, rep, cfg->quiet);
  if (hdr_log && !hdr_log->status().ok()) return Fail(hdr_log->status());
  if (!cfg->hgrm_path.empty()) {
    Status w = WriteHgrm(cfg->hgrm_path, *result);
    if (!w.ok()) return Fail(w);
  }
  if (!cfg->json_path.empty()) {
    std::ofstream f(cfg->json_path, std::ios::trunc);
    f << (cfg->json_memtier ? MemtierJson(rep) : RunReportJson(rep)).dump(2) << "\n";
    if (!f) return Fail(Status::IoError("cannot write " + cfg->json_path));
  }
  return rep.exit_code;
}

}  // namespace

SubcommandBody SetupRun(CLI::App* app) {
  auto flags = std::make_shared<RunFlags>();
  AddRunFlags(app, flags.get());
  return [app, flags] { return RunBody(*app, *flags); };
}

}  // namespace memstand::cli
