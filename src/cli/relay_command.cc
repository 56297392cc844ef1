// `memstand relay`: the latency relay (src/relay, docs/relay.md) in front of a server
// until a signal or --duration, then its counters (a table, --json, and live on
// --metrics-addr).
#include <fmt/format.h>
#include <time.h>

#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/interrupt.h"
#include "cli/subcommands.h"
#include "core/clock.h"
#include "relay/relay.h"
#include "relay/relay_report.h"
#include "report/metrics_server.h"
#include "report/relay_json.h"
#include "report/relay_metrics.h"
#include "stand/proc_stats.h"
#include "util/output_file.h"
#include "util/parse.h"

namespace memstand::cli {

namespace {

struct RelayFlags {
  std::vector<std::string> links;
  std::string delay = "0", delay_back, spin = "0", mode = "pipelined", jitter = "0", rate, duration;
  std::string metrics_addr, json, segment_tap = "on";
  uint64_t seed = 1;
  int realtime = 0;
  bool no_nodelay = false;
  CLI::Option* metrics_option = nullptr;  // given at all (an empty value is an error)
};

// What a relay command holds while it runs.
struct RelaySession {
  RelayOptions options;  // listen ports: the bound ones once the relay started
  int64_t duration_ns = 0;
  std::string metrics_host;
  int metrics_port = 0;
  std::unique_ptr<OutputFile> json;
  std::unique_ptr<Relay> relay;
  std::unique_ptr<MetricsServer> metrics;
  std::string started_at;
  std::string start_line;
  int64_t start_ns = 0;
};

void AddRelayFlags(CLI::App* app, RelayFlags* f) {
  app->add_option("--link", f->links,
                  "LISTEN_HOST:PORT=TARGET_HOST:PORT, e.g. 127.0.0.1:7000=127.0.0.1:6379 "
                  "(repeatable)")->required();
  app->add_option("--delay", f->delay, "One-way delay client -> target per chunk (20ms, 250us)")
      ->capture_default_str();
  app->add_option("--delay-back", f->delay_back, "Delay target -> client (default: --delay)");
  app->add_option("--mode", f->mode,
                  "pipelined (chunks overlap in flight) or serializing (the "
                  "stream holds while a chunk is in flight)")
      ->capture_default_str();
  app->add_option("--jitter", f->jitter,
                  "Each chunk's delay uniform in delay +- jitter, never "
                  "reordering")
      ->capture_default_str();
  app->add_option("--seed", f->seed, "Seed of the jitter")->capture_default_str()->check(WholeNumberU64());
  app->add_option("--rate", f->rate, "Bandwidth cap per direction and connection (100Mbit, 10MB)");
  app->add_flag("--no-nodelay", f->no_nodelay,
                "Leave TCP_NODELAY off: only to show the Nagle + delayed-ACK artifact");
  app->add_option("--realtime", f->realtime,
                  "Run the relay's loop on SCHED_FIFO at this priority (1..99; needs root): its timer "
                  "and sockets wake it at once on a busy machine (0: the default scheduler)")
      ->capture_default_str()
      ->check(CLI::Range(0, 99));
  app->add_option("--spin", f->spin,
                  "Wake this long before each chunk is due and poll without sleeping until it leaves "
                  "(100us): the last stretch's wake-up latency traded for CPU (at most 10ms)")
      ->capture_default_str();
  app->add_option("--segment-tap", f->segment_tap,
                  "on: split reads at the TCP segments they merged, each due from its own arrival "
                  "(a packet socket; needs CAP_NET_RAW, else the relay says so and runs without); off: "
                  "a chunk is a read")
      ->capture_default_str();
  app->add_option("--duration", f->duration, "Stop after this long (default: at SIGINT/SIGTERM)");
  f->metrics_option = app->add_option("--metrics-addr", f->metrics_addr,
                                      "Serve the relay's counters as Prometheus metrics at "
                                      "HOST:PORT, e.g. 127.0.0.1:2113");
  app->add_option("--json", f->json,
                  "Write the final counters as JSON (memstand.relay, docs/json-format.md)");
}

// A duration flag in ns, or the parser's message prefixed with the flag.
Status ParseNs(const char* flag, const std::string& text, int64_t* out) {
  auto s = ParseDurationSeconds(text);
  if (!s.ok()) return s.status().WithContext(flag);
  if (*s > 86400) return Status::InvalidArgument(std::string(flag) + ": at most 24h, got '" + text + "'");
  *out = std::llround(*s * 1e9);
  return Status::OK();
}

Status ToOptions(const RelayFlags& f, RelayOptions* o, int64_t* duration_ns) {
  for (const std::string& text : f.links) {
    auto link = ParseRelayLink(text);
    if (!link.ok()) return link.status().WithContext("--link");
    o->links.push_back(*link);
  }
  Status s = ParseNs("--delay", f.delay, &o->delay_ns);
  if (s.ok() && !f.delay_back.empty()) s = ParseNs("--delay-back", f.delay_back, &o->delay_back_ns);
  if (s.ok()) s = ParseNs("--jitter", f.jitter, &o->jitter_ns);
  if (s.ok()) s = ParseNs("--spin", f.spin, &o->spin_ns);
  if (s.ok() && o->spin_ns > 10'000'000) s = Status::InvalidArgument("--spin: at most 10ms, got '" + f.spin + "'");
  if (s.ok() && !f.duration.empty()) s = ParseNs("--duration", f.duration, duration_ns);
  if (s.ok() && !f.duration.empty() && *duration_ns <= 0) {  // 0 would mean "until a signal"
    s = Status::InvalidArgument("--duration: must be above 0, got '" + f.duration +
                                "' (leave it out to run until a signal)");
  }
  if (!s.ok()) return s;
  auto mode = ParseRelayMode(f.mode);
  if (!mode.ok()) return mode.status().WithContext("--mode");
  o->mode = *mode;
  if (!f.rate.empty()) {
    auto rate = ParseRate(f.rate);
    if (!rate.ok()) return rate.status().WithContext("--rate");
    o->rate_bytes_per_s = *rate;
  }
  auto tap = ParseOnOff(f.segment_tap);
  if (!tap.ok()) return tap.status().WithContext("--segment-tap");
  o->segment_tap = *tap;
  o->seed = f.seed;
  o->nodelay = !f.no_nodelay;
  o->realtime_priority = f.realtime;
  return Status::OK();
}

// --metrics-addr and --json, checked before the relay binds anything.
Status OpenOutputs(const RelayFlags& f, RelaySession* r) {
  if (f.metrics_option->count() > 0) {
    auto addr = ParseListenAddress(f.metrics_addr);
    if (!addr.ok()) return addr.status();
    r->metrics_host = addr->first;
    r->metrics_port = addr->second;
  }
  if (f.json.empty()) return Status::OK();
  auto opened = OutputFile::Open("--json", f.json);
  if (!opened.ok()) return opened.status();
  r->json = std::move(*opened);
  return Status::OK();
}

Status StartRelay(RelaySession* r) {
  auto relay = Relay::Start(r->options);
  if (!relay.ok()) return relay.status();  // a listen address that is busy or not ours
  r->relay = std::move(*relay);
  r->start_ns = NowNs();
  r->started_at = WallClockIso();
  std::vector<int> ports;
  for (size_t i = 0; i < r->options.links.size(); ++i) {
    ports.push_back(r->relay->listen_port(i));
    r->options.links[i].listen_port = ports.back();
  }
  const std::string tap_error = r->relay->Snapshot().tap_error;
  r->start_line = DescribeRelay(r->options, ports, tap_error);
  if (!tap_error.empty()) {
    fmt::print(stderr, "memstand relay: segment tap off: {}; each chunk is a read, as without the tap\n", tap_error);
  }
  if (r->metrics_host.empty()) return Status::OK();
  auto metrics = MetricsServer::Start(r->metrics_host, r->metrics_port, [r] {
    CpuTimes cpu = SelfCpu();
    RelayProcessMetrics p{MEMSTAND_VERSION, cpu.user_sec + cpu.sys_sec,
                          static_cast<double>(NowNs() - r->start_ns) / 1e9};
    return FormatRelayPrometheus(r->options, r->relay->Snapshot(), p);
  });
  if (!metrics.ok()) return metrics.status();
  r->metrics = std::move(*metrics);
  return Status::OK();
}

// Says once, on stderr, that a listener ran out of descriptors (the relay pauses it and
// counts each failure; the end table and --json give the count).
void WarnOnAcceptFailures(const Relay& relay, bool* warned) {
  if (*warned) return;
  const RelayStats stats = relay.Snapshot();
  for (size_t i = 0; i < stats.links.size(); ++i) {
    if (stats.links[i].accept_failures == 0) continue;
    fmt::print(stderr,
               "memstand relay: link {}: accept failed for lack of descriptors (EMFILE/ENFILE): "
               "new clients wait in the backlog, the listener pauses 100 ms per failure; raise "
               "the open-files limit (ulimit -n). Counted as accept_failures\n",
               i + 1);
    *warned = true;
    return;
  }
}

// Until a signal (true), or duration_ns (> 0) has passed (false).
bool WaitForStop(const Relay& relay, int64_t duration_ns) {
  const int64_t end = duration_ns > 0 ? NowNs() + duration_ns : INT64_MAX;
  const timespec tick{0, 10'000'000};
  bool warned = false;
  for (int i = 1; !InterruptFlag()->load() && NowNs() < end; ++i) {
    nanosleep(&tick, nullptr);
    if (i % 100 == 0) WarnOnAcceptFailures(relay, &warned);  // once a second
  }
  WarnOnAcceptFailures(relay, &warned);
  return InterruptFlag()->load();
}

Status WriteJson(RelaySession* r, const RelayStats& stats, bool by_signal) {
  if (r->json == nullptr) return Status::OK();
  CpuTimes cpu = SelfCpu();
  RelayRunInfo info;
  info.started_at = r->started_at;
  info.start_line = r->start_line.substr(0, r->start_line.size() - 1);
  info.stopped_by = by_signal ? "signal" : "duration";
  info.elapsed_s = static_cast<double>(NowNs() - r->start_ns) / 1e9;
  info.cpu_s = cpu.user_sec + cpu.sys_sec;
  info.platform = Platform::Detect();
  Status s = r->json->Write(RelayJson(r->options, stats, info).dump(2) + "\n");
  return s.ok() ? r->json->Commit() : s;
}

int RelayBody(const CLI::App& app, const RelayFlags& f) {
  RelaySession r;
  Status s = RefuseEmptyPaths(app, {{"--json", &f.json}});
  if (s.ok()) s = ToOptions(f, &r.options, &r.duration_ns);
  if (s.ok()) s = OpenOutputs(f, &r);
  if (s.ok()) InstallInterruptHandlers();
  if (s.ok()) s = StartRelay(&r);
  if (!s.ok()) {
    fmt::print(stderr, "memstand relay: {}\n", s.message());
    return kExitUsage;  // bad flags, or an address that is busy or not this machine's
  }
  fmt::print("{}", r.start_line);
  std::fflush(stdout);
  const bool by_signal = WaitForStop(*r.relay, r.duration_ns);
  if (r.metrics) r.metrics->Stop();
  r.relay->Stop();
  const RelayStats stats = r.relay->Snapshot();
  fmt::print("{}", FormatRelayStats(r.options, stats));
  std::fflush(stdout);
  s = WriteJson(&r, stats, by_signal);
  if (!s.ok()) {
    fmt::print(stderr, "memstand relay: {}\n", s.message());
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace

SubcommandBody SetupRelay(CLI::App* app) {
  auto flags = std::make_shared<RelayFlags>();
  AddRelayFlags(app, flags.get());
  return [app, flags] { return RelayBody(*app, *flags); };
}

}  // namespace memstand::cli
