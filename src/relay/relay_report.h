// The relay's counters as text: per link and direction, what passed and what the relay
// added beyond the delay it was asked for (docs/relay.md, "Report").
#pragma once

#include <string>

#include "relay/relay_options.h"
#include "relay/relay_stats.h"

namespace memstand {

/// "127.0.0.1:7000", or "[::1]:7000" for an IPv6 host.
std::string RelayEndpoint(const std::string& host, int port);

/// One line naming the links and settings, printed when the relay starts. tap_error:
/// why the segment tap asked for could not open (RelayStats::tap_error), "" when it did.
std::string DescribeRelay(const RelayOptions& options, const std::vector<int>& ports,
                          const std::string& tap_error = "");

/// The table printed when the relay stops. REQUIRES: stats from a relay of `options`.
std::string FormatRelayStats(const RelayOptions& options, const RelayStats& stats);

}  // namespace memstand
