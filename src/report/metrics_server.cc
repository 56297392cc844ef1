#include "report/metrics_server.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <list>
#include <optional>

#include "core/reactor.h"
#include "core/socket.h"

namespace memstand {
namespace {

constexpr size_t kMaxRequestBytes = 16 * 1024;  // a scrape's request head is < 1 KiB
constexpr int kListenBacklog = 1024;  // a burst of connections waits for accept, not refused
constexpr auto kAcceptPause = std::chrono::milliseconds(100);  // out of descriptors: retry
constexpr int kMaxEvents = 64;

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
  std::string_view line = head.substr(0, head.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
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
// with unread data would reset the connection and could lose the response). Each of
// the two stages ends at a deadline set when it starts.
struct Connection {
  enum class Phase { kReading, kWriting, kDraining };
  int fd;
  Clock::time_point deadline;
  Phase phase = Phase::kReading;
  uint32_t events = Reactor::kReadable;  // what the reactor watches for
  std::string in;
  std::string out;
  size_t sent = 0;
  std::list<Connection>::iterator self;  // its place in the list that holds it
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

// Sends what the socket takes; once all is sent, shuts down the sending side and
// drains. False when the connection failed.
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

// The offset of the '\n' that ends the request head (an empty line after a line end:
// "\n\n" or "\n\r\n", so CRLF, bare LF and a mix of both), searching new bytes from
// `from` on; npos while the head is incomplete.
size_t HeadEnd(std::string_view in, size_t from) {
  for (size_t i = in.find('\n', from); i != std::string_view::npos; i = in.find('\n', i + 1)) {
    if (i >= 1 && in[i - 1] == '\n') return i;
    if (i >= 2 && in[i - 1] == '\r' && in[i - 2] == '\n') return i;
  }
  return std::string_view::npos;
}

// Reads what arrived; sets c->out once the request head is complete (or too large).
// False when the connection is done.
bool ReadRequest(Connection* c, const std::function<std::string()>& render) {
  char buf[4096];
  ssize_t n = Receive(c->fd, buf, sizeof(buf));
  if (n == -1) return true;
  if (n <= 0) return false;
  size_t scanned = c->in.size();
  c->in.append(buf, static_cast<size_t>(n));
  size_t end = HeadEnd(c->in, scanned);
  if (end != std::string::npos) {
    c->out = HandleRequest(std::string_view(c->in).substr(0, end), render);
  } else if (c->in.size() > kMaxRequestBytes) {
    c->out = PlainError("431 Request Header Fields Too Large");
  }
  return true;
}

// Discards input after the response. False once the client has closed.
bool Drain(Connection* c) {
  char buf[4096];
  ssize_t n = Receive(c->fd, buf, sizeof(buf));
  return n > 0 || n == -1;
}

// The soft RLIMIT_NOFILE, or a large number where it is unlimited or unknown.
size_t FileLimit() {
  rlimit lim;
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
  return static_cast<size_t>(lim.rlim_cur);
}

}  // namespace

// The server thread's state. Connections sit in two lists, those reading their
// request and those answered (writing or draining); a list's deadlines are its
// members' stage starts plus one fixed span, so each list is in deadline order and its
// front expires first. Init() runs before the server thread starts, Run() on it, and
// the destructor (which closes every descriptor) after it has joined.
class MetricsServer::Loop {
 public:
  Loop(int listen_fd, int wake_read_fd, std::function<std::string()> render,
       MetricsServerOptions options)
      : listen_fd_(listen_fd),
        wake_read_fd_(wake_read_fd),
        render_(std::move(render)),
        options_(options) {}
  ~Loop();
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  /// Registers the listening and wake descriptors.
  Status Init();
  /// Serves until the wake descriptor becomes readable.
  void Run();

 private:
  using List = std::list<Connection>;
  static constexpr uint64_t kWakeToken = 0;
  static constexpr uint64_t kListenToken = 1;  // connections' tokens are their addresses

  void AcceptAll();
  void Add(int fd);
  void Advance(Connection* c);
  void Answer(Connection* c);
  void Send(Connection* c);
  void Close(Connection* c);
  void CloseOldest();
  void CloseExpired(Clock::time_point now);
  void ResumeAcceptingAt(Clock::time_point now);
  int WaitMs(Clock::time_point now) const;
  List* ListOf(Connection* c) {
    return c->phase == Connection::Phase::kReading ? &reading_ : &answered_;
  }

  int listen_fd_;
  int wake_read_fd_;
  std::function<std::string()> render_;
  MetricsServerOptions options_;
  Reactor reactor_;
  List reading_;
  List answered_;
  std::optional<Clock::time_point> accept_paused_until_;  // out of descriptors
};

MetricsServer::Loop::~Loop() {
  for (List* list : {&reading_, &answered_}) {
    for (const Connection& c : *list) close(c.fd);
  }
  close(listen_fd_);
  close(wake_read_fd_);
}

Status MetricsServer::Loop::Init() {
  Status s = reactor_.status();
  if (s.ok()) s = reactor_.Add(wake_read_fd_, Reactor::kReadable, kWakeToken);
  if (s.ok()) s = reactor_.Add(listen_fd_, Reactor::kReadable, kListenToken);
  return s;
}

void MetricsServer::Loop::Run() {
  epoll_event events[kMaxEvents];
  for (;;) {
    int n = reactor_.Wait(events, kMaxEvents, WaitMs(Clock::now()));
    bool accept = false;
    for (int i = 0; i < n; ++i) {
      uint64_t token = events[i].data.u64;
      if (token == kWakeToken) return;
      if (token == kListenToken) {
        accept = true;
      } else {
        Advance(reinterpret_cast<Connection*>(token));
      }
    }
    // After the batch: accepting may close a connection that has an event in it.
    if (accept) AcceptAll();
    Clock::time_point now = Clock::now();
    CloseExpired(now);
    ResumeAcceptingAt(now);
  }
}

// Accepts every pending connection; a full table closes its oldest connection for each.
void MetricsServer::Loop::AcceptAll() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      if (reading_.size() + answered_.size() >= options_.max_connections) CloseOldest();
      Add(fd);
      continue;
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      // Out of descriptors (or memory): the pending connection stays in the backlog and
      // the listener would be readable at once; stop watching it for a while.
      reactor_.Modify(listen_fd_, 0, kListenToken);
      accept_paused_until_ = Clock::now() + kAcceptPause;
    }
    return;
  }
}

