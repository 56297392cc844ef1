// One libpq connection (PostgreSQL's own client library): compute-locality's set-up of
// its private cluster (CREATE TABLE, COPY, CREATE INDEX, ANALYZE) and its check of
// every timed path, which libpq runs once more so that the rows memstand's own reader
// parsed (client/pg_client) are compared with what the standard client reads, and the
// bytes the kernel counted for it (TCP_INFO on libpq's socket) with memstand's.
// Blocking; one statement at a time. Not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "client/pg_client.h"
#include "core/tcp_info.h"
#include "util/status.h"

struct pg_conn;  // libpq's PGconn

namespace memstand {

class LibpqSession {
 public:
  /// Connects to host:port as `user` on `database` (connect_timeout in whole seconds,
  /// at least 1). A failure is an IoError with libpq's message.
  static Result<std::unique_ptr<LibpqSession>> Connect(const std::string& host, int port, const std::string& user,
                                                       const std::string& database, int timeout_s);
  ~LibpqSession();
  LibpqSession(const LibpqSession&) = delete;
  LibpqSession& operator=(const LibpqSession&) = delete;

  /// One statement (PQexec); its rows (text; NULL as "") and command tag. An error is a
  /// Server error with the server's message.
  Result<PgResult> Exec(const std::string& sql);
  /// COPY ... FROM STDIN with `data` (text format lines), in 256 KiB pieces.
  Result<PgResult> CopyIn(const std::string& sql, const std::string& data);
  /// The kernel's byte counts of libpq's socket so far.
  Result<TcpBytes> KernelBytes() const;
  /// libpq's version, e.g. "15.18" (PQlibVersion).
  static std::string LibraryVersion();

 private:
  explicit LibpqSession(::pg_conn* conn) : conn_(conn) {}
  ::pg_conn* conn_;
};

}  // namespace memstand
