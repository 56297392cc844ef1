#include "report/run_report.h"

#include <unistd.h>

#include <fmt/format.h>

#include "core/cpu_set.h"
#include "report/shard_report.h"
#include "stats/modality.h"

namespace memstand {

namespace {

double PerSecond(uint64_t n, double seconds) { return seconds > 0 ? n / seconds : 0; }

std::string PercentileLabel(double p) {
  std::string s = fmt::format("p{:g}", p);
  return s;
}

double Us(int64_t ns) { return ns / 1000.0; }

void PrintBlock(std::FILE* out, int n, const std::string& title) {
  fmt::print(out, "\n[{}] {}\n", n, title);
}

void PrintTarget(std::FILE* out, const RunReport& r) {
  PrintBlock(out, 1, "Target");
  fmt::print(out, "    {} — {} {}\n", r.options->target.Display(),
             r.options->protocol == Protocol::kResp ? "redis_version" : ProtocolServer(r.options->protocol),
             r.result->server_version.empty() ? "unknown" : r.result->server_version);
  fmt::print(out, "    {}\n", r.server_note);
  if (!r.result->tls_session.empty()) {
    fmt::print(out, "    over TLS: {} (docs/tls.md; socket bytes are ciphertext)\n",
               r.result->tls_session);
  }
  if (!r.options->target.unix_path.empty()) {
    fmt::print(out, "    over a Unix socket: no TCP, so no TCP_INFO figures and no TCP_NODELAY\n");
  }
  if (r.result->pool.empty()) return;
  fmt::print(out, "    a pool of {} targets, connections by --balance {}:\n", r.result->pool.size(),
             BalanceName(r.options->balance));
  for (const PoolMemberResult& m : r.result->pool) {
    fmt::print(out, "      {:<40} {} connections\n", m.url, m.connections);
  }
}

void PrintPlatform(std::FILE* out, const RunReport& r) {
  PrintBlock(out, 2, "Platform");
  fmt::print(out, "    {}\n", r.platform.Describe());
  fmt::print(out, "    Absolute times below describe this platform, not only the server.\n");
}

std::string ValueText(const ValueSpec& v) {
  std::string size = v.min_size == v.max_size ? fmt::format("{} B", v.min_size)
                                              : fmt::format("{}-{} B", v.min_size, v.max_size);
  switch (v.content) {
    case ValueSpec::Content::kPattern: return size + " repeated pattern (highly compressible)";
    case ValueSpec::Content::kRandom: return size + " random (incompressible)";
    case ValueSpec::Content::kCompressible:
      return size + fmt::format(" compressible ~{:g}x", v.compress_ratio);
  }
  return size;
}

const char* PatternName(KeyPatternSpec::Kind k) {
  switch (k) {
    case KeyPatternSpec::Kind::kUniform: return "R";
    case KeyPatternSpec::Kind::kSequential: return "S";
    case KeyPatternSpec::Kind::kGaussian: return "G";
    case KeyPatternSpec::Kind::kZipf: return "Z";
    case KeyPatternSpec::Kind::kPartitioned: return "P";
  }
  return "?";
}

std::string LoopText(const LoadOptions& o) {
  if (o.rate <= 0) {
    return "closed loop: a connection sends its next request when a reply arrives; latency "
           "from the actual send";
  }
  const std::string per = o.schedule_per_thread
                              ? fmt::format("{:.6g} per load thread, each wake-up's requests together on one connection",
                                            o.rate / o.threads)
                              : fmt::format("{:.6g} per connection", o.rate / o.connections());
  return fmt::format(
      "open loop: {:.10g} requests/s in total ({}), {} arrivals, at most {} in "
      "flight per connection; latency from each request's intended send time (corrected "
      "for coordinated omission){}",
      o.rate, per, o.poisson ? "Poisson" : "constant", o.pipeline,
      o.spin_ns > 0 ? fmt::format("; polling the last {:g} µs before each send time (--spin)", o.spin_ns / 1e3)
                    : "");
}

// "client CPUs 1 (...)": where the load threads ran, as the kernel says.
std::string ClientCpusText(const LoadOptions& o, const RunResult& r) {
  const std::string cpus = r.totals.cpus.empty() ? "unknown" : CpuListText(r.totals.cpus);
  if (o.cpus.empty()) return "client CPUs " + cpus + " (load threads not pinned; read back from the kernel)";
  const std::string others = r.other_threads_cpus.empty()
                                 ? ""
                                 : "; memstand's other threads kept on CPUs " + CpuListText(r.other_threads_cpus);
  return fmt::format("client CPUs {} (load threads pinned one CPU each, round robin over --cpus {}{}; read back "
                     "from the kernel)", cpus, CpuListText(o.cpus), others);
}

void PrintWorkload(std::FILE* out, const RunReport& r) {
  const LoadOptions& o = *r.options;
  PrintBlock(out, 3, "Workload");
  fmt::print(out, "    {} thread(s) x {} connections x pipeline {} = {} connections, RESP{}\n",
             o.threads, o.clients, o.pipeline, o.connections(), o.resp);
  fmt::print(out, "    {}\n", ClientCpusText(o, *r.result));
  std::string length = o.requests > 0 ? fmt::format("{} requests", o.requests)
                                      : fmt::format("{:g} s", o.duration_s);
  fmt::print(out, "    length {} after {:g} s warm-up; measured {:.3f} s\n", length, o.warmup_s,
             r.result->measured_s);
  fmt::print(out, "    {}\n", LoopText(o));
  for (const auto& c : o.commands) {
    fmt::print(out, "    {:<8} weight {:<4} key pattern {}\n", c.label, c.weight,
               PatternName(c.key_pattern.kind));
  }
  fmt::print(out, "    keys {}{}..{}{}; values {}; seed {}\n", o.key_prefix, o.key_min,
             o.key_prefix, o.key_max, ValueText(o.value), o.seed);
  if (o.shard) fmt::print(out, "    {}\n", ShardNote(o));
  if (o.start_at_unix_s > 0) fmt::print(out, "    {}\n", StartNote(o, *r.result));
}

// One row of the results table; `h` is the latency histogram to show (corrected or
// service time).
void PrintRow(std::FILE* out, const std::string& name, const CommandStats& s,
              const HdrHistogram& h, double secs, const std::vector<double>& pct, bool hits) {
  fmt::print(out, "    {:<8} {:>10} {:>11.1f} {:>9} {:>9} {:>8} {:>10.1f} {:>10.1f} {:>9.1f} {:>9.1f}",
             name, s.ops, PerSecond(s.ops, secs), hits ? fmt::format("{}", s.hits) : "-",
             hits ? fmt::format("{}", s.misses) : "-", s.errors,
             PerSecond(s.bytes_out, secs) / 1024, PerSecond(s.bytes_in, secs) / 1024,
             Us(h.min()), h.mean() / 1000);
  for (double p : pct) fmt::print(out, " {:>9.1f}", Us(h.ValueAtPercentile(p)));
  fmt::print(out, " {:>10.1f}\n", Us(h.max()));
}

void PrintTableHeader(std::FILE* out, const LoadOptions& o) {
  fmt::print(out, "    {:<8} {:>10} {:>11} {:>9} {:>9} {:>8} {:>10} {:>10} {:>9} {:>9}", "Command",
             "Ops", "Ops/s", "Hits", "Misses", "Errors", "KiB/s out", "KiB/s in", "min", "mean");
  for (double p : o.percentiles) fmt::print(out, " {:>9}", PercentileLabel(p));
  fmt::print(out, " {:>10}\n", "max");
}

// The table's rows, with the latency histogram chosen by `which`.
void PrintTable(std::FILE* out, const RunReport& r, HdrHistogram CommandStats::*which) {
  const LoadOptions& o = *r.options;
  const RunResult& res = *r.result;
  PrintTableHeader(out, o);
  bool any_hits = false;
  for (size_t i = 0; i < o.commands.size(); ++i) {
    const CommandStats& s = res.totals.commands[i];
    PrintRow(out, o.commands[i].label, s, s.*which, res.measured_s, o.percentiles,
             o.commands[i].counts_hits);
    any_hits |= o.commands[i].counts_hits;
  }
  const CommandStats all = res.AllCommands();
  PrintRow(out, "Total", all, all.*which, res.measured_s, o.percentiles, any_hits);
}

void PrintSchedule(std::FILE* out, const RunReport& r) {
  const LoadOptions& o = *r.options;
  const HdrHistogram lag = r.result->AllCommands().send_lag_ns;
  fmt::print(out, "    schedule: requested {:.10g}/s, achieved {:.1f}/s{}\n", o.rate,
             AchievedRate(o, *r.result),
             RateFellShort(o, *r.result) ? " — BELOW 99% OF THE REQUESTED RATE" : "");
  if (r.result->totals.unsent_intended > 0) {
    fmt::print(out, "    ~{} requests intended before the end were never sent (the schedule fell "
               "behind); their latency is in no histogram\n", r.result->totals.unsent_intended);
  }
  fmt::print(out, "    send lag behind the intended time (µs): p50 {:.1f}, p99 {:.1f}, max {:.1f}\n",
             Us(lag.ValueAtPercentile(50)), Us(lag.ValueAtPercentile(99)), Us(lag.max()));
}

void PrintResults(std::FILE* out, const RunReport& r) {
  const bool open = r.options->rate > 0;
  PrintBlock(out, 4, open ? "Results (latency in µs from the intended send time, corrected for "
                            "coordinated omission; HDR histogram, 3 significant digits)"
                          : "Results (latency in µs, from the HDR histogram, 3 significant digits)");
  PrintTable(out, r, &CommandStats::latency_ns);
  if (!open) return;
  fmt::print(out, "\n    Service time (µs from the actual send; hides the queueing a stall causes):\n");
  PrintTable(out, r, &CommandStats::service_ns);
  PrintSchedule(out, r);
}

// Notes under the results table: latency distributions that look multimodal (a single
// percentile then lands in an arbitrary mode, docs/method.md rule 9) and the raw samples.
void PrintResultNotes(std::FILE* out, const RunReport& r) {
  bool any = false;
  for (size_t i = 0; i < r.options->commands.size(); ++i) {
    ModalityResult m = DetectModes(r.result->totals.commands[i].latency_ns);
    if (!m.multimodal) continue;
    std::string at;
    for (double v : m.mode_values) at += fmt::format("{}{:.1f}", at.empty() ? "" : ", ", v / 1000);
    fmt::print(out, "    {} latency looks multimodal: {} modes at {} µs (valley depth {:.2f}); a "
               "percentile may land in either\n", r.options->commands[i].label, m.modes, at,
               m.dip_or_score);
    any = true;
  }
  if (any) fmt::print(out, "    (modes: smoothed log-histogram peaks, src/stats/modality.h)\n");
  const RunResult& res = *r.result;
  if (!r.samples_path.empty()) {
    fmt::print(out, "    raw samples: {} of {} measured requests in {} ({})\n", res.samples.size(),
               res.samples_seen, r.samples_path,
               res.samples.size() < res.samples_seen
                   ? "a uniform reservoir: every request had the same chance to be kept"
                   : "all of them");
  }
  if (!r.options->history_path.empty() && res.failure.ok()) {
    fmt::print(out, "    history: {} operation(s), warm-up included, in {} (memstand check reads it)\n",
               res.history_records, r.options->history_path);
  }
}

// What happened to each operation, and (--reconnect, or any outage) what the faults
// cost: lost connections and the spans with no ok operation (docs/faults.md).
void PrintAvailability(std::FILE* out, const RunReport& r) {
  const RunResult& res = *r.result;
  const Availability& a = res.availability;
  const bool shown = r.options->reconnect.enabled || a.any();
  for (size_t i = 0; i < r.options->commands.size(); ++i) {
    const CommandStats& s = res.totals.commands[i];
    if (!shown && s.failed + s.unknown == 0) continue;
    fmt::print(out, "    {:<8} outcomes: ok {}, fail {}, unknown {} (no reply: {})\n",
               r.options->commands[i].label, s.ops - s.errors, s.failed, s.unknown, s.lost);
  }
  if (!shown) return;
  fmt::print(out, "    availability: connections lost {}, opened again {}, failed attempts {}\n",
             a.connections_lost, a.reconnects, a.reconnect_failures);
  if (!a.first_loss.empty()) fmt::print(out, "      first loss: {}\n", a.first_loss);
  for (size_t i = 0; i < a.commands.size() && i < r.options->commands.size(); ++i) {
    const CommandAvailability& c = a.commands[i];
    if (c.outages == 0) continue;
    const char* most = c.exact ? "" : "at most ";  // memstand merge: a shard listed only its longest
    fmt::print(out, "      {:<8} {}{} outage(s) with no ok operation, {}{:.3f} s in all; longest{}:\n",
               r.options->commands[i].label, most, c.outages, most, c.unavailable_s,
               c.exact ? "" : " listed (a shard listed only its longest)");
    for (const CommandOutage& o : c.longest) {
      fmt::print(out, "        from {:.3f} s for {:.3f} s{}: fail {}, unknown {}\n", o.start_s, o.length_s,
                 o.recovered ? "" : " (not recovered by the end)", o.failed, o.unknown);
    }
  }
  for (const SecondsOutage& s : a.seconds) {
    fmt::print(out, "      seconds {}..{} ({} s) had no ok operation{}: fail {}, unknown {}\n", s.first_second,
               s.first_second + s.seconds - 1, s.seconds, s.recovered ? "" : " (to the end)", s.failed,
               s.unknown);
  }
  if (!a.any()) fmt::print(out, "      no outage\n");
}

// A Sentinel target: the primary at the start, each change, the Sentinels asked.
void PrintSentinel(std::FILE* out, const RunReport& r) {
  const SentinelResult& s = r.result->sentinel;
  fmt::print(out, "    sentinel: primary of '{}' at the start {} ({} Sentinels); ", s.master_name, s.primary_at_start,
             s.sentinels.size());
  if (s.changes.empty()) fmt::print(out, "it did not move");
  for (size_t i = 0; i < s.changes.size(); ++i) {
    fmt::print(out, "{}moved to {} at +{:.1f} s", i == 0 ? "" : ", then ", s.changes[i].primary,
               s.changes[i].unix_s - r.result->measured_start_unix_s);
  }
  fmt::print(out, "; asked {} times ({} with no answer that held{})\n", s.queries, s.failed_queries,
             s.last_failure.empty() ? "" : "; last: " + s.last_failure);
}

void PrintErrors(std::FILE* out, const RunReport& r) {
  PrintBlock(out, 5, "Error replies by kind (counted, not fatal)");
  bool any = false;
  for (size_t i = 0; i < r.options->commands.size(); ++i) {
    for (const auto& [prefix, kind] : r.result->totals.commands[i].errors_by_prefix) {
      fmt::print(out, "    {:<8} {:<12} {:>10}  first: {}\n", r.options->commands[i].label,
                 prefix, kind.count, kind.example);
      any = true;
    }
  }
  if (!any) fmt::print(out, "    none\n");
  PrintAvailability(out, r);
  const ThreadStats& t = r.result->totals;
  fmt::print(out, "    connection failures {}, protocol errors {}, unanswered requests {}\n",
             t.connection_errors, t.protocol_errors, r.result->unanswered);
  if (r.options->target.sentinel()) PrintSentinel(out, r);
  if (r.options->cluster) {
    fmt::print(out, "    cluster: {} masters from CLUSTER SLOTS; redirections followed: MOVED {}, "
               "ASK {}; TRYAGAIN retried {} (at most 5 per request, then an error); "
               "connections opened mid-run {}\n",
               r.result->cluster_masters.size(), t.cluster_moved, t.cluster_ask, t.cluster_tryagain,
               t.cluster_connections_opened);
    if (r.result->cluster_map_reads > 0 || !r.result->cluster_refresh_failure.empty()) {
      fmt::print(out, "    cluster: slot map read again {} times during the run (a lost master, CLUSTERDOWN, "
                 "a MOVED storm: {} of them){}\n",
                 r.result->cluster_map_reads, r.result->cluster_map_reads_moved,
                 r.result->cluster_refresh_failure.empty() ? "" : "; last failure: " + r.result->cluster_refresh_failure);
    }
    if (r.options->read_from_replicas) {
      fmt::print(out, "    reads from {} replicas{}\n", r.result->cluster_replicas,
                 r.result->cluster_replicas == 0 ? " — CLUSTER SLOTS lists none: reads went to masters" : "");
    }
  }
}

std::string IoText(int64_t bytes) {
  return bytes < 0 ? "unknown" : fmt::format("{} B", bytes);
}

// Mean and max of the processes sampled every second over the run.
void PrintResources(std::FILE* out, const RunReport& r) {
  for (const ResourceSeries& s : r.resources) {
    const ResourceSummary sum = Summarize(s);
    fmt::print(out,
               "    {} (pid {}), sampled each second over {:.1f} s: CPU mean {:.0f}% max {:.0f}% "
               "of a core; RSS mean {:.1f} MiB max {:.1f} MiB; storage read {}, written {}{}\n",
               s.process.label, s.process.pid == 0 ? getpid() : s.process.pid, sum.seconds,
               sum.cpu_share_mean * 100, sum.cpu_share_max * 100, sum.rss_mean / 1048576.0,
               sum.rss_max / 1048576.0, IoText(sum.read_bytes), IoText(sum.write_bytes),
               s.ended.empty() ? "" : " (" + s.ended + " during the run)");
  }
}

void PrintInstrument(std::FILE* out, const RunReport& r) {
  const RunResult& res = *r.result;
  const ThreadStats& t = res.totals;
  uint64_t ops = res.measured_ops();
  PrintBlock(out, 6, "The instrument's own cost");
  double per_req = ops > 0 ? res.client_cpu_s() * 1e6 / ops : 0;
  fmt::print(out, "    client CPU (load threads, measured phase): {:.3f} s (user {:.3f}, sys {:.3f})"
             " = {:.3f} µs/request\n", res.client_cpu_s(), t.cpu_user_s, t.cpu_sys_s, per_req);
  for (size_t i = 0; i < res.threads.size(); ++i) {
    const ThreadStats& th = res.threads[i];
    double busy = res.measured_s > 0 ? (th.cpu_user_s + th.cpu_sys_s) / res.measured_s : 0;
    // --spin: the polls before a send time are CPU spent on purpose, not work; the
    // share left is what says whether the client keeps up.
    double spin = res.measured_s > 0 ? th.spin_s / res.measured_s : 0;
    std::string spun = r.options->spin_ns > 0
                           ? fmt::format(" ({:.0f}% of a core spent spinning before send times, --spin)", spin * 100)
                           : "";
    fmt::print(out, "    thread {}: {:.0f}% of a core{}{}{}{}\n", i, busy * 100, spun,
               th.cpus.empty() ? "" : " on CPUs " + CpuListText(th.cpus),
               th.realtime_priority > 0 ? fmt::format(", SCHED_FIFO {}", th.realtime_priority) : "",
               busy - spin >= 0.9 ? " — the client may be the bottleneck" : "");
  }
  fmt::print(out, "    memstand process CPU, whole run with set-up: {:.3f} s\n",
             res.process_cpu_user_s + res.process_cpu_sys_s);
  if (res.server_cpu_known) {
    double server = res.server_cpu_user_s + res.server_cpu_sys_s;
    fmt::print(out, "    server CPU (INFO used_cpu_user/sys delta): {:.3f} s = {:.3f} µs/request\n",
               server, ops > 0 ? server * 1e6 / ops : 0);
  }
  if (r.server_proc_known) {
    fmt::print(out, "    server CPU (/proc/{}/stat delta, 10 ms ticks): {:.2f} s = {:.3f} µs/request\n",
               r.server_pid, r.server_proc_cpu_s, ops > 0 ? r.server_proc_cpu_s * 1e6 / ops : 0);
  }
  double n = ops > 0 ? double(ops) : 1;
  if (r.options->io == IoMode::kUring) {
    fmt::print(out, "    socket I/O: io_uring; io_uring_enter calls per request {:.3f}, carrying "
               "{:.2f} receive completions and {:.2f} sends{}\n",
               t.wait_calls / n, t.read_calls / n, t.write_calls / n,
               t.receive_buffer_waits > 0
                   ? fmt::format(" ({} re-arms: receive buffers ran out)", t.receive_buffer_waits)
                   : "");
  } else {
    fmt::print(out, "    system calls per request: read {:.2f}, write {:.2f}, epoll_wait {:.2f}{}\n",
               t.read_calls / n, t.write_calls / n, t.wait_calls / n,
               r.options->io_fallback.empty() ? "" : " (--io auto: " + r.options->io_fallback + ")");
  }
  uint64_t zero = 0;
  for (const auto& c : t.commands) zero += c.zero_latency;
  fmt::print(out, "    clock: resolution {} ns; zero-length durations {} of {} ({:.3f}%){}\n",
             r.platform.clock_resolution_ns, zero, ops, ops ? 100.0 * zero / ops : 0.0,
             ops && zero * 100 > ops ? " — ABOVE 1%: latencies are not trustworthy" : "");
  fmt::print(out, "    socket bytes: written {}, read {}\n", t.socket_bytes_written,
             t.socket_bytes_read);
  PrintResources(out, r);
}

// A pool: the server column split by member (the rows above are their sums).
void PrintPoolCounts(std::FILE* out, const RunReport& r) {
  for (const PoolMemberResult& m : r.result->pool) {
    std::string counts;
    for (const auto& [name, n] : m.server_counts) counts += fmt::format(" {} {}", name, n);
    fmt::print(out, "    on {}:{}\n", m.url, counts.empty() ? " none" : counts);
  }
}

void PrintCrossCheck(std::FILE* out, const RunReport& r) {
  const CrossCheck& cc = r.result->cross_check;
  static constexpr const char* kSources[] = {
      "INFO commandstats", "memcached stats", "box.stat()", "etcd revision (one per applied write)"};
  PrintBlock(out, 7, std::string("Cross-check with the server's ") +
                         kSources[static_cast<int>(r.options->protocol)]);
  if (!cc.available) {
    fmt::print(out, "    not available: {}\n", cc.unavailable_reason);
    return;
  }
  if (cc.server_restarted) {
    fmt::print(out, "    the server restarted during the run: what was sent since the last lost "
               "connection, against the new server's counts\n");
  }
  fmt::print(out, "    {:<16} {:>12} {:>12}\n", "command", "memstand", "server");
  for (const auto& row : cc.rows) {
    const bool within = row.server <= row.memstand && row.server >= row.memstand - row.unknown;
    fmt::print(out, "    {:<16} {:>12} {:>12}  {}\n", row.command, row.memstand, row.server,
               row.memstand == row.server ? "ok"
               : within ? fmt::format("ok ({} lost in flight: each may or may not have run)", row.unknown)
                        : std::string("MISMATCH"));
  }
  PrintPoolCounts(out, r);
  if (cc.mismatch) {
    fmt::print(out, "    {}\n", cc.enforced ? "counts differ: the run fails (exclusive server)"
                                            : "counts differ: other clients may use this server");
  }
}

}  // namespace

double AchievedRate(const LoadOptions& o, const RunResult& r) {
  if (o.rate <= 0) return 0;
  return r.totals.measured_sent / (r.send_span_s + 1 / o.rate);
}

bool RateFellShort(const LoadOptions& o, const RunResult& r) {
  return o.rate > 0 && AchievedRate(o, r) < kRateShortfall * o.rate;
}

void PrintTextReport(std::FILE* out, const RunReport& r, bool quiet) {
  fmt::print(out, "memstand {} run, {}\n", MEMSTAND_VERSION, r.result->started_at);
  if (!quiet) {
    PrintTarget(out, r);
    PrintPlatform(out, r);
    PrintWorkload(out, r);
  }
  PrintResults(out, r);
  if (!quiet) PrintResultNotes(out, r);
  if (!quiet) {
    PrintErrors(out, r);
    PrintInstrument(out, r);
    PrintCrossCheck(out, r);
    PrintBlock(out, 8, "Validity of the statistics (docs/method.md, Validity)");
    PrintValidity(out, r.validity);
  }
  PrintBlock(out, 9, "Verdict");
  for (const auto& w : r.warnings) fmt::print(out, "    warning: {}\n", w);
  fmt::print(out, "    {} (exit {}); statistics {}\n", r.verdict, r.exit_code, r.validity.Verdict());
  std::fflush(out);
}

}  // namespace memstand
