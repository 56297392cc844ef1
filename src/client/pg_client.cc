#include "client/pg_client.h"

#include <unistd.h>

#include <cstring>

#include "core/clock.h"
#include "core/socket.h"

namespace memstand {
namespace {

constexpr size_t kReadChunk = 64 * 1024;
constexpr size_t kCopyChunk = 256 * 1024;
constexpr uint32_t kMaxMessage = 1u << 30;

void PutInt32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((v >> shift) & 0xff));
}

uint32_t GetInt32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
}

// A typed message: type, length (itself included), body.
std::string Message(char type, const std::string& body) {
  std::string out(1, type);
  PutInt32(&out, static_cast<uint32_t>(body.size() + 4));
  return out + body;
}

std::string StartupMessage(const std::string& user, const std::string& database) {
  std::string body;
  PutInt32(&body, 196608);  // protocol 3.0
  for (const std::string& s : {std::string("user"), user, std::string("database"), database}) {
    body += s;
    body.push_back('\0');
  }
  body.push_back('\0');
  std::string out;
  PutInt32(&out, static_cast<uint32_t>(body.size() + 4));
  return out + body;
}

// The M field of an ErrorResponse body (fields: type byte, C string; 0 ends them).
std::string ErrorText(const std::string& body) {
  for (size_t at = 0; at < body.size() && body[at] != '\0';) {
    const char field = body[at];
    const size_t end = body.find('\0', at + 1);
    if (end == std::string::npos) break;
    if (field == 'M') return body.substr(at + 1, end - at - 1);
    at = end + 1;
  }
  return "error without a message";
}

Result<std::vector<std::string>> DataRow(const std::string& body) {
  if (body.size() < 2) return Status::Protocol("a DataRow without a column count");
  const size_t columns = (static_cast<unsigned char>(body[0]) << 8) | static_cast<unsigned char>(body[1]);
  std::vector<std::string> row;
  row.reserve(columns);
  size_t at = 2;
  for (size_t i = 0; i < columns; ++i) {
    if (at + 4 > body.size()) return Status::Protocol("a DataRow cut short");
    const uint32_t len = GetInt32(body.data() + at);
    at += 4;
    if (len == 0xffffffffu) {
      row.emplace_back();
      continue;
    }
    if (at + len > body.size()) return Status::Protocol("a DataRow cut short");
    row.emplace_back(body, at, len);
    at += len;
  }
  return row;
}

}  // namespace

Result<std::unique_ptr<PgClient>> PgClient::Connect(const std::string& host, int port, const std::string& user,
                                                    const std::string& database, int timeout_ms) {
  auto fd = ConnectTcp(host, port, timeout_ms, true);
  if (!fd.ok()) return fd.status().WithContext("connect to postgresql");
  std::unique_ptr<PgClient> c(new PgClient(*fd, timeout_ms));
  Status s = SetNonBlocking(*fd, true);
  if (!s.ok()) return s;
  c->deadline_ns_ = NowNs() + int64_t{timeout_ms} * 1'000'000;
  s = c->Send(StartupMessage(user, database));
  if (!s.ok()) return s;
  for (;;) {
    char type = 0;
    std::string body;
    s = c->Next(&type, &body);
    if (!s.ok()) return s;
    if (type == 'E') return Status::Server("postgresql: " + ErrorText(body));
    if (type == 'R' && (body.size() < 4 || GetInt32(body.data()) != 0)) {
      return Status::Server("postgresql asks for a password; memstand's client supports trust only");
    }
    if (type == 'Z') return c;
  }
}

PgClient::~PgClient() {
  if (fd_ >= 0) {
    Send(Message('X', ""));  // Terminate
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

Status PgClient::Next(char* type, std::string* body) {
  for (;;) {
    if (in_.Readable() >= 5) {
      const uint32_t len = GetInt32(in_.ReadPtr() + 1);
      if (len < 4 || len > kMaxMessage) return Broken(Status::Protocol("a message of length " + std::to_string(len)));
      if (in_.Readable() >= 1 + size_t{len}) {
        *type = in_.ReadPtr()[0];
        body->assign(in_.ReadPtr() + 5, len - 4);
        in_.Consume(1 + size_t{len});
        return Status::OK();
      }
    }
    in_.EnsureWritable(kReadChunk);
    auto n = ReadSomeBy(fd_, in_.WritePtr(), in_.Writable(), deadline_ns_);
    if (!n.ok()) return Broken(n.status());
    if (*n == 0) return Broken(Status::IoError("postgresql closed the connection"));
    in_.Commit(*n);
    bytes_.read += *n;
  }
}

Result<PgResult> PgClient::Collect(const std::string* copy_data) {
  PgResult out;
  std::string error;
  for (;;) {
    char type = 0;
    std::string body;
    Status s = Next(&type, &body);
    if (!s.ok()) return s;
    if (type == 'D') {
      auto row = DataRow(body);
      if (!row.ok()) return Broken(row.status());
      out.rows.push_back(std::move(*row));
    } else if (type == 'C') {
      out.tag = body.substr(0, body.find('\0'));
    } else if (type == 'E') {
      error = ErrorText(body);
    } else if (type == 'G') {
      if (copy_data == nullptr) return Broken(Status::Protocol("COPY IN for a query that is not a COPY"));
      for (size_t at = 0; at < copy_data->size(); at += kCopyChunk) {
        s = Send(Message('d', copy_data->substr(at, kCopyChunk)));
        if (!s.ok()) return s;
      }
      s = Send(Message('c', ""));
      if (!s.ok()) return s;
    } else if (type == 'Z') {
      if (!error.empty()) return Status::Server("postgresql: " + error);
      return out;
    }
  }
}

Result<PgResult> PgClient::Query(const std::string& sql) {
  deadline_ns_ = NowNs() + int64_t{timeout_ms_} * 1'000'000;
  Status s = Send(Message('Q', sql + std::string(1, '\0')));
  if (!s.ok()) return s;
  return Collect(nullptr);
}

Result<PgResult> PgClient::CopyIn(const std::string& sql, const std::string& data) {
  deadline_ns_ = NowNs() + int64_t{timeout_ms_} * 1'000'000;
  Status s = Send(Message('Q', sql + std::string(1, '\0')));
  if (!s.ok()) return s;
  return Collect(&data);
}

Result<TcpBytes> PgClient::KernelBytes() const {
  if (fd_ < 0) return broken_;
  return ReadTcpBytes(fd_);
}

}  // namespace memstand
