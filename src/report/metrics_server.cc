#include "report/metrics_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <vector>

#include "core/socket.h"

namespace memstand {
namespace {

constexpr size_t kMaxRequestBytes = 16 * 1024;  // a scrape's request head is < 1 KiB
constexpr size_t kMaxConnections = 32;          // Prometheus keeps one; more waits in backlog
constexpr auto kIdleTimeout = std::chrono::seconds(10);  // drops clients that send nothing

using Clock = std::chrono::steady_clock;

Status AddressError(std::string_view text, const std::string& problem) {
  return Status::InvalidArgument("--metrics-addr: '" + std::string(text) + "': " + problem +
                                 " (expected host:port, e.g. 127.0.0.1:2112 or [::1]:2112)");
}

Result<int> ParsePort(std::string_view text, std::string_view port_text) {
  if (port_text.empty()) return AddressError(text, "missing port");
  int port = 0;
  for (char c : port_text) {
    if (c < '0' || c > '9') return AddressError(text, "port is not a number");
    port = port * 10 + (c - '0');
    if (port > 65535) break;
  }
  if (port < 1 || port > 65535) return AddressError(text, "port must be 1..65535");
  return port;
}

// "host:port", or "[host]:port" when host is an IPv6 literal.
std::string HostPort(const std::string& host, int port) {
  bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// ListenTcp's error without its "bind host:port: " prefix (our message names both).
std::string ListenFailure(const Status& s, const std::string& host, int port) {
  std::string prefix = "bind " + host + ":" + std::to_string(port) + ": ";
  const std::string& m = s.message();
  return m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m;
}

std::string Response(std::string_view status, std::string_view content_type,
                     const std::string& body, bool head_only, std::string_view extra_headers = "") {
  std::string r = "HTTP/1.1 ";
  r += status;
  r += "\r\nContent-Type: ";
  r += content_type;
  r += "\r\nContent-Length: " + std::to_string(body.size());
  r += "\r\nConnection: close\r\n";
  r += extra_headers;
  r += "\r\n";
  if (!head_only) r += body;
  return r;
}

std::string PlainError(std::string_view status, std::string_view extra_headers = "") {
  return Response(status, "text/plain; charset=utf-8", std::string(status) + "\n", false,
                  extra_headers);
}

// The whole response to one request head (request line and headers, no body).
std::string HandleRequest(std::string_view head, const std::function<std::string()>& render) {
  std::string_view line = head.substr(0, head.find("\r\n"));
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos ||
      line.substr(sp2 + 1).substr(0, 7) != "HTTP/1.") {
    return PlainError("400 Bad Request");
  }
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view path = target.substr(0, target.find('?'));
  if (method != "GET" && method != "HEAD") {
    return PlainError("405 Method Not Allowed", "Allow: GET, HEAD\r\n");
  }
  if (path != "/metrics") return PlainError("404 Not Found");
  return Response("200 OK", "text/plain; version=0.0.4; charset=utf-8", render(), method == "HEAD");
}

// A connection reads one request head, writes the response, then shuts down its
// sending side and discards what the client still sends until it closes (closing
// with unread data would reset the connection and could lose the response).
struct Connection {
  enum class Phase { kReading, kWriting, kDraining };
  explicit Connection(int accepted_fd) : fd(accepted_fd), last_activity(Clock::now()) {}
  int fd;
  Clock::time_point last_activity;
  Phase phase = Phase::kReading;
  std::string in;
  std::string out;
  size_t sent = 0;
};

// recv() into buf: bytes read, 0 at EOF, -1 if nothing is there yet, -2 on error.
ssize_t Receive(int fd, char* buf, size_t cap) {
  ssize_t n;
  do {
    n = recv(fd, buf, cap, 0);
  } while (n < 0 && errno == EINTR);
  if (n >= 0) return n;
  return errno == EAGAIN || errno == EWOULDBLOCK ? -1 : -2;
}

// Sends what the socket takes. False when the connection failed.
bool SendResponse(Connection* c) {
  while (c->sent < c->out.size()) {
    ssize_t n = send(c->fd, c->out.data() + c->sent, c->out.size() - c->sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
    c->sent += static_cast<size_t>(n);
  }
  shutdown(c->fd, SHUT_WR);
  c->phase = Connection::Phase::kDraining;
  return true;
}

// Reads what arrived; builds the response once the request head is complete.
// False when the connection is done.
bool ReadRequest(Connection* c, const std::function<std::string()>& render) {
  char buf[4096];
  ssize_t n = Receive(c->fd, buf, sizeof(buf));
  if (n == -1) return true;
  if (n <= 0) return false;
  c->in.append(buf, static_cast<size_t>(n));
  size_t end = c->in.find("\r\n\r\n");
  if (end != std::string::npos) {
    c->out = HandleRequest(std::string_view(c->in).substr(0, end), render);
  } else if (c->in.size() > kMaxRequestBytes) {
    c->out = PlainError("431 Request Header Fields Too Large");
  } else {
    return true;
  }
  c->phase = Connection::Phase::kWriting;
  return SendResponse(c);
}

// Discards input after the response. False once the client has closed.
bool Drain(Connection* c) {
  char buf[4096];
  ssize_t n = Receive(c->fd, buf, sizeof(buf));
  return n > 0 || n == -1;
}

// Advances c on readiness. False when the connection is done.
bool Service(Connection* c, const std::function<std::string()>& render) {
  switch (c->phase) {
    case Connection::Phase::kReading:
      return ReadRequest(c, render);
    case Connection::Phase::kWriting:
      return SendResponse(c);
    case Connection::Phase::kDraining:
      return Drain(c);
  }
  return false;
}

// Accepts every pending connection while there is room.
void AcceptAll(int listen_fd, std::vector<Connection>* conns) {
  while (conns->size() < kMaxConnections) {
    int fd = accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // EAGAIN, or out of fds: try again on the next readiness
    }
    conns->emplace_back(fd);
  }
}

void CloseIdle(std::vector<Connection>* conns) {
  Clock::time_point now = Clock::now();
  for (size_t i = conns->size(); i-- > 0;) {
    if (now - (*conns)[i].last_activity >= kIdleTimeout) {
      close((*conns)[i].fd);
      conns->erase(conns->begin() + static_cast<long>(i));
    }
  }
}

}  // namespace

Result<std::pair<std::string, int>> ParseListenAddress(std::string_view text) {
  std::string_view host, port_text;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string_view::npos) return AddressError(text, "missing ']'");
    host = text.substr(1, close - 1);
    std::string_view rest = text.substr(close + 1);
    if (rest.empty() || rest.front() != ':') return AddressError(text, "missing ':port'");
    port_text = rest.substr(1);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return AddressError(text, "missing ':port'");
    host = text.substr(0, colon);
    if (host.find(':') != std::string_view::npos) {
      return AddressError(text, "an IPv6 address needs brackets");
    }
    port_text = text.substr(colon + 1);
  }
  if (host.empty()) return AddressError(text, "missing host (0.0.0.0 for every interface)");
  auto port = ParsePort(text, port_text);
  if (!port.ok()) return port.status();
  return std::make_pair(std::string(host), *port);
}

Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(const std::string& host, int port,
                                                            std::function<std::string()> render) {
  auto listen_fd = ListenTcp(host, port, 64);
  if (!listen_fd.ok()) {
    return Status::InvalidArgument("--metrics-addr: cannot listen on " + HostPort(host, port) +
                                   ": " + ListenFailure(listen_fd.status(), host, port));
  }
  auto bound = LocalPort(*listen_fd);
  Status s = bound.ok() ? SetNonBlocking(*listen_fd, true) : bound.status();
  int wake[2] = {-1, -1};
  if (s.ok() && pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0) {
    s = Status::IoError(ErrnoMessage("pipe2", errno));
  }
  if (!s.ok()) {
    close(*listen_fd);
    return s.WithContext("--metrics-addr");
  }
  std::unique_ptr<MetricsServer> server(
      new MetricsServer(*listen_fd, wake[0], wake[1], *bound, std::move(render)));
  server->thread_ = std::thread(&MetricsServer::Loop, server.get());
  return server;
}

