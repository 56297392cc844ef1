// A minimal epoll reactor: one per thread, level-triggered, as small as Redis's ae.h.
// Not thread-safe: owned and driven by one thread.
#pragma once

#include <sys/epoll.h>

#include <cstdint>

#include "util/status.h"

namespace memstand {

class Reactor {
 public:
  static constexpr uint32_t kReadable = EPOLLIN;
  static constexpr uint32_t kWritable = EPOLLOUT;

  Reactor();
  ~Reactor();
  Reactor(const Reactor&) = delete;
  Reactor& operator=(const Reactor&) = delete;

  Status status() const { return status_; }
  /// Registers fd for `events`; `token` comes back with every event of fd.
  Status Add(int fd, uint32_t events, uint64_t token);
  Status Modify(int fd, uint32_t events, uint64_t token);
  void Remove(int fd);
  /// Waits up to timeout_ms (-1: forever) and fills out[0..n). Returns n (0 on
  /// timeout or EINTR).
  int Wait(epoll_event* out, int max_events, int timeout_ms);
  /// The same with a timeout in nanoseconds (>= 0), for open-loop send times
  /// (epoll_pwait2; rounded up to whole milliseconds where the kernel lacks it).
  int WaitNs(epoll_event* out, int max_events, int64_t timeout_ns);

 private:
  Status Control(int op, int fd, uint32_t events, uint64_t token);

  int epfd_ = -1;
  bool have_pwait2_ = true;
  Status status_;
};

}  // namespace memstand
