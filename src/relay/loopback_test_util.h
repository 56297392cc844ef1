// Test helper (header only, for the *_test.cc of this folder): what makes TCP merge two
// writes in a receive queue on loopback, shared by rx_stamp_test.cc and
// segment_tap_test.cc.
#pragma once

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace memstand::relay_test {

/// Sends s from `sender`, then waits (bounded, 5 s) until `receiver` holds `total` bytes
/// and the sender saw every byte acknowledged: the sender's copy is freed, so the receive
/// queue holds the only one (a buffer still shared with the sender is not coalesced into),
/// and TCP may merge the next arrival into it. A fatal failure otherwise.
inline void SendAndSettle(int sender, int receiver, const std::string& s, int total) {
  ASSERT_EQ(send(sender, s.data(), s.size(), MSG_NOSIGNAL), static_cast<ssize_t>(s.size()));
  for (int i = 0; i < 5000; ++i) {
    int available = 0;
    ioctl(receiver, FIONREAD, &available);
    tcp_info info{};
    socklen_t len = sizeof(info);
    getsockopt(sender, IPPROTO_TCP, TCP_INFO, &info, &len);
    if (available == total && info.tcpi_unacked == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  FAIL() << "the receiver did not get " << total << " bytes acknowledged within 5 s";
}

}  // namespace memstand::relay_test
