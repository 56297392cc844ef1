#include "client/libpq_session.h"

#include <libpq-fe.h>

#include <algorithm>

#include <fmt/format.h>

namespace memstand {
namespace {

constexpr size_t kCopyPiece = 256 * 1024;

std::string Trimmed(const char* message) {
  std::string s = message != nullptr ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.empty() ? "no message" : s;
}

// The rows and tag of a finished statement, or its error.
Result<PgResult> Collect(PGresult* r) {
  const ExecStatusType st = PQresultStatus(r);
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
    std::string message = Trimmed(PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY));
    if (message == "no message") message = Trimmed(PQresultErrorMessage(r));
    PQclear(r);
    return Status::Server("postgresql (libpq): " + message);
  }
  PgResult out;
  out.tag = PQcmdStatus(r);
  const int rows = PQntuples(r), columns = PQnfields(r);
  out.rows.resize(static_cast<size_t>(rows));
  for (int i = 0; i < rows; ++i) {
    auto& row = out.rows[static_cast<size_t>(i)];
    row.reserve(static_cast<size_t>(columns));
    for (int j = 0; j < columns; ++j) row.emplace_back(PQgetvalue(r, i, j), static_cast<size_t>(PQgetlength(r, i, j)));
  }
  PQclear(r);
  return out;
}

}  // namespace

Result<std::unique_ptr<LibpqSession>> LibpqSession::Connect(const std::string& host, int port,
                                                            const std::string& user, const std::string& database,
                                                            int timeout_s) {
  const std::string port_text = std::to_string(port), timeout_text = std::to_string(std::max(1, timeout_s));
  const char* keys[] = {"host", "port", "user", "dbname", "connect_timeout", "sslmode", nullptr};
  const char* values[] = {host.c_str(), port_text.c_str(), user.c_str(), database.c_str(),
                          timeout_text.c_str(), "disable", nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, 0);
  if (conn == nullptr) return Status::IoError("libpq: out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string message = Trimmed(PQerrorMessage(conn));
    PQfinish(conn);
    return Status::IoError("libpq connect to " + host + ":" + port_text + ": " + message);
  }
  return std::unique_ptr<LibpqSession>(new LibpqSession(conn));
}

LibpqSession::~LibpqSession() { PQfinish(conn_); }

Result<PgResult> LibpqSession::Exec(const std::string& sql) {
  PGresult* r = PQexec(conn_, sql.c_str());
  if (r == nullptr) return Status::IoError("libpq: " + Trimmed(PQerrorMessage(conn_)));
  return Collect(r);
}

Result<PgResult> LibpqSession::CopyIn(const std::string& sql, const std::string& data) {
  PGresult* r = PQexec(conn_, sql.c_str());
  if (r == nullptr) return Status::IoError("libpq: " + Trimmed(PQerrorMessage(conn_)));
  if (PQresultStatus(r) != PGRES_COPY_IN) {
    auto c = Collect(r);
    if (!c.ok()) return c.status();
    return Status::InvalidArgument("not a COPY FROM STDIN: " + sql);
  }
  PQclear(r);
  for (size_t at = 0; at < data.size(); at += kCopyPiece) {
    const size_t n = std::min(kCopyPiece, data.size() - at);
    if (PQputCopyData(conn_, data.data() + at, static_cast<int>(n)) != 1) {
      return Status::IoError("libpq COPY: " + Trimmed(PQerrorMessage(conn_)));
    }
  }
  if (PQputCopyEnd(conn_, nullptr) != 1) return Status::IoError("libpq COPY end: " + Trimmed(PQerrorMessage(conn_)));
  Result<PgResult> out = Status::IoError("libpq COPY: no result");
  bool first = true;
  while (PGresult* done = PQgetResult(conn_)) {
    if (first) {
      out = Collect(done);
      first = false;
    } else {
      PQclear(done);
    }
  }
  return out;
}

Result<TcpBytes> LibpqSession::KernelBytes() const {
  const int fd = PQsocket(conn_);
  if (fd < 0) return Status::IoError("libpq has no socket");
  return ReadTcpBytes(fd);
}

std::string LibpqSession::LibraryVersion() {
  const int v = PQlibVersion();
  return fmt::format("{}.{}", v / 10000, v % 10000);
}

}  // namespace memstand
