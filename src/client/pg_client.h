// A blocking PostgreSQL client for compute-locality's timed calls: protocol 3.0 (the
// codec is proto/pg), trust authentication only (the private cluster memstand starts),
// the simple query protocol. memstand speaks the protocol itself for these calls, not
// through libpq, because libpq owns its socket and counts no bytes: this client counts
// the application bytes at its own socket as the other systems' clients do (docs/method.md
// rule 11). The cluster's set-up, and a check of every path's answer and bytes, go
// through libpq (client/libpq_session.h). One query at a time; each bounded by
// timeout_ms. Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/buffer.h"
#include "core/tcp_info.h"
#include "proto/pg/pg.h"
#include "util/status.h"

namespace memstand {

struct PgResult {
  std::vector<std::vector<std::string>> rows;  // text format; NULL as ""
  std::string tag;                             // CommandComplete: "SELECT 10", "COPY 1000"
};

class PgClient {
 public:
  /// Connects and starts up as `user` on `database`. A server that asks for a password
  /// is a Server error saying only trust is supported; an ErrorResponse is a Server
  /// error with its message.
  static Result<std::unique_ptr<PgClient>> Connect(const std::string& host, int port, const std::string& user,
                                                   const std::string& database, int timeout_ms);
  ~PgClient();
  PgClient(const PgClient&) = delete;
  PgClient& operator=(const PgClient&) = delete;

  /// One simple query (one statement); its rows and tag. An ErrorResponse is a
  /// Server error with the server's message (the connection stays usable).
  Result<PgResult> Query(const std::string& sql);

  /// Application bytes read and written since the connect, the startup included.
  const SocketBytes& bytes() const { return bytes_; }
  /// The kernel's count of the same connection (TCP_INFO).
  Result<TcpBytes> KernelBytes() const;

 private:
  PgClient(int fd, int timeout_ms) : fd_(fd), timeout_ms_(timeout_ms) {}
  Status Send(const std::string& bytes);
  /// Reads until the reader has a whole reply of `phase` (the bytes after it stay in
  /// in_: the server sends none before the next request).
  Result<pg::Reply> Receive(pg::Reader::Phase phase);
  Status Broken(Status s);

  int fd_;
  int timeout_ms_;
  int64_t deadline_ns_ = 0;
  Status broken_;
  Buffer in_{64 * 1024};
  SocketBytes bytes_;
};

}  // namespace memstand
