// A blocking RESP client for control paths (setup, INFO, CONFIG, DBSIZE, cross-checks),
// never for the load path. One connection, one command at a time: the connect and its
// set-up commands share one deadline, and each later command (its write and its whole
// reply) has one of its own. A connection that times out or gets a reply out of step
// is closed and never used again. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/buffer.h"
#include "core/tcp_info.h"
#include "core/tls.h"
#include "proto/resp/resp.h"
#include "util/status.h"

namespace memstand {

struct RedisClientOptions {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string unix_path;  // non-empty: connect to this Unix socket, not host:port
  std::string user;       // ACL user; empty: "default" when a password is set
  std::string password;   // empty: no AUTH
  int db = 0;             // SELECTed after connecting when not 0
  int resp = 2;           // 2, or 3 to switch with HELLO 3
  /// Bounds the connect and the set-up commands together (one deadline from the
  /// connect on), then each later command with its whole reply.
  int timeout_ms = 5000;
  /// Non-null: TLS over the connection (its handshake before any command), SNI and the
  /// name checked from `host` unless the context names one.
  std::shared_ptr<const TlsContext> tls;
};

class RedisClient {
 public:
  /// Connects, then: HELLO 3 (with AUTH inside HELLO when a password is set) if
  /// resp == 3, else AUTH [user] password if a password is set; then SELECT db if
  /// db != 0. When none of these is sent, a PING checks that the peer speaks RESP.
  /// A server error during the handshake is Status::Server with the server's text;
  /// a peer that is not a Redis server is Status::Protocol naming what it sent.
  static Result<std::unique_ptr<RedisClient>> Connect(const RedisClientOptions& options);
  /// Connect with the default options but the address and the timeout: a control
  /// connection to a server memstand started (no AUTH, db 0, RESP2).
  static Result<std::unique_ptr<RedisClient>> Connect(const std::string& host, int port, int timeout_ms);

  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  /// Sends one command and waits for its reply, within timeout_ms in all. An error
  /// reply is returned as a Reply (is_error()). I/O failures, timeouts, protocol errors
  /// and replies out of step are a Status, after which the connection is closed and
  /// every later call fails without sending. Out of step: bytes that arrived before
  /// the command was sent, or a reply of a kind the command never gives (the control
  /// paths' commands are checked: INFO and CLUSTER INFO a bulk or verbatim string,
  /// PING PONG, AUTH/SELECT/READONLY OK, HELLO a map, DBSIZE an integer, CLUSTER SLOTS
  /// and CONFIG GET an array); a Protocol error naming the command and what came.
  /// REQUIRES: !args.empty().
  Result<resp::Reply> Command(const std::vector<std::string>& args);

  /// Sends every command in one write, then reads their replies in order, within
  /// timeout_ms in all: a client that pipelines (e.g. SET and WAIT together). The same
  /// checks and the same closing on failure as Command. REQUIRES: no command empty.
  Result<std::vector<resp::Reply>> Pipeline(const std::vector<std::vector<std::string>>& commands);

  /// How many commands this client sent, by lower-case command name (first argument),
  /// the handshake included: memstand's own traffic, to subtract from INFO commandstats.
  const std::map<std::string, int64_t>& sent_by_command() const { return sent_; }

  /// Application bytes read from and written to the socket since the connect, the
  /// handshake included (counted at each read() and write(); over TLS the ciphertext).
  const SocketBytes& bytes() const { return bytes_; }
  /// TLS: the protocol and cipher agreed (TlsSession::Describe); "" without TLS.
  std::string tls_description() const { return tls_ ? tls_->Describe() : ""; }
  /// The kernel's count of the same connection (TCP_INFO); an error once it is closed.
  Result<TcpBytes> KernelBytes() const;

 private:
  RedisClient(int fd, int timeout_ms) : fd_(fd), timeout_ms_(timeout_ms) {}
  Status Handshake(const RedisClientOptions& options, int64_t deadline_ns);
  Status HandshakeStep(const std::vector<std::string>& args, int64_t deadline_ns);
  Result<resp::Reply> Exchange(const std::vector<std::string>& args, int64_t deadline_ns);
  Result<std::vector<resp::Reply>> ExchangeAll(const std::vector<std::vector<std::string>>& commands,
                                               int64_t deadline_ns);
  Status CheckInStep(const std::string& command);
  Result<resp::Reply> ReadReply(int64_t deadline_ns);
  std::string Bound() const;
  Status Broken(Status s);
  // The socket's bytes, through TLS when the connection has it, counted in bytes_.
  Status Send(const char* p, size_t n, int64_t deadline_ns);
  Result<size_t> Receive(char* buf, size_t cap, int64_t deadline_ns);
  /// TLS: takes what waits on the socket (session tickets after the handshake, say)
  /// into the session, and any plaintext it decrypts into in_.
  Status DrainPending();
  void CountTlsBytes();

  int fd_;  // non-blocking; -1 once broken (closed)
  int timeout_ms_;
  bool in_setup_ = false;  // the handshake runs: its deadline counts from the connect
  Status broken_;  // not OK once the connection is unusable
  resp::Reader reader_{resp::Reader::Mode::kFull};
  Buffer in_{4096};       // bytes read and not yet parsed
  std::string received_;  // the first bytes of the reply being read, for errors
  std::map<std::string, int64_t> sent_;
  SocketBytes bytes_;
  std::unique_ptr<TlsSession> tls_;  // null: plaintext
};

}  // namespace memstand