MetricsServer::MetricsServer(int listen_fd, int wake_read_fd, int wake_write_fd, int port,
                             std::function<std::string()> render)
    : listen_fd_(listen_fd),
      wake_read_fd_(wake_read_fd),
      wake_write_fd_(wake_write_fd),
      port_(port),
      render_(std::move(render)) {}

MetricsServer::~MetricsServer() { Stop(); }

void MetricsServer::Stop() {
  if (!thread_.joinable()) return;
  char byte = 1;
  while (write(wake_write_fd_, &byte, 1) < 0 && errno == EINTR) {
  }
  thread_.join();
  close(listen_fd_);
  close(wake_read_fd_);
  close(wake_write_fd_);
}

void MetricsServer::Loop() {
  std::vector<Connection> conns;
  std::vector<pollfd> fds;
  for (;;) {
    fds.assign({{wake_read_fd_, POLLIN, 0},
                {listen_fd_, static_cast<short>(conns.size() < kMaxConnections ? POLLIN : 0), 0}});
    for (const Connection& c : conns) {
      bool writing = c.phase == Connection::Phase::kWriting;
      fds.push_back({c.fd, static_cast<short>(writing ? POLLOUT : POLLIN), 0});
    }
    int timeout_ms = conns.empty() ? -1 : 1000;
    int rc = poll(fds.data(), fds.size(), timeout_ms);
    if (rc < 0 && errno != EINTR) break;  // cannot happen with valid fds; stop serving
    if (rc < 0) continue;
    if (fds[0].revents != 0) break;
    for (size_t i = conns.size(); i-- > 0;) {
      Connection& c = conns[i];
      if (fds[i + 2].revents == 0) continue;
      c.last_activity = Clock::now();
      if (!Service(&c, render_)) {
        close(c.fd);
        conns.erase(conns.begin() + static_cast<long>(i));
      }
    }
    CloseIdle(&conns);
    if (fds[1].revents != 0) AcceptAll(listen_fd_, &conns);
  }
  for (const Connection& c : conns) close(c.fd);
}

}  // namespace memstand
