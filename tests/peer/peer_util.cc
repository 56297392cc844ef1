#include "peer/peer_util.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "core/clock.h"
#include "core/socket.h"

namespace memstand::peer_test {

namespace {

constexpr int64_t kWaitNs = 5'000'000'000;  // the longest any wait of a peer lasts
constexpr int kPollMs = 20;                 // how often a wait looks at `stopping`

}  // namespace

bool PeerConn::Fill() {
  const int64_t until = NowNs() + kWaitNs;
  while (!stopping_->load() && NowNs() < until) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, kPollMs) <= 0) continue;
    in_.EnsureWritable(64 * 1024);
    const ssize_t n = read(fd_, in_.WritePtr(), in_.Writable());
    if (n <= 0) return false;
    in_.Commit(static_cast<size_t>(n));
    return true;
  }
  return false;
}

std::optional<std::vector<std::string>> PeerConn::NextCommand() {
  for (;;) {
    if (in_.Readable() > 0) {
      size_t used = 0;
      const auto ev = reader_.Feed(in_.ReadPtr(), in_.Readable(), &used);
      in_.Consume(used);
      if (ev == resp::Reader::Event::kProtocolError) return std::nullopt;
      if (ev == resp::Reader::Event::kReply) {
        std::vector<std::string> args;
        for (const resp::Reply& e : reader_.TakeReply().elements) args.push_back(e.str);
        return args;
      }
    }
    if (!Fill()) return std::nullopt;
  }
}

std::string PeerConn::ReadSome() {
  if (in_.Readable() == 0 && !Fill()) return "";
  std::string got(in_.ReadPtr(), in_.Readable());
  in_.Consume(in_.Readable());
  return got;
}

bool PeerConn::Write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool PeerConn::Dribble(std::string_view bytes, int gap_ms, size_t chunk) {
  for (size_t at = 0; at < bytes.size(); at += chunk) {
    if (at > 0) Sleep(gap_ms);
    if (stopping_->load() || !Write(bytes.substr(at, chunk))) return false;
  }
  return true;
}

void PeerConn::Sleep(int ms) {
  const int64_t until = NowNs() + int64_t{ms} * 1'000'000;
  while (!stopping_->load() && NowNs() < until) {
    const int64_t left_ms = (until - NowNs()) / 1'000'000;
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(left_ms + 1, kPollMs)));
  }
}

bool PeerConn::WaitClosed(size_t* bytes_after) {
  size_t bytes = in_.Readable();
  in_.Consume(in_.Readable());
  const int64_t until = NowNs() + kWaitNs;
  bool closed = false;
  while (!closed && !stopping_->load() && NowNs() < until) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, kPollMs) <= 0) continue;
    char buf[4096];
    const ssize_t n = read(fd_, buf, sizeof(buf));
    if (n > 0) bytes += static_cast<size_t>(n);
    closed = n == 0 || (n < 0 && errno == ECONNRESET);
  }
  if (bytes_after != nullptr) *bytes_after = bytes;
  return closed;
}

ScriptedPeer::ScriptedPeer(Serve serve) : serve_(std::move(serve)) {
  auto fd = ListenTcp("127.0.0.1", 0);
  if (!fd.ok()) return;
  listen_fd_ = *fd;
  auto port = LocalPort(listen_fd_);
  port_ = port.ok() ? *port : 0;
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

ScriptedPeer::~ScriptedPeer() {
  stopping_ = true;
  if (listen_fd_ >= 0) shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
  if (acceptor_.joinable()) acceptor_.join();
  std::lock_guard<std::mutex> lock(mu_);
  for (int fd : fds_) shutdown(fd, SHUT_RDWR);  // wakes a serving thread's read or write
  for (std::thread& t : threads_) t.join();
  for (int fd : fds_) close(fd);
  if (listen_fd_ >= 0) close(listen_fd_);
}

bool ScriptedPeer::WaitServed(int n) const {
  const int64_t until = NowNs() + kWaitNs;
  while (served_.load() < n && NowNs() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
  }
  return served_.load() >= n;
}

std::string ScriptedPeer::address() const { return "127.0.0.1:" + std::to_string(port_); }

void ScriptedPeer::AcceptLoop() {
  while (!stopping_.load()) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // shut down
    }
    SetNoDelay(fd);
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_.load()) {
      close(fd);
      return;
    }
    const int index = accepted_++;
    fds_.push_back(fd);
    threads_.emplace_back([this, fd, index] {
      PeerConn conn(fd, index, &stopping_);
      serve_(conn);
      ++served_;
      shutdown(fd, SHUT_RDWR);  // closed for the other side; the fd itself in the destructor
    });
  }
}

std::string Bulk(std::string_view text) {
  return "$" + std::to_string(text.size()) + "\r\n" + std::string(text) + "\r\n";
}

}  // namespace memstand::peer_test
