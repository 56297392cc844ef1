// null_resp_server: a RESP server that stores nothing and answers every command at
// once. Its throughput under a client is that client's own ceiling (the reference
// "how fast can the load generator go" in bench/).
//
// Usage: null_resp_server (--port P [--host 127.0.0.1] | --unix PATH) [--busy-poll]
// (--port 0: the kernel picks; --unix: a Unix stream socket, the file removed at the end). --busy-poll: never sleep, poll epoll in a loop (a core at 100%), so
// that a request arriving wakes nothing: on a VM a cross-core wake-up is an
// interrupt through the hypervisor, and at 100k requests a second that, not the
// client, is what a core spends (bench/README.md, "Open loop precision").
// Replies: GET -> a fixed 100-byte bulk; PING -> +PONG; CONFIG GET x -> [x, ""];
// INFO -> a bulk with redis_version:0.0.0-null; HELLO -> -ERR (RESP2 only);
// anything else -> +OK. Single-threaded epoll; runs until SIGINT or SIGTERM.
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffer.h"
#include "core/socket.h"

namespace memstand {
namespace {

constexpr size_t kReadChunk = 256 * 1024;
constexpr int kMaxEvents = 256;
constexpr int64_t kMaxArgs = 1 << 20;
constexpr int64_t kMaxBulk = 512LL << 20;

// The first arguments of one command; views into the input, valid until it is consumed.
struct Command {
  std::array<std::string_view, 3> args;
  int argc = 0;
};

enum class Parse { kDone, kIncomplete, kError };

// Reads "<prefix><digits>\r\n" at *pos into *value and advances *pos past it.
Parse ReadNumberLine(std::string_view in, char prefix, size_t* pos, int64_t* value) {
  size_t nl = in.find('\n', *pos);
  if (nl == std::string_view::npos) return Parse::kIncomplete;
  size_t p = *pos;
  if (in[p] != prefix || nl < p + 3 || in[nl - 1] != '\r') return Parse::kError;
  int64_t v = 0;
  bool negative = in[p + 1] == '-';
  for (size_t i = p + 1 + negative; i < nl - 1; ++i) {
    if (in[i] < '0' || in[i] > '9' || v > kMaxBulk) return Parse::kError;
    v = v * 10 + (in[i] - '0');
  }
  *value = negative ? -v : v;
  *pos = nl + 1;
  return Parse::kDone;
}

// "*N\r\n" followed by N "$L\r\n<L bytes>\r\n".
Parse ParseMultibulk(std::string_view in, Command* cmd, size_t* used) {
  size_t pos = 0;
  int64_t count = 0;
  Parse r = ReadNumberLine(in, '*', &pos, &count);
  if (r != Parse::kDone) return r;
  if (count > kMaxArgs) return Parse::kError;
  for (int64_t i = 0; i < count; ++i) {
    int64_t len = 0;
    if (pos >= in.size()) return Parse::kIncomplete;
    if ((r = ReadNumberLine(in, '$', &pos, &len)) != Parse::kDone) return r;
    if (len < 0 || len > kMaxBulk) return Parse::kError;
    if (in.size() - pos < static_cast<size_t>(len) + 2) return Parse::kIncomplete;
    if (i < static_cast<int64_t>(cmd->args.size())) cmd->args[cmd->argc++] = in.substr(pos, len);
    pos += len + 2;
  }
  *used = pos;
  return Parse::kDone;
}

// An inline command: one line of space-separated words, e.g. "PING\r\n".
Parse ParseInline(std::string_view in, Command* cmd, size_t* used) {
  size_t nl = in.find('\n');
  if (nl == std::string_view::npos) return Parse::kIncomplete;
  std::string_view line = in.substr(0, nl);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  size_t p = 0;
  while (cmd->argc < static_cast<int>(cmd->args.size())) {
    p = line.find_first_not_of(' ', p);
    if (p == std::string_view::npos) break;
    size_t end = std::min(line.find(' ', p), line.size());
    cmd->args[cmd->argc++] = line.substr(p, end - p);
    p = end;
  }
  *used = nl + 1;
  return Parse::kDone;
}

Parse ParseCommand(std::string_view in, Command* cmd, size_t* used) {
  *cmd = Command{};
  return in[0] == '*' ? ParseMultibulk(in, cmd, used) : ParseInline(in, cmd, used);
}

bool Is(std::string_view word, std::string_view upper) {
  if (word.size() != upper.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if ((word[i] & ~0x20) != upper[i]) return false;  // ASCII letters only
  }
  return true;
}

std::string Bulk(std::string_view s) {
  return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n";
}

const std::string& GetReply() {
  static const std::string reply = Bulk(std::string(100, 'x'));
  return reply;
}

const std::string& InfoReply() {
  static const std::string reply = Bulk("# Server\r\nredis_version:0.0.0-null\r\n");
  return reply;
}

void AppendReply(const Command& cmd, Buffer* out) {
  if (cmd.argc == 0) return;
  std::string_view name = cmd.args[0];
  if (Is(name, "GET")) {
    out->Append(GetReply());
  } else if (Is(name, "PING")) {
    out->Append("+PONG\r\n");
  } else if (Is(name, "CONFIG") && cmd.argc == 3 && Is(cmd.args[1], "GET")) {
    out->Append("*2\r\n" + Bulk(cmd.args[2]) + "$0\r\n\r\n");
  } else if (Is(name, "INFO")) {
    out->Append(InfoReply());
  } else if (Is(name, "HELLO")) {
    out->Append("-ERR unknown command 'HELLO'\r\n");
  } else {
    out->Append("+OK\r\n");
  }
}

// Answers every complete command in `in`; returns the bytes consumed, or -1 after
// a protocol error (an error reply is appended; the connection should close).
int64_t AnswerAll(std::string_view in, Buffer* out) {
  size_t done = 0;
  Command cmd;
  while (done < in.size()) {
    size_t used = 0;
    Parse r = ParseCommand(in.substr(done), &cmd, &used);
    if (r == Parse::kIncomplete) break;
    if (r == Parse::kError) {
      out->Append("-ERR Protocol error\r\n");
      return -1;
    }
    AppendReply(cmd, out);
    done += used;
  }
  return static_cast<int64_t>(done);
}

struct Conn {
  int fd = -1;
  Buffer pending_in{0};   // a partial command left from the previous read
  Buffer pending_out{0};  // replies a short write left behind
};

class NullServer {
 public:
  ~NullServer();
  Status Listen(const std::string& host, int port);
  /// A Unix stream socket at `path` instead of TCP (removed again when the server ends).
  Status ListenUnix(const std::string& path);
  int port() const { return port_; }
  /// Serves until SIGINT or SIGTERM.
  Status Run(bool busy_poll);

