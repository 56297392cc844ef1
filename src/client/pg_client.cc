#include "client/pg_client.h"

#include <unistd.h>

#include "core/clock.h"
#include "core/socket.h"

namespace memstand {
namespace {

constexpr size_t kPgReadChunk = 64 * 1024;

}  // namespace

Result<std::unique_ptr<PgClient>> PgClient::Connect(const std::string& host, int port, const std::string& user,
                                                    const std::string& database, int timeout_ms) {
  auto fd = ConnectTcp(host, port, timeout_ms, true);
  if (!fd.ok()) return fd.status().WithContext("connect to postgresql");
  std::unique_ptr<PgClient> c(new PgClient(*fd, timeout_ms));
  Status s = SetNonBlocking(*fd, true);
  if (!s.ok()) return s;
  c->deadline_ns_ = NowNs() + int64_t{timeout_ms} * 1'000'000;
  std::string startup;
  pg::AppendStartup(&startup, user, database);
  s = c->Send(startup);
  if (!s.ok()) return s;
  auto r = c->Receive(pg::Reader::Phase::kStartup);
  if (!r.ok()) return r.status();
  if (r->has_error) return Status::Server("postgresql: " + r->error);
  return c;
}

PgClient::~PgClient() {
  if (fd_ >= 0) {
    std::string bye;
    pg::AppendTerminate(&bye);
    Send(bye);
    close(fd_);
  }
}

Status PgClient::Broken(Status s) {
  if (broken_.ok()) broken_ = Status(s).WithContext("postgresql connection closed after an earlier error");
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  return s;
}

Status PgClient::Send(const std::string& bytes) {
  if (!broken_.ok()) return broken_;
  Status s = WriteAllBy(fd_, bytes.data(), bytes.size(), deadline_ns_);
  if (!s.ok()) return Broken(s);
  bytes_.written += bytes.size();
  return Status::OK();
}

Result<pg::Reply> PgClient::Receive(pg::Reader::Phase phase) {
  pg::Reader reader(phase);
  for (;;) {
    if (in_.Readable() > 0) {
      size_t used = 0;
      const auto ev = reader.Feed(in_.ReadPtr(), in_.Readable(), &used);
      in_.Consume(used);
      if (ev == pg::Reader::Event::kReply) return reader.TakeReply();
      if (ev == pg::Reader::Event::kProtocolError) return Broken(Status::Protocol(reader.error()));
    }
    in_.EnsureWritable(kPgReadChunk);
    auto n = ReadSomeBy(fd_, in_.WritePtr(), in_.Writable(), deadline_ns_);
    if (!n.ok()) return Broken(n.status());
    if (*n == 0) return Broken(Status::IoError("postgresql closed the connection"));
    in_.Commit(*n);
    bytes_.read += *n;
  }
}

Result<PgResult> PgClient::Query(const std::string& sql) {
  if (sql.find('\0') != std::string::npos) return Status::InvalidArgument("a query with a NUL byte");
  deadline_ns_ = NowNs() + int64_t{timeout_ms_} * 1'000'000;
  std::string q;
  pg::AppendQuery(&q, sql);
  Status s = Send(q);
  if (!s.ok()) return s;
  auto r = Receive(pg::Reader::Phase::kQuery);
  if (!r.ok()) return r.status();
  if (r->has_error) return Status::Server("postgresql: " + r->error);
  return PgResult{std::move(r->rows), std::move(r->tag)};
}

Result<TcpBytes> PgClient::KernelBytes() const {
  if (fd_ < 0) return broken_;
  return ReadTcpBytes(fd_);
}

}  // namespace memstand
