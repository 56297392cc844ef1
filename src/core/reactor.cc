#include "core/reactor.h"

#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "core/socket.h"

namespace memstand {

Reactor::Reactor() {
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epfd_ < 0) status_ = Status::IoError(ErrnoMessage("epoll_create1", errno));
}

Reactor::~Reactor() {
  if (epfd_ >= 0) close(epfd_);
}

Status Reactor::Add(int fd, uint32_t events, uint64_t token) {
  return Control(EPOLL_CTL_ADD, fd, events, token);
}

Status Reactor::Modify(int fd, uint32_t events, uint64_t token) {
  return Control(EPOLL_CTL_MOD, fd, events, token);
}

Status Reactor::Control(int op, int fd, uint32_t events, uint64_t token) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = token;
  if (epoll_ctl(epfd_, op, fd, &ev) < 0) {
    return Status::IoError(ErrnoMessage(op == EPOLL_CTL_ADD ? "epoll_ctl(ADD)" : "epoll_ctl(MOD)", errno));
  }
  return Status::OK();
}

void Reactor::Remove(int fd) { epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr); }

int Reactor::Wait(epoll_event* out, int max_events, int timeout_ms) {
  int n = epoll_wait(epfd_, out, max_events, timeout_ms);
  return n < 0 ? 0 : n;
}

int Reactor::WaitNs(epoll_event* out, int max_events, int64_t timeout_ns) {
  if (have_pwait2_) {
    timespec ts{static_cast<time_t>(timeout_ns / 1'000'000'000),
                static_cast<long>(timeout_ns % 1'000'000'000)};
    int n = epoll_pwait2(epfd_, out, max_events, &ts, nullptr);
    if (n >= 0) return n;
    if (errno != ENOSYS) return 0;
    have_pwait2_ = false;
  }
  return Wait(out, max_events, static_cast<int>((timeout_ns + 999'999) / 1'000'000));
}

}  // namespace memstand
