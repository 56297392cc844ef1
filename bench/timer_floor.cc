// timer_floor: how late this machine wakes a thread that asked to wake at an absolute
// time, with nothing else to do: the floor under the relay's "added" delay at a nonzero
// --delay (docs/relay.md). Two ways, N times each, with the thread's timer slack at 1 ns
// as the relay sets it:
//   sleep    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)
//   timerfd  a timerfd at the absolute time, waited for in epoll_wait (the relay's loop)
// Prints one line each: N, overshoot (woken minus due) min / p50 / p99 / max in us.
//
// Usage: timer_floor [--delay-us 1000] [--count 2000]
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/clock.h"

namespace {

using memstand::NowNs;

timespec At(int64_t ns) {
  return {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

void Report(const char* how, std::vector<int64_t> late) {
  std::sort(late.begin(), late.end());
  const size_t n = late.size();
  std::printf("%-8s N=%zu overshoot_us min %.1f p50 %.1f p99 %.1f max %.1f\n", how, n,
              late[0] / 1e3, late[n / 2] / 1e3, late[n * 99 / 100] / 1e3, late[n - 1] / 1e3);
}

std::vector<int64_t> Sleeps(int64_t delay_ns, int count) {
  std::vector<int64_t> late;
  for (int i = 0; i < count; ++i) {
    const int64_t due = NowNs() + delay_ns;
    const timespec t = At(due);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nullptr) != 0) {
    }
    late.push_back(NowNs() - due);
  }
  return late;
}

std::vector<int64_t> TimerFd(int64_t delay_ns, int count) {
  const int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
  std::vector<int64_t> late;
  for (int i = 0; i < count; ++i) {
    const int64_t due = NowNs() + delay_ns;
    itimerspec spec{};
    spec.it_value = At(due);
    timerfd_settime(tfd, TFD_TIMER_ABSTIME, &spec, nullptr);
    epoll_event out;
    while (epoll_wait(ep, &out, 1, -1) != 1) {
    }
    uint64_t expirations;
    (void)!read(tfd, &expirations, sizeof(expirations));
    late.push_back(NowNs() - due);
  }
  close(ep);
  close(tfd);
  return late;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t delay_us = 1000;
  int count = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--delay-us") == 0)
      delay_us = std::atoll(argv[i + 1]);
    else if (std::strcmp(argv[i], "--count") == 0)
      count = std::atoi(argv[i + 1]);
  }
  if (delay_us < 1 || count < 1 || argc % 2 == 0) {
    std::fprintf(stderr, "usage: timer_floor [--delay-us 1000] [--count 2000]\n");
    return 2;
  }
  prctl(PR_SET_TIMERSLACK, 1UL);
  Report("sleep", Sleeps(delay_us * 1000, count));
  Report("timerfd", TimerFd(delay_us * 1000, count));
  return 0;
}
