#include "relay/rx_stamp.h"

#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>

namespace memstand {

namespace {

int64_t Ns(const timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1'000'000'000LL + t.tv_nsec; }

}  // namespace

bool EnableRxStamps(int fd) {
  const int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
  return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) == 0;
}

ssize_t RecvStamped(int fd, char* buf, size_t len, int flags, int64_t* stamp_ns) {
  *stamp_ns = 0;
  iovec iov{buf, len};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(scm_timestamping)) + 64];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  ssize_t n;
  do {
    n = recvmsg(fd, &msg, flags | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return n;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPING) continue;
    scm_timestamping stamps;
    std::memcpy(&stamps, CMSG_DATA(c), sizeof(stamps));
    *stamp_ns = Ns(stamps.ts[0]);  // ts[0]: the software stamp
  }
  return n;
}

int64_t RealtimeMinusMonotonicNs() {
  int64_t best_gap = INT64_MAX;
  int64_t offset = 0;
  for (int i = 0; i < 2; ++i) {
    timespec m0, r, m1;
    clock_gettime(CLOCK_MONOTONIC, &m0);
    clock_gettime(CLOCK_REALTIME, &r);
    clock_gettime(CLOCK_MONOTONIC, &m1);
    if (Ns(m1) - Ns(m0) < best_gap) {
      best_gap = Ns(m1) - Ns(m0);
      offset = Ns(r) - (Ns(m0) + (Ns(m1) - Ns(m0)) / 2);
    }
  }
  return offset;
}

}  // namespace memstand
