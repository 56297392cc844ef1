#include "core/socket.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>

#include "core/clock.h"

namespace memstand {

std::string ErrnoMessage(const std::string& what, int err) {
  return what + ": " + std::strerror(err);
}

Status SetNonBlocking(int fd, bool on) {
  int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0) return Status::IoError(ErrnoMessage("fcntl", errno));
  flags = on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
  if (fcntl(fd, F_SETFL, flags) < 0) return Status::IoError(ErrnoMessage("fcntl", errno));
  return Status::OK();
}

Status SetNoDelay(int fd) {
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0) {
    return Status::IoError(ErrnoMessage("setsockopt(TCP_NODELAY)", errno));
  }
  return Status::OK();
}

Status SetIoTimeout(int fd, int timeout_ms) {
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0) {
    return Status::IoError(ErrnoMessage("setsockopt(SO_RCVTIMEO)", errno));
  }
  return Status::OK();
}

Status FinishConnect(int fd) {
  int err = 0;
  socklen_t len = sizeof(err);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) err = errno;
  if (err != 0) return Status::IoError(ErrnoMessage("connect", err));
  return Status::OK();
}

namespace {

struct AddrInfoDeleter {
  void operator()(addrinfo* ai) const { freeaddrinfo(ai); }
};
using AddrInfoPtr = std::unique_ptr<addrinfo, AddrInfoDeleter>;

Result<AddrInfoPtr> Resolve(const std::string& host, int port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (passive) hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
  if (rc != 0) {
    return Status::InvalidArgument("cannot resolve host '" + host + "': " + gai_strerror(rc));
  }
  return AddrInfoPtr(res);
}

// Waits until fd is ready for `events` or deadline_ns passes: OK, Timeout, IoError.
Status WaitReady(int fd, short events, int64_t deadline_ns) {
  pollfd p{fd, events, 0};
  for (;;) {
    const int64_t left = deadline_ns - NowNs();
    if (left <= 0) return Status::Timeout("deadline passed");
    timespec ts{static_cast<time_t>(left / 1'000'000'000), static_cast<long>(left % 1'000'000'000)};
    const int rc = ppoll(&p, 1, &ts, nullptr);
    if (rc > 0) return Status::OK();
    if (rc < 0 && errno != EINTR) return Status::IoError(ErrnoMessage("poll", errno));
  }
}

// Waits until fd is connected (writable) for up to wait_ms; `bound_ms` names the limit.
Status WaitConnected(int fd, int wait_ms, int bound_ms) {
  Status s = WaitReady(fd, POLLOUT, NowNs() + int64_t{wait_ms} * 1'000'000);
  if (s.code() == Status::Code::kTimeout) {
    return Status::Timeout("connect timed out after " + std::to_string(bound_ms) + " ms");
  }
  return s.ok() ? FinishConnect(fd) : s;
}

}  // namespace

Result<std::vector<std::string>> ResolveNumeric(const std::string& host, int port) {
  auto ai = Resolve(host, port, false);
  if (!ai.ok()) return ai.status();
  std::vector<std::string> out;
  for (addrinfo* a = ai->get(); a != nullptr; a = a->ai_next) {
    char text[NI_MAXHOST];
    if (getnameinfo(a->ai_addr, a->ai_addrlen, text, sizeof(text), nullptr, 0, NI_NUMERICHOST) != 0) {
      continue;
    }
    if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(text);
  }
  if (out.empty()) return Status::InvalidArgument("cannot resolve host '" + host + "': no address");
  return out;
}

Result<int> ConnectTcp(const std::string& host, int port, int timeout_ms, bool blocking) {
  const int64_t deadline = NowNs() + int64_t{timeout_ms} * 1'000'000;  // for all addresses
  auto ai = Resolve(host, port, false);
  if (!ai.ok()) return ai.status();
  Status last = Status::IoError("no address for " + host);
  for (addrinfo* a = ai->get(); a != nullptr; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) {
      last = Status::IoError(ErrnoMessage("socket", errno));
      continue;
    }
    Status s = SetNoDelay(fd);
    if (s.ok() && connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
      s = Status::IoError(ErrnoMessage("connect", errno));
    }
    if (s.ok() && blocking) {
      s = WaitConnected(fd, MsUntil(deadline), timeout_ms);
      if (s.ok()) s = SetNonBlocking(fd, false);
    }
    if (s.ok()) return fd;
    close(fd);
    last = s;
  }
  return last.WithContext(host + ":" + std::to_string(port));
}

namespace {

// A Unix socket whose accept backlog is full answers connect() with EAGAIN at once, where
// TCP would wait for the SYN's retry: the connect is tried again every 100 us until
// timeout_ms passes (a burst of connections to a server that accepts them in turn).
Status ConnectUnixRetrying(int fd, const sockaddr_un& addr, int timeout_ms) {
  const int64_t deadline = NowNs() + int64_t{timeout_ms} * 1'000'000;
  for (;;) {
    if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0 ||
        errno == EINPROGRESS) {
      return Status::OK();
    }
    if (errno != EAGAIN) return Status::IoError(ErrnoMessage("connect", errno));
    if (NowNs() >= deadline) {
      return Status::Timeout("connect timed out after " + std::to_string(timeout_ms) +
                             " ms (the server's accept backlog stayed full)");
    }
    const timespec pause{0, 100'000};
    nanosleep(&pause, nullptr);
  }
}

}  // namespace

