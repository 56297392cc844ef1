#include "client/redis_client.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "core/clock.h"
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

// What the reply to a command of the control paths must be, besides an error reply:
// one of `types`, and `text` when it is not empty. No types: anything (a command a
// caller sends for its own reasons).
struct ReplyShape {
  std::vector<resp::Type> types;
  std::string text;
};

ReplyShape ShapeOf(const std::vector<std::string>& args) {
  using T = resp::Type;
  const std::string name = Lower(args[0]);
  const std::string sub = args.size() > 1 ? Lower(args[1]) : "";
  if (name == "info" || (name == "cluster" && sub == "info"))
    return {{T::kBulkString, T::kVerbatim}, ""};
  if (name == "ping")
    return args.size() == 1 ? ReplyShape{{T::kSimpleString}, "PONG"}
                            : ReplyShape{{T::kBulkString}, ""};
  if (name == "auth" || name == "select" || name == "readonly") return {{T::kSimpleString}, "OK"};
  if (name == "hello") return {{T::kMap, T::kArray}, ""};
  if (name == "dbsize") return {{T::kInteger}, ""};
  if ((name == "cluster" && sub == "slots") || (name == "config" && sub == "get")) {
    return {{T::kArray, T::kMap}, ""};
  }
  return {};
}

// OK when `reply` can answer `args`; else a Protocol error naming both.
Status CheckShape(const std::vector<std::string>& args, const resp::Reply& reply,
                  const std::string& received) {
  const ReplyShape shape = ShapeOf(args);
  if (shape.types.empty() || reply.is_error()) return Status::OK();
  const bool type_ok =
      std::find(shape.types.begin(), shape.types.end(), reply.type) != shape.types.end();
  if (type_ok && (shape.text.empty() || reply.str == shape.text)) return Status::OK();
  std::string want;
  for (resp::Type t : shape.types)
    want += std::string(want.empty() ? "" : " or ") + resp::TypeName(t);
  if (!shape.text.empty()) want += " \"" + shape.text + "\"";
  return Status::Protocol("the reply to " + args[0] + " must be " + want + ", not " +
                          resp::TypeName(reply.type) + " \"" + Printable(received) +
                          "\" (replies out of step); connection closed");
}

}  // namespace

Result<std::unique_ptr<RedisClient>> RedisClient::Connect(const std::string& host, int port, int timeout_ms) {
  RedisClientOptions o;
  o.host = host;
  o.port = port;
  o.timeout_ms = timeout_ms;
  return Connect(o);
}

Result<std::unique_ptr<RedisClient>> RedisClient::Connect(const RedisClientOptions& options) {
  if (options.resp != 2 && options.resp != 3) {
    return Status::InvalidArgument("RESP version must be 2 or 3, not " +
                                   std::to_string(options.resp));
  }
  if (options.timeout_ms <= 0) return Status::InvalidArgument("timeout_ms must be positive");
  const int64_t deadline = NowNs() + int64_t{options.timeout_ms} * 1'000'000;
  const bool unix_socket = !options.unix_path.empty();
  auto fd = unix_socket ? ConnectUnix(options.unix_path, options.timeout_ms, /*blocking=*/true)
                        : ConnectTcp(options.host, options.port, options.timeout_ms, /*blocking=*/true);
  if (!fd.ok()) return fd.status().WithContext("connect to redis");
  std::unique_ptr<RedisClient> client(new RedisClient(*fd, options.timeout_ms));
  Status s = SetNonBlocking(*fd, true);
  if (s.ok() && options.tls) {
    auto tls = TlsSession::Start(options.tls, options.host);
    s = tls.ok() ? TlsHandshakeBy(tls->get(), *fd, deadline) : tls.status();
    if (tls.ok()) client->tls_ = std::move(*tls);
    if (s.ok()) client->CountTlsBytes();
  }
  if (s.ok()) s = client->Handshake(options, deadline);
  if (s.code() == Status::Code::kServer) return s;
  if (!s.ok())
    return s.WithContext("redis at " + (unix_socket ? options.unix_path
                                                    : options.host + ":" + std::to_string(options.port)));
  return client;
}

RedisClient::~RedisClient() {
  if (fd_ >= 0) close(fd_);
}

// Every set-up command within the deadline counted from the connect.
Status RedisClient::Handshake(const RedisClientOptions& options, int64_t deadline_ns) {
  in_setup_ = true;
  for (const auto& args : HandshakeCommands(options)) {
    Status s = HandshakeStep(args, deadline_ns);
    if (!s.ok()) return s;
  }
  in_setup_ = false;
  return Status::OK();
}

Status RedisClient::HandshakeStep(const std::vector<std::string>& args, int64_t deadline_ns) {
  auto reply = Exchange(args, deadline_ns);
  if (!reply.ok()) return reply.status().WithContext(args[0]);
  if (reply->is_error()) return Status::Server(reply->str);
  return Status::OK();
}

Result<resp::Reply> RedisClient::Command(const std::vector<std::string>& args) {
  return Exchange(args, NowNs() + int64_t{timeout_ms_} * 1'000'000);
}

Result<resp::Reply> RedisClient::Exchange(const std::vector<std::string>& args,
                                          int64_t deadline_ns) {
  auto replies = ExchangeAll({args}, deadline_ns);
  if (!replies.ok()) return replies.status();
  return std::move(replies->front());
}

Result<std::vector<resp::Reply>> RedisClient::Pipeline(
    const std::vector<std::vector<std::string>>& commands) {
  return ExchangeAll(commands, NowNs() + int64_t{timeout_ms_} * 1'000'000);
}

