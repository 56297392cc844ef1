#include "cli/run_session.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/interrupt.h"
#include "cli/live_metrics.h"
#include "cli/progress_line.h"
#include "core/cpu_set.h"
#include "report/metrics_server.h"
#include "report/samples_csv.h"
#include "report/shard_report.h"
#include "stand/local_redis.h"
#include "stand/local_server.h"
#include "stand/proc_stats.h"
#include "stand/resource_sampler.h"
#include "stats/hdr_log.h"
#include "util/output_file.h"
#include "util/redact.h"

namespace memstand::cli {

namespace {

// The --hdr-log writer: per second, WriteCommandsInterval's lines (an untagged one of
// all commands, a tagged one per command), into the output's temporary file. A second
// is written once the next one arrives or its run ends, so that the last one gets its
// true length (the measured phase rarely ends on a whole second).
class HdrLogSink {
 public:
  static Result<std::unique_ptr<HdrLogSink>> Open(std::unique_ptr<OutputFile> file,
                                                  const LoadOptions& options) {
    auto sink = std::unique_ptr<HdrLogSink>(new HdrLogSink(std::move(file), options));
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    sink->Check(sink->writer_.WriteHeader(static_cast<double>(now.tv_sec) + now.tv_nsec / 1e9));
    if (!sink->status_.ok()) return Status::InvalidArgument(sink->status_.message());
    return sink;
  }
  void Write(int second, const std::vector<CommandStats>& commands) {
    Flush(1.0);
    pending_second_ = second;
    pending_ = commands;
  }
  /// The run whose seconds start at `offset` measured `measured_s`: its last second is
  /// written with the length it really had.
  void EndRun(int offset, double measured_s) {
    if (pending_second_ < 0) return;
    const double length = measured_s - (pending_second_ - offset);
    Flush(length > 0 && length < 1.0 ? length : 1.0);
  }
  Status Finish() {
    Flush(1.0);
    return status_.ok() ? file_->Commit() : status_;
  }

