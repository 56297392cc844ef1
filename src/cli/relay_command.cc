// `memstand relay`: the latency relay (src/relay, docs/relay.md) in front of a server
// until a signal or --duration, then its counters.
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
#include "util/parse.h"

namespace memstand::cli {

namespace {

struct RelayFlags {
  std::vector<std::string> links;
  std::string delay = "0", delay_back, mode = "pipelined", jitter = "0", rate, duration;
  uint64_t seed = 1;
  bool no_nodelay = false;
};

void AddRelayFlags(CLI::App* app, RelayFlags* f) {
  app->add_option("--link", f->links,
                  "LISTEN_HOST:PORT=TARGET_HOST:PORT, e.g. 127.0.0.1:7000=127.0.0.1:6379 "
                  "(repeatable)")->required();
  app->add_option("--delay", f->delay, "One-way delay client -> target per chunk (20ms, 250us)")
      ->capture_default_str();
  app->add_option("--delay-back", f->delay_back, "Delay target -> client (default: --delay)");
  app->add_option("--mode", f->mode, "pipelined (chunks overlap in flight) or serializing (the "
                                     "stream holds while a chunk is in flight)")
      ->capture_default_str();
  app->add_option("--jitter", f->jitter, "Each chunk's delay uniform in delay +- jitter, never "
                                         "reordering")->capture_default_str();
  app->add_option("--seed", f->seed, "Seed of the jitter")->capture_default_str();
  app->add_option("--rate", f->rate, "Bandwidth cap per direction and connection (100Mbit, 10MB)");
  app->add_flag("--no-nodelay", f->no_nodelay,
                "Leave TCP_NODELAY off: only to show the Nagle + delayed-ACK artifact");
  app->add_option("--duration", f->duration, "Stop after this long (default: at SIGINT/SIGTERM)");
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
  if (s.ok() && !f.duration.empty()) s = ParseNs("--duration", f.duration, duration_ns);
  if (!s.ok()) return s;
  auto mode = ParseRelayMode(f.mode);
  if (!mode.ok()) return mode.status().WithContext("--mode");
  o->mode = *mode;
  if (!f.rate.empty()) {
    auto rate = ParseRate(f.rate);
    if (!rate.ok()) return rate.status().WithContext("--rate");
    o->rate_bytes_per_s = *rate;
  }
  o->seed = f.seed;
  o->nodelay = !f.no_nodelay;
  return Status::OK();
}

// Until a signal, or duration_ns (> 0) has passed.
void WaitForStop(int64_t duration_ns) {
  const int64_t end = duration_ns > 0 ? NowNs() + duration_ns : INT64_MAX;
  const timespec tick{0, 10'000'000};
  while (!InterruptFlag()->load() && NowNs() < end) nanosleep(&tick, nullptr);
}

int RelayBody(const RelayFlags& f) {
  RelayOptions options;
  int64_t duration_ns = 0;
  Status s = ToOptions(f, &options, &duration_ns);
  if (!s.ok()) {
    fmt::print(stderr, "memstand relay: {}\n", s.message());
    return kExitUsage;
  }
  InstallInterruptHandlers();
  auto relay = Relay::Start(options);
  if (!relay.ok()) {
    fmt::print(stderr, "memstand relay: {}\n", relay.status().message());
    return kExitUsage;  // a listen address that is busy or not this machine's
  }
  std::vector<int> ports;
  for (size_t i = 0; i < options.links.size(); ++i) ports.push_back((*relay)->listen_port(i));
  fmt::print("{}", DescribeRelay(options, ports));
  std::fflush(stdout);
  WaitForStop(duration_ns);
  (*relay)->Stop();
  for (size_t i = 0; i < options.links.size(); ++i) options.links[i].listen_port = ports[i];
  fmt::print("{}", FormatRelayStats(options, (*relay)->Snapshot()));
  return kExitOk;
}

}  // namespace

SubcommandBody SetupRelay(CLI::App* app) {
  auto flags = std::make_shared<RelayFlags>();
  AddRelayFlags(app, flags.get());
  return [flags] { return RelayBody(*flags); };
}

}  // namespace memstand::cli
