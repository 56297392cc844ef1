// End-to-end helpers for the codec tests: real servers (memcached, tarantool, etcd)
// started on free loopback ports in temporary directories, and a blocking loopback
// connection that feeds a codec's reader. Test-only; the load engine has its own I/O.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffer.h"
#include "stand/process.h"
#include "util/status.h"

namespace memstand::codec_test {

/// A server process owned by a test: terminated and its directory removed on
/// destruction.
class TestServer {
 public:
  /// Runs argv (each "{PORT}", "{PORT2}" and "{DIR}" replaced) from a new temporary
  /// directory, and waits until a TCP connect to the port succeeds (15 s at most).
  /// `files` are written into the directory first: {name, content}, with the same
  /// replacements. Retries on other ports if the server exits early (a port race).
  static Result<std::unique_ptr<TestServer>> Start(
      std::vector<std::string> argv, std::vector<std::pair<std::string, std::string>> files = {});
  ~TestServer();

  int port() const { return port_; }
  const std::string& dir() const { return dir_; }
  std::string LogTail() const;

 private:
  TestServer() = default;
  std::unique_ptr<Process> process_;
  int port_ = 0;
  std::string dir_;
};

/// memcached -p PORT -l 127.0.0.1 -U 0 -m 64 -u root (root needs -u).
Result<std::unique_ptr<TestServer>> StartMemcached();
/// tarantool running `init_lua`, whose box.cfg must listen on "{PORT}".
Result<std::unique_ptr<TestServer>> StartTarantool(const std::string& init_lua);
/// etcd with its data in the temp dir, client URL on PORT, peer URL on PORT2, plus
/// `extra` flags. Waits until /v3/maintenance/status answers 200.
Result<std::unique_ptr<TestServer>> StartEtcd(const std::vector<std::string>& extra = {});

/// A blocking TCP connection to 127.0.0.1:port; every read and write bounded by 10 s.
class BlockingConn {
 public:
  static Result<std::unique_ptr<BlockingConn>> Connect(int port);
  ~BlockingConn();

  Status Send(std::string_view bytes);
  Status Send(const Buffer& b) { return Send(b.View()); }
  /// Exactly n bytes (e.g. a greeting).
  Result<std::string> ReadExactly(size_t n);

  /// Feeds received bytes to reader until it reports kReply; bytes it did not consume
  /// are kept for the next call. kProtocolError becomes Status::Protocol(reader error).
  template <typename Reader>
  Status ReadReply(Reader* reader) {
    for (;;) {
      if (!pending_.empty()) {
        size_t used = 0;
        auto ev = reader->Feed(pending_.data(), pending_.size(), &used);
        pending_.erase(0, used);
        if (ev == Reader::Event::kReply) return Status::OK();
        if (ev == Reader::Event::kProtocolError) return Status::Protocol(reader->error());
      }
      if (Status s = Fill(); !s.ok()) return s;
    }
  }
  /// Reads until `reader` has `count` whole replies; returns their bytes as they came
  /// (what a session under test is fed afterwards). Bytes after them are kept.
  template <typename Reader>
  Result<std::string> ReadRawReplies(Reader* reader, size_t count) {
    std::string raw;
    for (size_t got = 0; got < count;) {
      if (pending_.empty()) {
        if (Status s = Fill(); !s.ok()) return s;
      }
      size_t used = 0;
      auto ev = reader->Feed(pending_.data(), pending_.size(), &used);
      raw.append(pending_, 0, used);
      pending_.erase(0, used);
      if (ev == Reader::Event::kProtocolError) return Status::Protocol(reader->error());
      if (ev == Reader::Event::kReply) ++got;
    }
    return raw;
  }
  /// Bytes read from the socket so far.
  size_t bytes_read() const { return bytes_read_; }

 private:
  explicit BlockingConn(int fd) : fd_(fd) {}
  Status Fill();

  int fd_;
  std::string pending_;
  size_t bytes_read_ = 0;
};

}  // namespace memstand::codec_test
