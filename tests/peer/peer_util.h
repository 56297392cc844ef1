// A scripted loopback peer for tests of how memstand treats a server that misbehaves
// in time or in order (dribbles, answers late, answers out of step): a real listening
// socket on 127.0.0.1:0, each accepted connection served by a test's function on its own
// thread. Test-only.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/buffer.h"
#include "proto/resp/resp.h"

namespace memstand::peer_test {

/// One accepted connection, as the serving function sees it. Every wait is bounded
/// (5 s at most) and ends early when the peer is being destroyed.
class PeerConn {
 public:
  PeerConn(int fd, int index, const std::atomic<bool>* stopping)
      : fd_(fd), index_(index), stopping_(stopping) {}

  int fd() const { return fd_; }
  /// 0 for the first connection the peer accepted, 1 for the next, ...
  int index() const { return index_; }
  /// The next RESP command (an array of bulk strings), or nothing once the other side
  /// closed, after 5 s, or when the peer stops.
  std::optional<std::vector<std::string>> NextCommand();
  /// The next bytes received (at most 64 KiB), or "" on close / 5 s / stop.
  std::string ReadSome();
  /// Writes all of `bytes`; false once the other side is gone.
  bool Write(std::string_view bytes);
  /// Writes `bytes` `chunk` bytes at a time, gap_ms apart; false once the other side
  /// is gone or the peer stops.
  bool Dribble(std::string_view bytes, int gap_ms, size_t chunk = 1);
  /// Sleeps ms (less if the peer stops).
  void Sleep(int ms);
  /// Whether the other side closes within 5 s, reading (and dropping) what it sends
  /// meanwhile; `bytes_after` gets how many bytes came before the close.
  bool WaitClosed(size_t* bytes_after = nullptr);

 private:
  bool Fill();  // reads into in_; false on close, error, 5 s of silence or stop

  int fd_;
  int index_;
  const std::atomic<bool>* stopping_;
  Buffer in_{4096};
  resp::Reader reader_{resp::Reader::Mode::kFull};
};

class ScriptedPeer {
 public:
  using Serve = std::function<void(PeerConn& conn)>;
  /// Listens on 127.0.0.1:0; every accepted connection runs `serve` on its own thread,
  /// and is closed when it returns.
  explicit ScriptedPeer(Serve serve);
  /// Stops accepting, wakes every serving thread (their sockets are shut down) and
  /// joins them.
  ~ScriptedPeer();
  ScriptedPeer(const ScriptedPeer&) = delete;
  ScriptedPeer& operator=(const ScriptedPeer&) = delete;

  int port() const { return port_; }
  /// "127.0.0.1:PORT".
  std::string address() const;
  /// Connections accepted so far.
  int accepted() const { return accepted_.load(); }
  /// Waits (5 s at most) until `n` serving functions have returned; whether they have.
  bool WaitServed(int n) const;

 private:
  void AcceptLoop();

  Serve serve_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::atomic<int> served_{0};
  std::mutex mu_;
  std::vector<int> fds_;              // accepted, guarded by mu_
  std::vector<std::thread> threads_;  // serving, guarded by mu_
  std::thread acceptor_;
};

/// A RESP bulk string reply: "$N\r\n<text>\r\n".
std::string Bulk(std::string_view text);

}  // namespace memstand::peer_test
