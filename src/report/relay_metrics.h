// What a scrape of `memstand relay --metrics-addr` returns: the relay's own counters
// (src/relay/relay_stats.h) in Prometheus text format 0.0.4, built from the same
// pieces as `memstand run`'s page (prometheus_text.h). docs/relay.md lists the families.
#pragma once

#include <string>

#include "relay/relay_options.h"
#include "relay/relay_stats.h"

namespace memstand {

/// The process-wide facts beside the relay's counters.
struct RelayProcessMetrics {
  std::string version;         // memstand_build_info{version}
  double cpu_seconds = 0;      // user + system CPU of the relay's process
  double elapsed_seconds = 0;  // since the relay started
};

/// Families (link: 1-based index; direction: client_to_target | target_to_client):
///   memstand_relay_link_info{link,listen,target}               gauge, always 1
///   memstand_relay_delay_seconds{direction}                    gauge, configured
///   memstand_relay_connections_total{link}                     counter
///   memstand_relay_refused_total{link}                         counter
///   memstand_relay_sockets_total{link}                         counter
///   memstand_relay_nodelay_sockets_total{link}                 counter
///   memstand_relay_accept_failures_total{link}                 counter
///   memstand_relay_chunks_total{link,direction}                counter
///   memstand_relay_bytes_total{link,direction}                 counter
///   memstand_relay_in_flight_chunks_max{link,direction}        gauge
///   memstand_relay_held_bytes_max{link,direction}              gauge
///   memstand_relay_applied_delay_seconds{link,direction}       histogram
///   memstand_relay_added_delay_seconds{link,direction}         histogram
///   memstand_relay_reads_total, memstand_relay_stamped_reads_total{link,direction} counter
///   memstand_relay_read_late_seconds{link,direction}           histogram
///   memstand_relay_tap_reads_total, _tap_splits_total, _tap_fallbacks_total{link,direction}
///   memstand_relay_segment_tap                                 gauge, 1 on
///   memstand_relay_cpu_seconds_total, memstand_relay_elapsed_seconds, memstand_build_info
/// Histogram bounds: 1e-06 .. 10 s in 1-2.5-5 steps (RelayDelayBoundsNs).
/// REQUIRES: stats from a relay of `options`, whose listen ports are the bound ones.
std::string FormatRelayPrometheus(const RelayOptions& options, const RelayStats& stats,
                                  const RelayProcessMetrics& process);

}  // namespace memstand
