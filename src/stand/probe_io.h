// The one I/O step readiness probes share: connect, send a request, read the answer.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "util/status.h"

namespace memstand {

/// Connects to host:port, sends `request` (may be empty), and reads until
/// done(received) is true or the peer closes. Every step is bounded by timeout_ms.
/// Returns what was received; IoError/Timeout if the connection fails or nothing
/// complete arrived (the message quotes the first bytes received).
Result<std::string> Exchange(const std::string& host, int port, std::string_view request,
                             const std::function<bool(const std::string&)>& done,
                             int timeout_ms);

/// The default per-probe bound: a local server that is up answers in microseconds.
inline constexpr int kProbeTimeoutMs = 1000;

}  // namespace memstand