 private:
  HdrLogSink(std::unique_ptr<OutputFile> f, const LoadOptions& options)
      : file_(std::move(f)), writer_(file_->stream()), options_(options) {}
  void Check(const Status& s) {
    if (s.code() == Status::Code::kIoError) {
      status_ = file_->Error(errno);  // errno of the failed write, with flag and path
    } else if (!s.ok()) {
      status_ = s;
    }
  }
  void Flush(double length_s) {
    if (pending_second_ < 0) return;
    std::vector<std::string> labels;
    std::vector<const HdrHistogram*> histograms;
    for (size_t i = 0; i < pending_.size(); ++i) {
      labels.push_back(options_.commands[i].label);
      histograms.push_back(&pending_[i].latency_ns);
    }
    if (status_.ok() && !histograms.empty()) {
      Check(WriteCommandsInterval(&writer_, labels, pending_second_, length_s, histograms));
    }
    pending_second_ = -1;
    pending_.clear();
  }
  std::unique_ptr<OutputFile> file_;
  HdrLogWriter writer_;
  const LoadOptions& options_;  // the command labels (the same in every run)
  Status status_;
  int pending_second_ = -1;          // the second not yet written, or -1
  std::vector<CommandStats> pending_;
};

// Prepares the output of `flag` at `path`; null (and OK) when not given.
Status OpenOutput(const char* flag, const std::string& path, std::unique_ptr<OutputFile>* out) {
  if (path.empty()) return Status::OK();
  auto opened = OutputFile::Open(flag, path);
  if (!opened.ok()) return opened.status();
  *out = std::move(*opened);
  return Status::OK();
}

Status WriteWhole(OutputFile* out, const std::string& text) {
  if (out == nullptr) return Status::OK();
  Status s = out->Write(text);
  return s.ok() ? out->Commit() : s;
}

// Seconds of the measured phase that the run's series covers.
int SeriesSeconds(const RunResult& r) {
  int seconds = 0;
  for (const auto& s : r.series) {
    for (const auto& p : s) seconds = std::max(seconds, p.second + 1);
  }
  return seconds;
}

void Judge(const RunResult& r, bool server_started, bool strict, RunReport* rep) {
  rep->validity = AssessRun(*rep->options, r);
  const CrossCheck& cc = r.cross_check;
  bool counts_complete = r.failure.ok() && r.unanswered == 0;
  uint64_t zero = 0;
  for (const auto& c : r.totals.commands) zero += c.zero_latency;
  if (zero * 100 > r.measured_ops() && r.measured_ops() > 0) {
    rep->warnings.push_back("more than 1% of latencies measured 0 ns: the clock is too coarse");
  }
  for (const auto& t : r.threads) {
    // --spin's polls are CPU spent on purpose, not work the thread could not keep up with.
    if (r.measured_s > 0 && (t.cpu_user_s + t.cpu_sys_s - t.spin_s) / r.measured_s >= 0.9) {
      rep->warnings.push_back("a load thread used >= 90% of a core: the client may be the bottleneck");
      break;
    }
  }
  if (RateFellShort(*rep->options, r)) {
    rep->warnings.push_back(fmt::format(
        "achieved {:.1f} requests/s, below 99% of --rate {:.10g}: the client or the server could "
        "not keep the schedule (see the send lag)", AchievedRate(*rep->options, r),
        rep->options->rate));
  }
  for (const PoolMemberResult& m : r.pool) {
    if (m.connections > 0) continue;
    rep->warnings.push_back(fmt::format(
        "{} of the pool gets no connection (--threads x --clients = {} connections, --balance {} "
        "over {} targets)", m.url, rep->options->connections(), BalanceName(rep->options->balance),
        r.pool.size()));
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
  if (strict && rep->exit_code == kExitOk && rep->validity.suspect()) {
    rep->exit_code = kExitFailed;
    std::string reasons;
    for (const auto& reason : rep->validity.Reasons()) reasons += (reasons.empty() ? "" : "; ") + reason;
    rep->verdict = "FAILED (--strict): the statistics are suspect: " + reasons;
  }
  if (cc.available && cc.mismatch && rep->exit_code == kExitOk) {
    rep->warnings.push_back(ShardNote(*rep->options).empty()
                                ? "command counts differ from the server's (another client?)"
                                : "command counts differ from the server's: other shards share "
                                  "it (memstand merge checks the fleet's)");
  }
  if (!StartNote(*rep->options, r).empty() && r.series_start_unix_s > rep->options->start_at_unix_s) {
    rep->warnings.push_back(StartNote(*rep->options, r));
  }
}

}  // namespace

int Fail(const char* subcommand, const Status& s) {
  fmt::print(stderr, "memstand {}: {}\n", subcommand, RedactSecrets(s.message()));
  return s.code() == Status::Code::kInvalidArgument ? kExitUsage : kExitFailed;
}

struct RunSession::Outputs {
  std::unique_ptr<OutputFile> json, samples, hgrm;
  std::unique_ptr<HdrLogSink> hdr_log;
  std::unique_ptr<LiveMetrics> live;
  std::unique_ptr<MetricsServer> metrics;
  std::unique_ptr<ProgressLine> progress;
  std::unique_ptr<LocalRedis> local;
  std::unique_ptr<LocalServer> local_other;  // --protocol memcache|iproto|etcd, no target
};

RunSession::RunSession() : out_(std::make_unique<Outputs>()) {}

RunSession::~RunSession() = default;

Status RunSession::OpenOutputs(const RunConfig& cfg) {
  Status s = CheckDistinctOutputs({{"--json", cfg.json_path},
                                   {"--samples", cfg.samples_path},
                                   {"--hdr-log", cfg.hdr_log_path},
                                   {"--hgrm", cfg.hgrm_path},
                                   {"--history", cfg.load.history_path}});
  if (s.ok()) s = OpenOutput("--json", cfg.json_path, &out_->json);
  if (s.ok()) s = OpenOutput("--samples", cfg.samples_path, &out_->samples);
  if (s.ok()) s = OpenOutput("--hgrm", cfg.hgrm_path, &out_->hgrm);
  std::unique_ptr<OutputFile> hdr_log;
  if (s.ok()) s = OpenOutput("--hdr-log", cfg.hdr_log_path, &hdr_log);
  if (!s.ok() || hdr_log == nullptr) return s;
  auto sink = HdrLogSink::Open(std::move(hdr_log), cfg.load);
  if (!sink.ok()) return sink.status();
  out_->hdr_log = std::move(*sink);
  return Status::OK();
}

Result<std::unique_ptr<RunSession>> RunSession::Open(RunConfig* cfg) {
  auto session = std::unique_ptr<RunSession>(new RunSession());
  session->strict_ = cfg->strict;
  Status s = session->OpenOutputs(*cfg);
  if (!s.ok()) return s;
  Outputs& out = *session->out_;
  if (!cfg->metrics_host.empty()) {
    out.live = std::make_unique<LiveMetrics>(cfg->load);
    auto started = MetricsServer::Start(cfg->metrics_host, cfg->metrics_port,
                                        [l = out.live.get()] { return l->Render(); });
    if (!started.ok()) return started.status();
    out.metrics = std::move(*started);
  }
  out.progress = ProgressLine::IfTerminal(stderr, cfg->quiet);  // off the report's stream
  InstallInterruptHandlers();
  s = session->StartLocalServer(cfg);
  if (!s.ok()) return s;
  session->platform_ = Platform::Detect();
  return session;
}

Status RunSession::StartLocalServer(RunConfig* cfg) {
  if (cfg->servers_by_caller) {
    server_note_ = "started by the sweep for each point";
    return Status::OK();
  }
  if (cfg->target_given) {
    server_note_ = "given by the user (not started by memstand)";
    return Status::OK();
  }
  if (cfg->load.protocol != Protocol::kResp) return StartLocalOther(cfg);
  LocalRedisOptions lo;
  lo.binary = cfg->redis_server;
  auto started = LocalRedis::Start(lo);
  if (!started.ok()) return started.status().WithContext("no --target given, starting a local server");
  out_->local = std::move(*started);
  cfg->load.target.host = out_->local->host();
  cfg->load.target.port = out_->local->port();
  cfg->load.exclusive_server = true;
  server_note_ = out_->local->Describe() + "; stopped when memstand exits";
  servers_ = {{"redis-server", out_->local->pid()}};
  return Status::OK();
}

Status RunSession::StartLocalOther(RunConfig* cfg) {
  const Protocol p = cfg->load.protocol;
  const char* kind = p == Protocol::kMemcache ? "memcached" : p == Protocol::kEtcd ? "etcd" : "tarantool";
  auto started = LocalServer::Start(kind, "");
  if (!started.ok()) {
    return started.status().WithContext(std::string("no --target given, starting a local ") + kind);
  }
  out_->local_other = std::move(*started);
  cfg->load.target.host = out_->local_other->host();
  cfg->load.target.port = out_->local_other->port();
  cfg->load.exclusive_server = true;
  server_note_ = out_->local_other->Describe() + "; stopped when memstand exits";
  servers_ = {{out_->local_other->program(), out_->local_other->pid()}};
  return Status::OK();
}

IntervalSink RunSession::Sink() {
  return [o = out_.get(), offset = second_offset_](int second,
                                                   const std::vector<CommandStats>& commands) {
    if (o->hdr_log != nullptr) o->hdr_log->Write(offset + second, commands);
    if (o->live != nullptr) o->live->OnSecond(offset + second, commands);
    if (o->progress != nullptr) o->progress->OnSecond(second, commands);
  };
}

Result<std::unique_ptr<MeasuredRun>> RunSession::Measure(const LoadOptions& options,
                                                         const std::string& label) {
  auto run = std::make_unique<MeasuredRun>();
  run->options = options;
  const bool local = !servers_.empty();
  if (out_->progress) out_->progress->Begin(run->options, label);
  std::vector<WatchedProcess> watched = servers_;
  watched.push_back({"memstand", 0});
  // --cpus: the resource sampler with the run's other threads, off the load threads'
  // CPUs (RunResult::other_threads_cpus); until the sampler has stopped.
  std::optional<ScopedThreadCpus> apart;
  ConfineOutside(run->options.cpus, &apart);
  auto sampler = ResourceSampler::Start(watched);
  // The servers' CPU over the run, summed: known only when every one was read both times.
  auto cpu_of_servers = [this]() -> std::optional<double> {
    double sum = 0;
    for (const WatchedProcess& w : servers_) {
      auto s = ReadProcSample(w.pid);
      if (!s.ok()) return std::nullopt;
      sum += s->user_sec + s->sys_sec;
    }
    return sum;
  };
  const std::optional<double> before = local ? cpu_of_servers() : std::nullopt;
  auto result = RunLoad(run->options, InterruptFlag(), Sink());
  const std::optional<double> after = local ? cpu_of_servers() : std::nullopt;
  if (sampler.ok()) run->report.resources = (*sampler)->Stop();
  if (out_->progress) out_->progress->Clear();
  if (!result.ok()) return result.status();
  run->result = std::move(*result);
  if (out_->hdr_log != nullptr) out_->hdr_log->EndRun(second_offset_, run->result.measured_s);
  second_offset_ += SeriesSeconds(run->result);
  RunReport& rep = run->report;
  rep.options = &run->options;
  rep.result = &run->result;
  rep.platform = platform_;
  rep.server_started = local;
  rep.server_pid = local ? servers_.front().pid : 0;
  rep.server_note = server_note_;
  if (before && after) {
    rep.server_proc_known = true;
    rep.server_proc_cpu_s = *after - *before;
  }
  Judge(run->result, rep.server_started, strict_, &rep);
  return run;
}

void RunSession::UseServers(std::vector<WatchedProcess> servers, std::string note) {
  servers_ = std::move(servers);
  server_note_ = std::move(note);
}

bool RunSession::interrupted() const { return InterruptFlag()->load(); }

void RunSession::LingerMetrics(const RunConfig& cfg) {
  if (out_->metrics == nullptr || cfg.metrics_linger_s <= 0 || interrupted()) return;
  std::fflush(stdout);  // the report first, also into a pipe
  if (!cfg.quiet) {
    fmt::print(stderr,
               "memstand: the run is over; /metrics on port {} keeps its final totals for "
               "{:g} s (--metrics-linger; Ctrl-C ends it)\n",
               out_->metrics->port(), cfg.metrics_linger_s);
  }
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::duration<double>(cfg.metrics_linger_s);
  while (!interrupted() && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Status RunSession::WriteSamples(const std::vector<Sample>& samples,
                                const std::vector<std::string>& labels) {
  if (out_->samples == nullptr) return Status::OK();
  Status s = WriteSamplesCsv(out_->samples.get(), samples, labels);
  return s.ok() ? out_->samples->Commit() : s;
}

Status RunSession::WriteHgrm(const HdrHistogram& h) {
  return WriteWhole(out_->hgrm.get(), FormatHgrm(h, kNanosPerMilli));
}

Status RunSession::WriteJson(const nlohmann::ordered_json& j) {
  return WriteWhole(out_->json.get(), j.dump(2) + "\n");
}

Status RunSession::FinishHdrLog() {
  return out_->hdr_log ? out_->hdr_log->Finish() : Status::OK();
}

}  // namespace memstand::cli
