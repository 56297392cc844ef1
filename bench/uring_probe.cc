// uring_probe: does batching system calls across connections with io_uring lower a
// client's CPU per request on this kernel? One closed-loop RESP client, written twice
// over the same workload, so that only the I/O path differs:
//
//   --mode epoll  the pattern of memstand's worker: level-triggered epoll, one read()
//                 per readable connection, the refills of one wake-up written at its
//                 end with one write() per connection;
//   --mode uring  memstand's own io_uring (core/uring.h, what `run --io uring` uses): a
//                 multishot recv per connection into provided buffers, the refills
//                 queued as sends, one io_uring_enter per wake-up for all of them.
//
// Each connection keeps --pipeline SET requests (100-byte value) in flight and sends one
// more per "+OK" until --requests replies have come back (plus a --warmup that is not
// measured). Prints one line: mode, requests, seconds, requests/s, user and system
// CPU-seconds and CPU-µs per request (getrusage over the measured phase), and the number
// of system calls the client made in it (counted by the probe itself: every read, write,
// epoll_wait and io_uring_enter). bench/README.md has the figures and the verdict.
//
// Usage: uring_probe --port P [--host 127.0.0.1] --mode epoll|uring [--conns 50]
//                    [--pipeline 1] [--requests 1000000] [--warmup 100000]
// Talks to bench/null_resp_server (or any server that answers SET with "+OK\r\n").
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/socket.h"
#include "core/uring.h"

namespace memstand {
namespace {

constexpr std::string_view kReply = "+OK\r\n";

struct Options {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string mode;
  int conns = 50;
  int pipeline = 1;
  uint64_t requests = 1'000'000;
  uint64_t warmup = 100'000;
};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "uring_probe: %s\n", what.c_str());
  std::exit(1);
}

// What both modes share: the request bytes, the connections, the reply count and the
// measured phase.
class Probe {
 public:
  explicit Probe(const Options& o) : opt_(o) {
    std::string value(100, 'x');
    std::string one = "*3\r\n$3\r\nSET\r\n$10\r\nkey:000001\r\n$100\r\n" + value + "\r\n";
    request_size_ = one.size();
    for (int i = 0; i < o.pipeline; ++i) requests_ += one;  // the most one send can carry
    for (int i = 0; i < o.conns; ++i) {
      Result<int> fd = ConnectTcp(o.host, o.port, 2000, /*blocking=*/true);
      if (!fd.ok()) Die(fd.status().message());
      if (Status s = SetNoDelay(*fd); !s.ok()) Die(s.message());
      if (Status s = SetNonBlocking(*fd, true); !s.ok()) Die(s.message());
      fds_.push_back(*fd);
    }
    partial_.assign(o.conns, 0);
    total_ = o.warmup + o.requests;
  }
  ~Probe() {
    for (int fd : fds_) close(fd);
  }

  // Replies in `n` more bytes of connection i ("+OK\r\n" each); starts and ends the
  // measured phase; returns how many requests the connection may send in their place.
  uint64_t OnBytes(int i, size_t n) {
    partial_[i] += n;
    uint64_t replies = partial_[i] / kReply.size();
    partial_[i] %= kReply.size();
    answered_ += replies;
    if (!measuring_ && answered_ >= opt_.warmup) StartMeasuring();
    uint64_t refill = 0;
    if (sent_ < total_) refill = std::min<uint64_t>(replies, total_ - sent_);
    sent_ += refill;
    return refill;
  }
  // The first `pipeline` requests of every connection (what starts the closed loop).
  uint64_t Initial() {
    uint64_t n = std::min<uint64_t>(opt_.pipeline, total_ - sent_);
    sent_ += n;
    return n;
  }
  bool Done() const { return answered_ >= total_; }
  void CountSyscall() { syscalls_ += measuring_; }

  void Report(const char* mode) const {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    double user = Seconds(ru.ru_utime) - user0_, sys = Seconds(ru.ru_stime) - sys0_;
    double wall = static_cast<double>(NowNs() - start_ns_) / 1e9;
    uint64_t n = answered_ - answered0_;
    std::printf("mode=%s conns=%d pipeline=%d requests=%llu seconds=%.3f rps=%.0f user=%.3f "
                "sys=%.3f cpu_us_per_req=%.4f syscalls_per_req=%.4f\n",
                mode, opt_.conns, opt_.pipeline, static_cast<unsigned long long>(n), wall,
                n / wall, user, sys, (user + sys) * 1e6 / n, static_cast<double>(syscalls_) / n);
  }

  const std::vector<int>& fds() const { return fds_; }
  const char* request_bytes() const { return requests_.data(); }
  size_t request_size() const { return request_size_; }
  const Options& opt() const { return opt_; }

 private:
  static double Seconds(const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; }
  void StartMeasuring() {
    measuring_ = true;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    user0_ = Seconds(ru.ru_utime);
    sys0_ = Seconds(ru.ru_stime);
    start_ns_ = NowNs();
    answered0_ = answered_;
  }

  const Options opt_;
  std::string requests_;
  size_t request_size_ = 0;
  std::vector<int> fds_;
  std::vector<size_t> partial_;  // bytes of a reply split across reads, by connection
  uint64_t total_ = 0, sent_ = 0, answered_ = 0, answered0_ = 0, syscalls_ = 0;
  bool measuring_ = false;
  double user0_ = 0, sys0_ = 0;
  int64_t start_ns_ = 0;
};

