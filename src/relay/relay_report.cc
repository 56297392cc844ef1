#include "relay/relay_report.h"

#include <fmt/format.h>

namespace memstand {

namespace {

std::string Us(int64_t ns) { return fmt::format("{:.1f}", static_cast<double>(ns) / 1e3); }

// A configured delay as written on the command line: "20 ms", "250 us", "0 us".
std::string Delay(int64_t ns) {
  return ns >= 1'000'000 ? fmt::format("{:g} ms", static_cast<double>(ns) / 1e6)
                         : fmt::format("{:g} us", static_cast<double>(ns) / 1e3);
}

std::string Row(const char* name, int64_t delay_ns, const RelayDirectionStats& d) {
  const HdrHistogram& a = d.applied_ns;
  const HdrHistogram& e = d.extra_ns;
  return fmt::format("  {:<15} {:>9} {:>12} {:>9} {:>10} {:>9} {:>11} {:>9} {:>9} {:>9}\n", name,
                     d.chunks, d.bytes, d.max_in_flight, d.max_held_bytes, Us(delay_ns),
                     Us(a.min()), Us(e.ValueAtPercentile(50)), Us(e.ValueAtPercentile(99)),
                     Us(e.max()));
}

}  // namespace

std::string RelayEndpoint(const std::string& host, int port) {
  return (host.find(':') == std::string::npos ? host : "[" + host + "]") + ":" +
         std::to_string(port);
}

std::string DescribeRelay(const RelayOptions& o, const std::vector<int>& ports, const std::string& tap_error) {
  std::string out = "relaying";
  for (size_t i = 0; i < o.links.size(); ++i) {
    const RelayLink& l = o.links[i];
    out += fmt::format("{} {} -> {}", i == 0 ? "" : ",", RelayEndpoint(l.listen_host, ports[i]),
                       RelayEndpoint(l.target_host, l.target_port));
  }
  out += fmt::format("; delay {}, back {}, {}", Delay(o.delay_ns), Delay(o.back_delay_ns()),
                     RelayModeName(o.mode));
  if (o.jitter_ns > 0) out += fmt::format(", jitter +-{} (seed {})", Delay(o.jitter_ns), o.seed);
  if (o.rate_bytes_per_s > 0) out += fmt::format(", rate {} bytes/s", o.rate_bytes_per_s);
  out += o.nodelay ? ", TCP_NODELAY on" : ", TCP_NODELAY OFF (Nagle demonstration only)";
  if (o.realtime_priority > 0) out += fmt::format(", SCHED_FIFO {}", o.realtime_priority);
  if (o.spin_ns > 0) out += fmt::format(", spinning the last {}", Delay(o.spin_ns));
  if (!o.segment_tap) {
    out += ", segment tap off";
  } else if (tap_error.empty()) {
    out += ", segment tap on";
  } else {
    out += fmt::format(", segment tap OFF (could not open: {}; chunks are reads)", tap_error);
  }
  return out + "\n";
}

std::string FormatRelayStats(const RelayOptions& o, const RelayStats& stats) {
  std::string out;
  for (size_t i = 0; i < stats.links.size(); ++i) {
    const RelayLink& l = o.links[i];
    const RelayLinkStats& s = stats.links[i];
    out += fmt::format(
        "link {} {} -> {}: {} connections, {} refused, {} of {} sockets with TCP_NODELAY\n", i + 1,
        RelayEndpoint(l.listen_host, l.listen_port), RelayEndpoint(l.target_host, l.target_port),
        s.connections, s.refused, s.nodelay_sockets, s.sockets);
    if (s.accept_failures > 0) {
      out += fmt::format(
          "  {} accepts failed for lack of descriptors (the listener paused 100 ms "
          "each)\n",
          s.accept_failures);
    }
    out += fmt::format("  {:<15} {:>9} {:>12} {:>9} {:>10} {:>9} {:>11} {:>9} {:>9} {:>9}\n",
                       "direction", "chunks", "bytes", "inflight", "held_max", "delay_us",
                       "applied_min", "added_p50", "added_p99", "added_max");
    out += Row("client->target", o.delay_ns, s.forward);
    out += Row("target->client", o.back_delay_ns(), s.back);
    for (auto [name, d] : {std::pair{"client->target", &s.forward}, std::pair{"target->client", &s.back}}) {
      if (d->chunks == 0) continue;
      const HdrHistogram& l = d->read_late_ns;
      out += fmt::format("  {:<15} {} of {} reads stamped by the kernel; read - arrival p50 {} p99 {} max {} us\n",
                         name, d->stamped_reads, d->reads, Us(l.ValueAtPercentile(50)), Us(l.ValueAtPercentile(99)),
                         Us(l.max()));
      if (stats.tap_on) {
        out += fmt::format("  {:<15} segment tap: {} reads split at segments, {} extra chunks, {} reads not covered\n",
                           name, d->tap_reads, d->tap_splits, d->tap_fallbacks);
      }
    }
  }
  if (stats.tap_on) {
    const SegmentTapStats& t = stats.tap;
    out += fmt::format("segment tap: {} frames, {} segments, {} SYNs, {} malformed, {} dropped by the kernel, "
                       "{} at a map's cap\n",
                       t.frames, t.segments, t.syns, t.malformed, t.kernel_drops, t.map_drops);
  }
  out += "applied_min: the least delay a chunk got (arrival to first byte sent), us; added: how much "
         "later than intended each chunk left (timer overshoot and waits for the receiver), us\n";
  return out;
}

}  // namespace memstand
