#include "client/redis_client.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "core/socket.h"

namespace memstand {

namespace {

constexpr size_t kReadChunk = 16 * 1024;
constexpr size_t kMaxShown = 64;  // bytes of a bad reply quoted in the error

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Bytes as a C-like string literal body: \r \n \xHH for the non-printable.
std::string Printable(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

std::vector<std::vector<std::string>> HandshakeCommands(const RedisClientOptions& o) {
  std::vector<std::vector<std::string>> steps;
  const std::string user = o.user.empty() ? "default" : o.user;
  if (o.resp == 3) {
    steps.push_back({"HELLO", "3"});
    if (!o.password.empty()) steps.back().insert(steps.back().end(), {"AUTH", user, o.password});
  } else if (!o.password.empty()) {
    steps.push_back({"AUTH"});
    if (!o.user.empty()) steps.back().push_back(o.user);
    steps.back().push_back(o.password);
  }
  if (o.db != 0) steps.push_back({"SELECT", std::to_string(o.db)});
  if (steps.empty()) steps.push_back({"PING"});
  return steps;
}

}  // namespace

Result<std::unique_ptr<RedisClient>> RedisClient::Connect(const RedisClientOptions& options) {
  if (options.resp != 2 && options.resp != 3) {
    return Status::InvalidArgument("RESP version must be 2 or 3, not " +
                                   std::to_string(options.resp));
  }
  if (options.timeout_ms <= 0) return Status::InvalidArgument("timeout_ms must be positive");
  auto fd = ConnectTcp(options.host, options.port, options.timeout_ms, /*blocking=*/true);
  if (!fd.ok()) return fd.status().WithContext("connect to redis");
  std::unique_ptr<RedisClient> client(new RedisClient(*fd, options.timeout_ms));
  Status s = SetIoTimeout(*fd, options.timeout_ms);
  if (s.ok()) s = client->Handshake(options);
  if (s.code() == Status::Code::kServer) return s;
  if (!s.ok())
    return s.WithContext("redis at " + options.host + ":" + std::to_string(options.port));
  return client;
}

RedisClient::~RedisClient() { close(fd_); }

Status RedisClient::Handshake(const RedisClientOptions& options) {
  for (const auto& args : HandshakeCommands(options)) {
    Status s = HandshakeStep(args);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status RedisClient::HandshakeStep(const std::vector<std::string>& args) {
  auto reply = Command(args);
  if (!reply.ok()) return reply.status().WithContext(args[0]);
  if (reply->is_error()) return Status::Server(reply->str);
  return Status::OK();
}

Result<resp::Reply> RedisClient::Command(const std::vector<std::string>& args) {
  if (!broken_.ok()) return broken_;
  if (args.empty()) return Status::InvalidArgument("empty command");
  const std::vector<std::string_view> views(args.begin(), args.end());
  Buffer out(256);
  resp::AppendCommand(&out, views);
  Status s = WriteAll(fd_, out.ReadPtr(), out.Readable());
  if (s.code() == Status::Code::kTimeout) {
    s = Status::Timeout("could not send within " + std::to_string(timeout_ms_) + " ms");
  }
  if (!s.ok()) return Broken(s);
  ++sent_[Lower(args[0])];
  return ReadReply();
}

Result<resp::Reply> RedisClient::ReadReply() {
  received_.clear();
  for (;;) {
    if (in_.Readable() > 0) {
      size_t used = 0;
      const auto event = reader_.Feed(in_.ReadPtr(), in_.Readable(), &used);
      const size_t shown = event == resp::Reader::Event::kProtocolError ? in_.Readable() : used;
      received_.append(in_.ReadPtr(), std::min(shown, kMaxShown - received_.size()));
      in_.Consume(used);
      if (event == resp::Reader::Event::kReply) return reader_.TakeReply();
      if (event == resp::Reader::Event::kProtocolError) {
        return Broken(Status::Protocol("not a RESP reply (" + reader_.error() + "); received \"" +
                                       Printable(received_) + "\""));
      }
    }
    in_.EnsureWritable(kReadChunk);
    auto n = ReadSome(fd_, in_.WritePtr(), in_.Writable());
    if (!n.ok() && n.status().code() == Status::Code::kTimeout) {
      return Broken(Status::Timeout("no reply within " + std::to_string(timeout_ms_) + " ms"));
    }
    if (!n.ok()) return Broken(n.status());
    if (*n == 0) {
      std::string after = received_.empty() ? "" : " after \"" + Printable(received_) + "\"";
      return Broken(Status::IoError("connection closed by the server" + after));
    }
    in_.Commit(*n);
  }
}

Status RedisClient::Broken(Status s) {
  broken_ = Status(s).WithContext("connection unusable after an earlier error");
  return s;
}

}  // namespace memstand