void MetricsServer::Loop::Add(int fd) {
  Connection& c = reading_.emplace_back();
  c.fd = fd;
  c.deadline = Clock::now() + options_.request_deadline;
  c.self = std::prev(reading_.end());
  if (!reactor_.Add(fd, c.events, reinterpret_cast<uint64_t>(&c)).ok()) Close(&c);
}

// Advances c on readiness; closes it when it is done or failed.
void MetricsServer::Loop::Advance(Connection* c) {
  switch (c->phase) {
    case Connection::Phase::kReading:
      if (!ReadRequest(c, render_)) return Close(c);
      if (!c->out.empty()) Answer(c);
      return;
    case Connection::Phase::kWriting:
      return Send(c);
    case Connection::Phase::kDraining:
      if (!Drain(c)) Close(c);
      return;
  }
}

// Moves c, its response ready, to the answered list with a new deadline and sends.
void MetricsServer::Loop::Answer(Connection* c) {
  answered_.splice(answered_.end(), reading_, c->self);
  c->phase = Connection::Phase::kWriting;
  c->deadline = Clock::now() + options_.request_deadline;
  c->in.clear();
  Send(c);
}

// Sends what the socket takes, then watches c for what its phase waits on.
void MetricsServer::Loop::Send(Connection* c) {
  if (!SendResponse(c)) return Close(c);
  uint32_t events =
      c->phase == Connection::Phase::kWriting ? Reactor::kWritable : Reactor::kReadable;
  if (c->events == events) return;
  c->events = events;
  if (!reactor_.Modify(c->fd, events, reinterpret_cast<uint64_t>(c)).ok()) Close(c);
}

void MetricsServer::Loop::Close(Connection* c) {
  reactor_.Remove(c->fd);
  close(c->fd);
  ListOf(c)->erase(c->self);
}

// Closes the connection nearest its deadline (both lists' spans are equal).
void MetricsServer::Loop::CloseOldest() {
  if (reading_.empty() && answered_.empty()) return;
  bool reading = !reading_.empty() &&
                 (answered_.empty() || reading_.front().deadline <= answered_.front().deadline);
  Close(reading ? &reading_.front() : &answered_.front());
}

void MetricsServer::Loop::CloseExpired(Clock::time_point now) {
  for (List* list : {&reading_, &answered_}) {
    while (!list->empty() && list->front().deadline <= now) Close(&list->front());
  }
}

void MetricsServer::Loop::ResumeAcceptingAt(Clock::time_point now) {
  if (!accept_paused_until_ || now < *accept_paused_until_) return;
  accept_paused_until_.reset();
  reactor_.Modify(listen_fd_, Reactor::kReadable, kListenToken);
}

// Milliseconds until the next deadline or the end of an accept pause (-1: none).
int MetricsServer::Loop::WaitMs(Clock::time_point now) const {
  std::optional<Clock::time_point> next = accept_paused_until_;
  for (const List* list : {&reading_, &answered_}) {
    if (!list->empty() && (!next || list->front().deadline < *next)) next = list->front().deadline;
  }
  if (!next) return -1;
  if (*next <= now) return 0;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(*next - now).count();
  return static_cast<int>(std::min<int64_t>(ms, INT32_MAX));
}

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
                                                            std::function<std::string()> render,
                                                            MetricsServerOptions options) {
  auto listen_fd = ListenTcp(host, port, kListenBacklog);
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
  options.max_connections = std::max<size_t>(1, std::min(options.max_connections, FileLimit() / 4));
  auto loop = std::make_unique<Loop>(*listen_fd, wake[0], std::move(render), options);
  s = loop->Init();
  if (!s.ok()) {
    close(wake[1]);
    return s.WithContext("--metrics-addr");
  }
  std::unique_ptr<MetricsServer> server(new MetricsServer(std::move(loop), wake[1], *bound));
  server->thread_ = std::thread(&Loop::Run, server->loop_.get());
  return server;
}

MetricsServer::MetricsServer(std::unique_ptr<Loop> loop, int wake_write_fd, int port)
    : loop_(std::move(loop)), wake_write_fd_(wake_write_fd), port_(port) {}

MetricsServer::~MetricsServer() { Stop(); }

void MetricsServer::Stop() {
  if (!thread_.joinable()) return;
  char byte = 1;
  while (write(wake_write_fd_, &byte, 1) < 0 && errno == EINTR) {
  }
  thread_.join();
  loop_.reset();
  close(wake_write_fd_);
}

}  // namespace memstand