Result<int> ConnectUnix(const std::string& path, int timeout_ms, bool blocking) {
  sockaddr_un addr{};
  static_assert(sizeof(addr.sun_path) == kMaxUnixPath + 1);
  if (path.empty()) return Status::InvalidArgument("empty Unix socket path");
  if (path.size() > kMaxUnixPath) {
    return Status::InvalidArgument("Unix socket path of " + std::to_string(path.size()) +
                                   " bytes; at most " + std::to_string(kMaxUnixPath) + " fit");
  }
  addr.sun_family = AF_UNIX;
  path.copy(addr.sun_path, path.size());
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Status::IoError(ErrnoMessage("socket(AF_UNIX)", errno));
  Status s = ConnectUnixRetrying(fd, addr, timeout_ms);
  if (s.ok() && blocking) {
    s = WaitConnected(fd, timeout_ms, timeout_ms);
    if (s.ok()) s = SetNonBlocking(fd, false);
  }
  if (s.ok()) return fd;
  close(fd);
  return s.WithContext(path);
}

Result<int> ListenTcp(const std::string& host, int port, int backlog) {
  auto ai = Resolve(host, port, true);
  if (!ai.ok()) return ai.status();
  addrinfo* a = ai->get();
  int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
  if (fd < 0) return Status::IoError(ErrnoMessage("socket", errno));
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd, a->ai_addr, a->ai_addrlen) < 0) {
    int err = errno;
    close(fd);
    return Status::IoError(ErrnoMessage("bind " + host + ":" + std::to_string(port), err));
  }
  if (listen(fd, backlog) < 0) {
    int err = errno;
    close(fd);
    return Status::IoError(ErrnoMessage("listen", err));
  }
  return fd;
}

Result<int> LocalPort(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) < 0) {
    return Status::IoError(ErrnoMessage("getsockname", errno));
  }
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
}

namespace {

// The first port of the kernel's ephemeral range (net.ipv4.ip_local_port_range), where
// every outgoing connection's local port comes from; 32768, its default, when unreadable.
int EphemeralLow() {
  int low = 32768, high = 0;
  if (std::FILE* f = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")) {
    if (std::fscanf(f, "%d %d", &low, &high) != 2) low = 32768;
    std::fclose(f);
  }
  return low;
}

}  // namespace

// A port below the ephemeral range, drawn at random and bound once to see it free: a
// port the kernel hands out for bind(0) comes from the ephemeral range, where any
// connection opened meanwhile (the load's, another test's) may take it as its local
// port before the server it was picked for binds it. Below the range, only another
// listener can, and random draws make two pickers' clashes rare. Falls back to bind(0)
// when the range starts too low to leave room.
Result<int> PickFreePort(const std::string& host) {
  constexpr int kFirst = 16384;
  const int low = EphemeralLow();
  if (low - kFirst >= 4096) {
    static thread_local uint64_t state = static_cast<uint64_t>(NowNs()) ^ (static_cast<uint64_t>(getpid()) << 32);
    for (int attempt = 0; attempt < 64; ++attempt) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;  // an LCG: spread, not secrecy
      const int port = kFirst + static_cast<int>((state >> 33) % static_cast<uint64_t>(low - kFirst));
      auto fd = ListenTcp(host, port, 1);
      if (fd.ok()) {
        close(*fd);
        return port;
      }
    }
  }
  auto fd = ListenTcp(host, 0, 1);
  if (!fd.ok()) return fd.status();
  auto port = LocalPort(*fd);
  close(*fd);
  return port;
}

Status WriteAll(int fd, const char* data, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return Status::Timeout("write timed out");
      return Status::IoError(ErrnoMessage("write", errno));
    }
    data += n;
    len -= static_cast<size_t>(n);
  }
  return Status::OK();
}

Result<size_t> ReadSome(int fd, char* buf, size_t cap) {
  for (;;) {
    ssize_t n = read(fd, buf, cap);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Status::Timeout("read timed out");
    return Status::IoError(ErrnoMessage("read", errno));
  }
}

Status WriteAllBy(int fd, const char* data, size_t len, int64_t deadline_ns) {
  while (len > 0) {
    const ssize_t n = send(fd, data, len, MSG_NOSIGNAL);  // a closed peer: EPIPE, no signal
    if (n >= 0) {
      data += n;
      len -= static_cast<size_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      return Status::IoError(ErrnoMessage("write", errno));
    Status s = WaitReady(fd, POLLOUT, deadline_ns);
    if (!s.ok()) return s.code() == Status::Code::kTimeout ? Status::Timeout("write timed out") : s;
  }
  return Status::OK();
}

Result<size_t> ReadSomeBy(int fd, char* buf, size_t cap, int64_t deadline_ns) {
  for (;;) {
    const ssize_t n = read(fd, buf, cap);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      return Status::IoError(ErrnoMessage("read", errno));
    Status s = WaitReady(fd, POLLIN, deadline_ns);
    if (!s.ok()) return s.code() == Status::Code::kTimeout ? Status::Timeout("read timed out") : s;
  }
}

bool HasPendingBytes(int fd) {
  char c;
  return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

int MsUntil(int64_t deadline_ns) {
  const int64_t left = deadline_ns - NowNs();
  return left <= 0 ? 1
                   : static_cast<int>(std::min<int64_t>((left + 999'999) / 1'000'000, INT32_MAX));
}

}  // namespace memstand
