#include "report/relay_metrics.h"

#include <string_view>

#include "relay/relay_report.h"
#include "report/prometheus_text.h"

namespace memstand {
namespace {

constexpr const char* kForward = "client_to_target";
constexpr const char* kBack = "target_to_client";

std::string LinkLabel(size_t i) { return PromLabel("link", std::to_string(i + 1)); }

std::string DirectionLabels(size_t i, const char* direction) {
  return LinkLabel(i) + "," + PromLabel("direction", direction);
}

// One counter family labelled by link, from one field of RelayLinkStats.
void AppendLinkCounter(std::string* out, const RelayStats& s, std::string_view name,
                       std::string_view help, int64_t RelayLinkStats::*field) {
  AppendPromHeader(out, name, "counter", help);
  for (size_t i = 0; i < s.links.size(); ++i) {
    AppendPromSample(out, name, LinkLabel(i), std::to_string(s.links[i].*field));
  }
}

// One family labelled by link and direction, from one field of RelayDirectionStats.
void AppendDirectionValue(std::string* out, const RelayStats& s, std::string_view name,
                          std::string_view type, std::string_view help,
                          int64_t RelayDirectionStats::*field) {
  AppendPromHeader(out, name, type, help);
  for (size_t i = 0; i < s.links.size(); ++i) {
    AppendPromSample(out, name, DirectionLabels(i, kForward),
                     std::to_string(s.links[i].forward.*field));
    AppendPromSample(out, name, DirectionLabels(i, kBack), std::to_string(s.links[i].back.*field));
  }
}

void AppendDirectionHistogram(std::string* out, const RelayStats& s, std::string_view name,
                              std::string_view help, HdrHistogram RelayDirectionStats::*field) {
  AppendPromHeader(out, name, "histogram", help);
  for (size_t i = 0; i < s.links.size(); ++i) {
    AppendPromHistogram(out, name, DirectionLabels(i, kForward), s.links[i].forward.*field,
                        RelayDelayBoundsNs());
    AppendPromHistogram(out, name, DirectionLabels(i, kBack), s.links[i].back.*field,
                        RelayDelayBoundsNs());
  }
}

void AppendSettings(std::string* out, const RelayOptions& o) {
  AppendPromHeader(out, "memstand_relay_link_info", "gauge",
                   "A link of the relay: where it listens and what it connects to; always 1.");
  for (size_t i = 0; i < o.links.size(); ++i) {
    const RelayLink& l = o.links[i];
    AppendPromSample(out, "memstand_relay_link_info",
                     LinkLabel(i) + "," +
                         PromLabel("listen", RelayEndpoint(l.listen_host, l.listen_port)) + "," +
                         PromLabel("target", RelayEndpoint(l.target_host, l.target_port)),
                     "1");
  }
  AppendPromHeader(out, "memstand_relay_delay_seconds", "gauge",
                   "The configured one-way delay per chunk, by direction.");
  AppendPromSample(out, "memstand_relay_delay_seconds", PromLabel("direction", kForward),
                   PromDouble(static_cast<double>(o.delay_ns) / 1e9));
  AppendPromSample(out, "memstand_relay_delay_seconds", PromLabel("direction", kBack),
                   PromDouble(static_cast<double>(o.back_delay_ns()) / 1e9));
}

void AppendScalar(std::string* out, std::string_view name, std::string_view type,
                  std::string_view help, double value) {
  AppendPromHeader(out, name, type, help);
  AppendPromSample(out, name, "", PromDouble(value));
}

}  // namespace

std::string FormatRelayPrometheus(const RelayOptions& o, const RelayStats& s,
                                  const RelayProcessMetrics& p) {
  std::string out;
  AppendSettings(&out, o);
  AppendLinkCounter(&out, s, "memstand_relay_connections_total", "Clients accepted, by link.",
                    &RelayLinkStats::connections);
  AppendLinkCounter(&out, s, "memstand_relay_refused_total",
                    "Clients closed because the target could not be reached, by link.",
                    &RelayLinkStats::refused);
  AppendLinkCounter(&out, s, "memstand_relay_sockets_total",
                    "Sockets the relay opened (accepted and connected), by link.",
                    &RelayLinkStats::sockets);
  AppendLinkCounter(&out, s, "memstand_relay_nodelay_sockets_total",
                    "Sockets that read back TCP_NODELAY on, by link.",
                    &RelayLinkStats::nodelay_sockets);
  AppendLinkCounter(&out, s, "memstand_relay_accept_failures_total",
                    "accept() calls that failed for lack of descriptors or memory, by link.",
                    &RelayLinkStats::accept_failures);
  AppendDirectionValue(&out, s, "memstand_relay_chunks_total", "counter",
                       "Chunks (reads) relayed, by link and direction.",
                       &RelayDirectionStats::chunks);
  AppendDirectionValue(&out, s, "memstand_relay_bytes_total", "counter",
                       "Bytes read to relay, by link and direction.", &RelayDirectionStats::bytes);
  AppendDirectionValue(&out, s, "memstand_relay_in_flight_chunks_max", "gauge",
                       "The most chunks of one connection in flight at once.",
                       &RelayDirectionStats::max_in_flight);
  AppendDirectionValue(&out, s, "memstand_relay_held_bytes_max", "gauge",
                       "The most bytes one connection held (read, not yet sent).",
                       &RelayDirectionStats::max_held_bytes);
  AppendDirectionHistogram(&out, s, "memstand_relay_applied_delay_seconds",
                           "Per chunk: first byte sent minus read time.",
                           &RelayDirectionStats::applied_ns);
  AppendDirectionHistogram(&out, s, "memstand_relay_added_delay_seconds",
                           "Per chunk: first byte sent minus intended leave time (the relay's "
                           "own error).",
                           &RelayDirectionStats::extra_ns);
  AppendDirectionValue(&out, s, "memstand_relay_reads_total", "counter",
                       "Reads that returned bytes, by link and direction.", &RelayDirectionStats::reads);
  AppendDirectionValue(&out, s, "memstand_relay_stamped_reads_total", "counter",
                       "Reads that carried the kernel's receive stamp, by link and direction.",
                       &RelayDirectionStats::stamped_reads);
  AppendDirectionHistogram(&out, s, "memstand_relay_read_late_seconds",
                           "Per stamped read: read time minus the arrival of its last byte (the "
                           "relay's wake-up, not in the delay).",
                           &RelayDirectionStats::read_late_ns);
  AppendDirectionValue(&out, s, "memstand_relay_tap_reads_total", "counter",
                       "Reads the segment tap's map covered (split at segment boundaries).",
                       &RelayDirectionStats::tap_reads);
  AppendDirectionValue(&out, s, "memstand_relay_tap_splits_total", "counter",
                       "Chunks made beyond one per read by the segment tap's split.",
                       &RelayDirectionStats::tap_splits);
  AppendDirectionValue(&out, s, "memstand_relay_tap_fallbacks_total", "counter",
                       "Reads with bytes the segment tap did not cover (due from the read's stamp).",
                       &RelayDirectionStats::tap_fallbacks);
  AppendScalar(&out, "memstand_relay_segment_tap", "gauge",
               "1 when the segment tap runs, 0 when off or it could not open.", s.tap_on ? 1 : 0);
  AppendScalar(&out, "memstand_relay_cpu_seconds_total", "counter",
               "User plus system CPU time of the relay process.", p.cpu_seconds);
  AppendScalar(&out, "memstand_relay_elapsed_seconds", "gauge", "Time since the relay started.",
               p.elapsed_seconds);
  AppendPromHeader(&out, "memstand_build_info", "gauge", "The memstand version; always 1.");
  AppendPromSample(&out, "memstand_build_info", PromLabel("version", p.version), "1");
  return out;
}

}  // namespace memstand