 private:
  Status ListenSignals();  // the signal fd and the epoll set, once listen_fd_ is open
  void Watch(int fd, uint32_t events, bool add);
  void Accept();
  void OnReadable(Conn* c);
  void OnWritable(Conn* c);
  // Sends reply_ (or the connection's backlog); false if the connection died.
  bool Flush(Conn* c, std::string_view data);
  void Close(Conn* c);

  int epfd_ = -1;
  int listen_fd_ = -1;
  int signal_fd_ = -1;
  int port_ = 0;
  std::string unix_path_;  // the socket file this server made (removed at the end)
  std::vector<std::unique_ptr<Conn>> conns_;  // by fd
  std::vector<char> read_buf_ = std::vector<char>(kReadChunk);
  Buffer reply_{kReadChunk};
};

NullServer::~NullServer() {
  for (auto& c : conns_) {
    if (c != nullptr) close(c->fd);
  }
  for (int fd : {listen_fd_, signal_fd_, epfd_}) {
    if (fd >= 0) close(fd);
  }
  if (!unix_path_.empty()) unlink(unix_path_.c_str());
}

Status NullServer::Listen(const std::string& host, int port) {
  auto fd = ListenTcp(host, port, 4096);
  if (!fd.ok()) return fd.status();
  listen_fd_ = *fd;
  auto bound = LocalPort(listen_fd_);
  if (!bound.ok()) return bound.status();
  port_ = *bound;
  if (Status s = SetNonBlocking(listen_fd_, true); !s.ok()) return s;
  return ListenSignals();
}

Status NullServer::ListenUnix(const std::string& path) {
  sockaddr_un addr{};
  if (path.empty() || path.size() >= sizeof(addr.sun_path)) return Status::InvalidArgument("--unix: bad path");
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return Status::IoError(ErrnoMessage("socket", errno));
  if (bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    return Status::IoError(ErrnoMessage("bind " + path, errno));
  }
  unix_path_ = path;
  if (listen(listen_fd_, 4096) != 0) return Status::IoError(ErrnoMessage("listen", errno));
  return ListenSignals();
}

Status NullServer::ListenSignals() {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop, nullptr);
  signal(SIGPIPE, SIG_IGN);
  signal_fd_ = signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK);
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  if (signal_fd_ < 0 || epfd_ < 0) return Status::IoError(ErrnoMessage("signalfd/epoll", errno));
  Watch(listen_fd_, EPOLLIN, true);
  Watch(signal_fd_, EPOLLIN, true);
  return Status::OK();
}

