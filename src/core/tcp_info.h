// The kernel's own count of a TCP connection's payload bytes (TCP_INFO), a second
// count beside the application's, so a byte figure can be checked against the
// socket it came from (docs/method.md rule 11).
#pragma once

#include <cstdint>

#include "util/status.h"

namespace memstand {

/// TCP payload bytes of one connection since it opened, as the kernel counts them.
struct TcpBytes {
  uint64_t received = 0;  // tcpi_bytes_received: payload bytes received in order
  uint64_t acked = 0;     // tcpi_bytes_acked: bytes sent and acknowledged; on the side
                          // that connected it counts the SYN as one byte, so compare
                          // differences over a window, never totals
};

/// TCP_INFO of `fd` (Linux 4.2+). IoError naming errno when the socket has none.
Result<TcpBytes> ReadTcpBytes(int fd);

/// Application bytes of one client connection, counted at its read() and write().
struct SocketBytes {
  uint64_t read = 0;
  uint64_t written = 0;
};

}  // namespace memstand