Result<std::vector<resp::Reply>> RedisClient::ExchangeAll(
    const std::vector<std::vector<std::string>>& commands, int64_t deadline_ns) {
  if (!broken_.ok()) return broken_;
  if (commands.empty()) return Status::InvalidArgument("no command");
  Buffer out(256);
  for (const auto& args : commands) {
    if (args.empty()) return Status::InvalidArgument("empty command");
    const std::vector<std::string_view> views(args.begin(), args.end());
    resp::AppendCommand(&out, views);
  }
  Status s = CheckInStep(commands[0][0]);
  if (!s.ok()) return s;
  s = Send(out.ReadPtr(), out.Readable(), deadline_ns);
  if (s.code() == Status::Code::kTimeout) s = Status::Timeout("could not send within " + Bound());
  if (!s.ok()) return Broken(s);
  for (const auto& args : commands) ++sent_[Lower(args[0])];
  std::vector<resp::Reply> replies;
  for (const auto& args : commands) {
    auto reply = ReadReply(deadline_ns);
    if (!reply.ok()) return reply.status();
    s = CheckShape(args, *reply, received_);
    if (!s.ok()) return Broken(s);
    replies.push_back(std::move(*reply));
  }
  return replies;
}

// One command at a time: bytes that came before this command was sent answer none of
// ours (a reply to an earlier one, or a second reply to it).
Status RedisClient::CheckInStep(const std::string& command) {
  if (tls_) {
    Status s = DrainPending();
    if (!s.ok()) return Broken(s);
    if (in_.Readable() == 0) return Status::OK();
  }
  if (in_.Readable() == 0 && !HasPendingBytes(fd_)) return Status::OK();
  if (!tls_) {
    in_.EnsureWritable(kMaxShown);
    auto n = ReadSomeBy(fd_, in_.WritePtr(), kMaxShown, NowNs());
    if (n.ok()) in_.Commit(*n);
    if (n.ok()) bytes_.read += *n;
  }
  const std::string_view stray(in_.ReadPtr(), std::min(in_.Readable(), kMaxShown));
  return Broken(Status::Protocol("bytes with no command in flight came before " + command + ": \"" +
                                 Printable(stray) + "\" (replies out of step); connection closed"));
}

std::string RedisClient::Bound() const {
  return std::to_string(timeout_ms_) + " ms" +
         (in_setup_ ? " of connecting (the connect and the set-up commands together)" : "");
}

Result<resp::Reply> RedisClient::ReadReply(int64_t deadline_ns) {
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
        const bool tls_record = !tls_ && LooksLikeTls(received_.data(), received_.size());
        return Broken(Status::Protocol(
            "not a RESP reply (" + reader_.error() + "); received \"" + Printable(received_) +
            "\"" + (tls_record ? ": a TLS record, the server expects TLS (use rediss:// or --tls)"
                                : "")));
      }
    }
    in_.EnsureWritable(kReadChunk);
    auto n = Receive(in_.WritePtr(), in_.Writable(), deadline_ns);
    if (!n.ok() && n.status().code() == Status::Code::kTimeout) {
      return Broken(Status::Timeout("no reply within " + Bound()));
    }
    // A TLS port resets (or closes) a plaintext connection without a word.
    const bool silent = !tls_ && received_.empty() && bytes_.read == 0;
    if (!n.ok() && silent) {
      return Broken(Status::IoError(n.status().message() + "; " + kExpectsTlsHint));
    }
    if (!n.ok()) return Broken(n.status());
    if (*n == 0) {
      std::string after = received_.empty() ? "" : " after \"" + Printable(received_) + "\"";
      if (silent) after += "; " + std::string(kExpectsTlsHint);
      return Broken(Status::IoError("connection closed by the server" + after));
    }
    in_.Commit(*n);
  }
}

Status RedisClient::Send(const char* p, size_t n, int64_t deadline_ns) {
  if (!tls_) {
    Status s = WriteAllBy(fd_, p, n, deadline_ns);
    if (s.ok()) bytes_.written += n;
    return s;
  }
  Status s = TlsWriteAllBy(tls_.get(), fd_, p, n, deadline_ns);
  CountTlsBytes();
  return s;
}

Result<size_t> RedisClient::Receive(char* buf, size_t cap, int64_t deadline_ns) {
  if (!tls_) {
    auto n = ReadSomeBy(fd_, buf, cap, deadline_ns);
    if (n.ok()) bytes_.read += *n;
    return n;
  }
  auto n = TlsReadSomeBy(tls_.get(), fd_, buf, cap, deadline_ns);
  CountTlsBytes();
  return n;
}

Status RedisClient::DrainPending() {
  Status s = TlsDrainPendingBy(tls_.get(), fd_, &in_, NowNs() + int64_t{timeout_ms_} * 1'000'000);
  CountTlsBytes();
  return s;
}

void RedisClient::CountTlsBytes() {
  bytes_.read = tls_->fed_bytes();
  bytes_.written = tls_->taken_bytes();
}

Result<TcpBytes> RedisClient::KernelBytes() const {
  if (fd_ < 0) return broken_;
  return ReadTcpBytes(fd_);
}

// Closes the connection for good: whatever the server sends later answers nothing.
Status RedisClient::Broken(Status s) {
  broken_ = Status(s).WithContext("connection closed after an earlier error");
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  return s;
}

}  // namespace memstand