void NullServer::Watch(int fd, uint32_t events, bool add) {
  epoll_event ev{};
  ev.events = events;
  ev.data.fd = fd;
  epoll_ctl(epfd_, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev);
}

Status NullServer::Run(bool busy_poll) {
  epoll_event events[kMaxEvents];
  for (;;) {
    int n = epoll_wait(epfd_, events, kMaxEvents, busy_poll ? 0 : -1);
    if (n < 0 && errno != EINTR) return Status::IoError(ErrnoMessage("epoll_wait", errno));
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == signal_fd_) return Status::OK();
      if (fd == listen_fd_) {
        Accept();
        continue;
      }
      Conn* c = conns_[fd].get();
      if (c == nullptr) continue;
      if (events[i].events & EPOLLOUT) {
        OnWritable(c);
      } else {
        OnReadable(c);
      }
    }
  }
}

void NullServer::Accept() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or an aborted connection: nothing to do
    if (unix_path_.empty()) SetNoDelay(fd);
    if (conns_.size() <= static_cast<size_t>(fd)) conns_.resize(fd + 1);
    conns_[fd] = std::make_unique<Conn>();
    conns_[fd]->fd = fd;
    Watch(fd, EPOLLIN, true);
  }
}

void NullServer::OnReadable(Conn* c) {
  ssize_t n = read(c->fd, read_buf_.data(), read_buf_.size());
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) return Close(c);
  std::string_view in(read_buf_.data(), static_cast<size_t>(n));
  if (c->pending_in.Readable() > 0) {  // complete the partial command first
    c->pending_in.Append(in);
    in = c->pending_in.View();
  }
  reply_.Clear();
  int64_t used = AnswerAll(in, &reply_);
  bool in_pending = c->pending_in.Readable() > 0;
  if (used >= 0 && !in_pending && static_cast<size_t>(used) < in.size()) {
    c->pending_in.Append(in.substr(used));
  } else if (used >= 0 && in_pending) {
    c->pending_in.Consume(static_cast<size_t>(used));
  }
  if (Flush(c, reply_.View()) && used < 0) Close(c);
}

bool NullServer::Flush(Conn* c, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = send(c->fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    if (n < 0) {
      Close(c);
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  if (!data.empty()) {  // stop reading until the client drains its replies
    c->pending_out.Append(data);
    Watch(c->fd, EPOLLOUT, false);
  }
  return true;
}

void NullServer::OnWritable(Conn* c) {
  std::string backlog(c->pending_out.View());
  c->pending_out.Clear();
  if (!Flush(c, backlog)) return;
  if (c->pending_out.Readable() == 0) Watch(c->fd, EPOLLIN, false);
}

void NullServer::Close(Conn* c) {
  int fd = c->fd;
  epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
  close(fd);
  conns_[fd].reset();
}

int Usage(const char* prog) {
  std::fprintf(stderr, "usage: %s (--port P [--host 127.0.0.1] | --unix PATH) [--busy-poll]   (--port 0: any free port)\n",
               prog);
  return 2;
}

}  // namespace
}  // namespace memstand

int main(int argc, char** argv) {
  std::string host = "127.0.0.1";
  int port = -1;
  bool busy_poll = false;
  std::string unix_path;
  for (int i = 1; i < argc; ++i) {
    std::string_view flag = argv[i];
    if (flag == "--busy-poll") {
      busy_poll = true;
      continue;
    }
    if (i + 1 >= argc) return memstand::Usage(argv[0]);
    if (flag == "--port") {
      port = std::atoi(argv[++i]);
    } else if (flag == "--host") {
      host = argv[++i];
    } else if (flag == "--unix") {
      unix_path = argv[++i];
    } else {
      return memstand::Usage(argv[0]);
    }
  }
  if (unix_path.empty() && (port < 0 || port > 65535)) return memstand::Usage(argv[0]);
  memstand::NullServer server;
  memstand::Status s = unix_path.empty() ? server.Listen(host, port) : server.ListenUnix(unix_path);
  if (s.ok()) {
    if (unix_path.empty()) {
      std::printf("null_resp_server listening on %s:%d\n", host.c_str(), server.port());
    } else {
      std::printf("null_resp_server listening on unix:%s\n", unix_path.c_str());
    }
    std::fflush(stdout);
    s = server.Run(busy_poll);
  }
  if (!s.ok()) {
    std::fprintf(stderr, "null_resp_server: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}