// memstand's worker pattern over epoll.
void RunEpoll(Probe& p) {
  const auto& fds = p.fds();
  int ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) Die(ErrnoMessage("epoll_create1", errno));
  for (size_t i = 0; i < fds.size(); ++i) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) != 0) Die(ErrnoMessage("epoll_ctl", errno));
  }
  std::vector<uint64_t> refill(fds.size(), 0);
  std::vector<int> queued;
  auto write_all = [&](int i, uint64_t n) {
    size_t len = n * p.request_size();
    p.CountSyscall();
    ssize_t w = write(fds[i], p.request_bytes(), len);
    if (w != static_cast<ssize_t>(len)) Die(ErrnoMessage("short or failed write", errno));
  };
  for (size_t i = 0; i < fds.size(); ++i) write_all(i, p.Initial());
  std::vector<char> buf(256 * 1024);
  epoll_event events[256];
  while (!p.Done()) {
    p.CountSyscall();
    int n = epoll_wait(ep, events, 256, 1000);
    if (n < 0 && errno != EINTR) Die(ErrnoMessage("epoll_wait", errno));
    for (int e = 0; e < n; ++e) {
      int i = static_cast<int>(events[e].data.u64);
      p.CountSyscall();
      ssize_t r = read(fds[i], buf.data(), buf.size());
      if (r == 0) Die("the server closed a connection");
      if (r < 0) {
        if (errno == EAGAIN) continue;
        Die(ErrnoMessage("read", errno));
      }
      uint64_t k = p.OnBytes(i, static_cast<size_t>(r));
      if (k != 0 && refill[i]++ == 0) queued.push_back(i);
      refill[i] += k - (k != 0);
    }
    for (int i : queued) {
      write_all(i, refill[i]);
      refill[i] = 0;
    }
    queued.clear();
  }
  close(ep);
  p.Report("epoll");
}

// The same over io_uring, through memstand's own ring (core/uring.h): multishot
// receives into provided buffers, the refills of a wake-up queued as sends, one
// io_uring_enter per wake-up.
void RunUring(Probe& p) {
  const auto& fds = p.fds();
  Result<std::unique_ptr<Uring>> made = Uring::Create(fds.size());
  if (!made.ok()) Die(made.status().message());
  Uring& ring = **made;
  std::vector<uint64_t> pending(fds.size(), 0);  // requests due, not yet in a send
  std::vector<size_t> sending(fds.size(), 0);    // bytes of the send in flight (0: none)
  std::vector<size_t> ready;                     // connections with requests due
  // One send per connection at a time, so that its bytes cannot be reordered; what comes
  // due meanwhile waits in `pending` (the request bytes are constant, any prefix works).
  auto send = [&](size_t i) {
    if (sending[i] != 0 || pending[i] == 0) return;
    sending[i] = pending[i] * p.request_size();
    pending[i] = 0;
    ring.Send(fds[i], p.request_bytes(), sending[i], static_cast<uint32_t>(i));
  };
  for (size_t i = 0; i < fds.size(); ++i) {
    ring.ArmRecv(fds[i], static_cast<uint32_t>(i));
    pending[i] = p.Initial();
    send(i);
  }
  std::vector<Uring::Completion> got;
  while (!p.Done()) {
    p.CountSyscall();
    if (Status s = ring.Wait(1'000'000'000, &got); !s.ok()) Die(s.message());
    for (const Uring::Completion& c : got) {
      const size_t i = c.token;
      if (c.kind == Uring::Completion::Kind::kSend) {
        if (c.result != static_cast<int>(sending[i])) Die(ErrnoMessage("short or failed send", -c.result));
        sending[i] = 0;
        if (pending[i] != 0) ready.push_back(i);
        continue;
      }
      if (c.result == -ENOBUFS) Die("out of provided receive buffers");
      if (c.result < 0) Die(ErrnoMessage("recv", -c.result));
      if (c.result == 0) Die("the server closed a connection");
      if (!c.more) ring.ArmRecv(fds[i], c.token);  // the multishot ended: re-arm
      uint64_t k = p.OnBytes(static_cast<int>(i), static_cast<size_t>(c.result));
      if (k != 0 && pending[i] == 0 && sending[i] == 0) ready.push_back(i);
      pending[i] += k;
    }
    for (size_t i : ready) send(i);
    ready.clear();
  }
  p.Report("uring");
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (i + 1 >= argc) Die(std::string(a) + " needs a value");
    std::string_view v = argv[++i];
    auto num = [&](int64_t lo, int64_t hi) {
      int64_t n = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || end != v.data() + v.size() || n < lo || n > hi) {
        Die(std::string(a) + " takes a number from " + std::to_string(lo) + " to " +
            std::to_string(hi) + ", got '" + std::string(v) + "'");
      }
      return n;
    };
    if (a == "--host") o.host = v;
    else if (a == "--port") o.port = static_cast<int>(num(1, 65535));
    else if (a == "--mode") o.mode = v;
    else if (a == "--conns") o.conns = static_cast<int>(num(1, 10000));
    else if (a == "--pipeline") o.pipeline = static_cast<int>(num(1, 1024));
    else if (a == "--requests") o.requests = num(1, INT64_MAX / 2);
    else if (a == "--warmup") o.warmup = num(0, INT64_MAX / 2);
    else Die("unknown option " + std::string(a));
  }
  if (o.port == 0) Die("--port is required");
  if (o.mode != "epoll" && o.mode != "uring") Die("--mode takes epoll or uring");
  return o;
}

}  // namespace
}  // namespace memstand

int main(int argc, char** argv) {
  memstand::Options o = memstand::ParseArgs(argc, argv);
  memstand::Probe probe(o);
  if (o.mode == "epoll") {
    memstand::RunEpoll(probe);
  } else {
    memstand::RunUring(probe);
  }
  return 0;
}
