// The kernel's receive time of the bytes a TCP read returns (SO_TIMESTAMPING, software
// RX stamps, Linux): when the data entered the socket, not when the relay's thread got
// to read it. What the kernel gives on TCP (rx_stamp_test.cc): one stamp per read, that
// of the last arrival merged into the queued data. TCP coalesces a new segment into the
// tail of the receive queue when it can and the merged buffer takes the newer stamp, so
// arrivals that waited in the socket together come out under the latest one: the stamp
// says when the last of the bytes read arrived, never where one arrival ended.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace memstand {

/// Asks for software RX stamps on fd; false when the kernel refuses.
bool EnableRxStamps(int fd);

/// recvmsg(fd, buf, len, flags | MSG_DONTWAIT); *stamp_ns is the kernel's receive stamp
/// of the bytes returned (CLOCK_REALTIME ns), 0 when the read carried none (no stamps
/// enabled, EOF, an error). Returns what recv returns (-1 with errno on error).
ssize_t RecvStamped(int fd, char* buf, size_t len, int flags, int64_t* stamp_ns);

/// CLOCK_REALTIME - CLOCK_MONOTONIC in ns, the two read back to back (the pair with the
/// smaller gap of two tries): turns a receive stamp into core/clock.h NowNs() time.
int64_t RealtimeMinusMonotonicNs();

}  // namespace memstand
