#include "load/proto_control.h"

#include <poll.h>
#include <unistd.h>

#include <cstdlib>

#include "core/buffer.h"
#include "core/clock.h"
#include "core/socket.h"
#include "proto/etcd/etcd.h"
#include "proto/etcd/http.h"
#include "proto/iproto/greeting.h"
#include "proto/iproto/iproto.h"
#include "proto/memcache/memcache.h"

namespace memstand {

namespace {

// Reads what arrives within timeout_ms (at most cap bytes); "" on silence or close.
std::string ReadWithin(int fd, int timeout_ms, size_t cap) {
  std::string got;
  const int64_t deadline = NowNs() + int64_t{timeout_ms} * 1'000'000;
  char buf[512];
  while (got.size() < cap) {
    const int64_t left_ms = (deadline - NowNs()) / 1'000'000;
    if (left_ms <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left_ms)) <= 0) break;
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
    if (got.find('\n') != std::string::npos) break;
  }
  return got;
}

// Tarantool's box.stat() totals as one map.
constexpr const char* kBoxStatLua =
    "local t = {} for k, v in pairs(box.stat()) do t[k] = v.total end return t";

}  // namespace

std::string IdentifyServer(const RedisTarget& t, int timeout_ms) {
  auto fd = ConnectNode(t, t.host, t.port, timeout_ms, true);
  if (!fd.ok()) return "";
  std::string first = ReadWithin(*fd, std::min(timeout_ms, 300), 128);
  std::string kind;
  if (first.starts_with("Tarantool")) {
    kind = first.find("Lua console") != std::string::npos ? "a Tarantool console port"
                                                          : "Tarantool (IPROTO)";
  } else if (first.empty() && WriteAll(*fd, "PING\r\n", 6).ok()) {
    std::string answer = ReadWithin(*fd, std::min(timeout_ms, 700), 64);
    if (answer.starts_with("+PONG") || answer.starts_with("-")) {
      kind = "Redis (RESP)";
    } else if (answer.starts_with("ERROR")) {
      kind = "memcached (text protocol)";
    } else if (answer.starts_with("HTTP/")) {
      kind = "an HTTP server";
    }
  }
  close(*fd);
  return kind;
}

Result<std::unique_ptr<ProtoControl>> ProtoControl::Connect(Protocol p, const RedisTarget& target,
                                                            int timeout_ms,
                                                            std::shared_ptr<const TlsContext> tls) {
  std::unique_ptr<ProtoControl> c(new ProtoControl());
  c->protocol_ = p;
  c->target_ = target;
  c->timeout_ms_ = timeout_ms;
  c->deadline_ns_ = NowNs() + int64_t{timeout_ms} * 1'000'000;
  c->in_setup_ = true;
  auto fd = ConnectNode(target, target.host, target.port, timeout_ms, true);
  if (!fd.ok()) return fd.status().WithContext("cannot use " + target.Display());
  c->fd_ = *fd;
  Status s = SetNonBlocking(c->fd_, true);
  if (s.ok() && tls) {
    auto session = TlsSession::Start(std::move(tls), target.host);
    s = session.ok() ? TlsHandshakeBy(session->get(), c->fd_, c->deadline_ns_) : session.status();
    if (session.ok()) c->tls_ = std::move(*session);
    if (c->tls_) c->bytes_ = {c->tls_->fed_bytes(), c->tls_->taken_bytes()};
    if (s.code() == Status::Code::kTimeout) s = Status::Timeout("TLS handshake: not within " + c->Bound());
    if (!s.ok()) return s.WithContext("cannot use " + target.Display());
  }
  if (s.ok()) s = c->Handshake();
  if (!s.ok()) return s;
  c->in_setup_ = false;
  return c;
}

ProtoControl::~ProtoControl() {
  if (fd_ >= 0) close(fd_);
}

Status ProtoControl::Begin() {
  if (!broken_.ok()) return broken_;
  deadline_ns_ = NowNs() + int64_t{timeout_ms_} * 1'000'000;
  return Status::OK();
}

// Closes the connection for good: whatever the server sends later answers nothing.
Status ProtoControl::Broken(Status s) {
  if (broken_.ok()) {
    broken_ = s.WithContext("control connection to " + target_.Display() +
                            " closed after an earlier error");
  }
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  return s;
}

std::string ProtoControl::Bound() const {
  return std::to_string(timeout_ms_) + " ms" +
         (in_setup_ ? " of connecting (the connect and the set-up exchange together)" : "");
}

// One request at a time: bytes that came before a request answer none of ours.
Status ProtoControl::CheckInStep() {
  if (tls_) {  // records between replies (session tickets) carry no reply
    Buffer stray(0);
    Status s = TlsDrainPendingBy(tls_.get(), fd_, &stray, deadline_ns_);
    bytes_ = {tls_->fed_bytes(), tls_->taken_bytes()};
    if (!s.ok()) return s.WithContext(target_.Display());
    if (stray.Readable() == 0) return Status::OK();
  } else if (!HasPendingBytes(fd_)) {
    return Status::OK();
  }
  return Status::Protocol("bytes with no request in flight came from " + target_.Display() +
                          " (replies out of step); connection closed");
}

template <class Reader>
Status ProtoControl::Exchange(const Buffer& request, Reader* reader) {
  if (!broken_.ok()) return broken_;
  Status s = CheckInStep();
  if (s.ok()) s = Send(request);
  if (s.code() == Status::Code::kTimeout) s = Status::Timeout("could not send within " + Bound());
  if (s.ok()) s = ReadReply(reader);
  return s.ok() ? s : Broken(s);
}

Status ProtoControl::Send(const Buffer& request) {
  if (!tls_) {
    Status s = WriteAllBy(fd_, request.ReadPtr(), request.Readable(), deadline_ns_);
    if (s.ok()) bytes_.written += request.Readable();
    return s;
  }
  Status s = TlsWriteAllBy(tls_.get(), fd_, request.ReadPtr(), request.Readable(), deadline_ns_);
  bytes_ = {tls_->fed_bytes(), tls_->taken_bytes()};
  return s;
}

Result<size_t> ProtoControl::Receive(char* buf, size_t cap) {
  if (!tls_) {
    auto n = ReadSomeBy(fd_, buf, cap, deadline_ns_);
    if (n.ok()) bytes_.read += *n;
    return n;
  }
  auto n = TlsReadSomeBy(tls_.get(), fd_, buf, cap, deadline_ns_);
  bytes_ = {tls_->fed_bytes(), tls_->taken_bytes()};
  return n;
}

// The error for a server that did not answer as `protocol_` does, naming what it is.
Status ProtoControl::WrongServer(const std::string& detail) const {
  // A plaintext probe tells nothing through a TLS port.
  std::string other = tls_ ? "" : IdentifyServer(target_, std::min(timeout_ms_, 1000));
  std::string msg = std::string("--protocol ") + ProtocolName(protocol_) + ": " +
                    target_.Display() + " does not answer as " + ProtocolServer(protocol_) +
                    " (" + detail + ")";
  if (!other.empty()) msg += "; the server there speaks " + other;
  if (other.empty() && !tls_ && bytes_.read == 0) msg += "; " + std::string(kExpectsTlsHint);
  return Status::Protocol(msg);
}

// Reads until one whole reply; bytes after it (a second reply) are out of step.
template <class Reader>
Status ProtoControl::ReadReply(Reader* reader) {
  char buf[16 * 1024];
  for (;;) {
    auto n = Receive(buf, sizeof(buf));
    if (!n.ok()) {
      return n.status().code() == Status::Code::kTimeout
                 ? Status::Timeout("no reply within " + Bound())
                 : n.status().WithContext(target_.Display());
    }
    if (*n == 0) return Status::IoError("the connection closed before a reply");
    size_t used = 0;
    auto ev = reader->Feed(buf, *n, &used);
    if (ev == Reader::Event::kProtocolError) return Status::Protocol(reader->error());
    if (ev == Reader::Event::kReply && used < *n) {
      return Status::Protocol(std::to_string(*n - used) +
                              " bytes came after the reply, with no request in flight "
                              "(replies out of step); connection closed");
    }
    if (ev == Reader::Event::kReply) return Status::OK();
  }
}

// An IPROTO request (sync sync_) and its reply, which must carry the same sync.
Status ProtoControl::IprotoExchange(const Buffer& request, iproto::Reader* reader) {
  Status s = Exchange(request, reader);
  if (s.ok() && reader->summary().sync != sync_) {
    s = Broken(Status::Protocol("a reply with sync " + std::to_string(reader->summary().sync) +
                                " to the request with sync " + std::to_string(sync_) +
                                " (replies out of step); connection closed"));
  }
  return s;
}

Status ProtoControl::Handshake() {
  if (protocol_ == Protocol::kMemcache) {
    Buffer out;
    memcache::AppendVersion(&out);
    memcache::Reader reader(memcache::Reader::Mode::kFull);
    Status s = Exchange(out, &reader);
    if (!s.ok()) return WrongServer("version: " + s.message());
    memcache::Reply r = reader.TakeReply();
    if (r.kind != memcache::Kind::kVersion) {
      Broken(Status::Protocol("not a VERSION reply"));
      return WrongServer("version: not a VERSION reply");
    }
    version_ = r.text;
    return Status::OK();
  }
  if (protocol_ == Protocol::kEtcd) {
    auto counters = EtcdCounters();
    return counters.ok() ? Status::OK() : counters.status();
  }
  // IPROTO: the greeting, by the connect's deadline.
  std::string greeting;
  char buf[iproto::kGreetingSize];
  while (greeting.size() < iproto::kGreetingSize) {
    auto n = Receive(buf, iproto::kGreetingSize - greeting.size());
    if (!n.ok() || *n == 0) {
      Broken(n.ok() ? Status::IoError("closed") : n.status());
      return WrongServer(n.ok() ? "closed before sending a greeting"
                                : "no Tarantool greeting within " + Bound());
    }
    greeting.append(buf, *n);
  }
  auto g = iproto::ParseGreeting(greeting);
  if (!g.ok()) return WrongServer(g.status().message());
  version_ = g->version;
  if (target_.user.empty()) return Status::OK();
  Buffer out;
  iproto::AppendAuth(&out, ++sync_, target_.user, iproto::ChapSha1Scramble(target_.password, g->salt));
  iproto::Reader reader;
  Status s = IprotoExchange(out, &reader);
  if (!s.ok()) return s.WithContext("AUTH on " + target_.Display());
  ++sent_["AUTH"];
  if (reader.summary().is_error) {
    return Status::Server("AUTH as '" + target_.user + "' on " + target_.Display() + ": " +
                          reader.summary().error);
  }
  return Status::OK();
}

Result<std::map<std::string, int64_t>> ProtoControl::Counters() {
  Status s = Begin();
  if (!s.ok()) return s;
  switch (protocol_) {
    case Protocol::kMemcache: return MemcacheCounters();
    case Protocol::kEtcd: return EtcdCounters();
    default: return IprotoCounters();
  }
}

Result<std::map<std::string, std::string>> ProtoControl::ReadStats() {
  Buffer out;
  memcache::AppendStats(&out);
  memcache::Reader reader(memcache::Reader::Mode::kFull);
  Status s = Exchange(out, &reader);
  memcache::Reply reply = s.ok() ? reader.TakeReply() : memcache::Reply{};
  if (s.ok() && reply.kind != memcache::Kind::kStats) {
    s = Broken(Status::Protocol("the reply to stats is not STAT lines but '" + reply.text +
                                "' (replies out of step); connection closed"));
  }
  if (!s.ok()) return s.WithContext("stats on " + target_.Display());
  return memcache::StatsMap(reply);
}

Result<std::map<std::string, int64_t>> ProtoControl::MemcacheCounters() {
  auto read = ReadStats();
  if (!read.ok()) return read.status();
  const auto& stats = *read;
  auto num = [&](const char* name) -> int64_t {
    auto it = stats.find(name);
    return it == stats.end() ? 0 : std::strtoll(it->second.c_str(), nullptr, 10);
  };
  std::map<std::string, int64_t> c;
  for (const char* name : {"cmd_get", "cmd_set", "get_hits", "get_misses", "cmd_touch"}) {
    c[name] = num(name);
  }
  c["delete"] = num("delete_hits") + num("delete_misses");
  c["incr"] = num("incr_hits") + num("incr_misses");
  c["decr"] = num("decr_hits") + num("decr_misses");
  return c;
}

Result<std::map<std::string, int64_t>> ProtoControl::EtcdCounters() {
  Buffer out;
  etcd::Target t;
  t.host = target_.host + ":" + std::to_string(target_.port);
  etcd::AppendStatus(&out, t);
  http::ResponseReader reader;
  Status s = Exchange(out, &reader);
  if (!s.ok()) return WrongServer("maintenance/status: " + s.message());
  auto sum = etcd::DecodeReply(reader.response().status, reader.response().body);
  if (!sum.ok()) {
    Broken(sum.status());
    return WrongServer("maintenance/status: " + sum.status().message());
  }
  if (!sum->ok) return WrongServer("maintenance/status: " + sum->error);
  if (version_.empty()) version_ = sum->version;
  shared_store_id_ = sum->cluster_id;
  return std::map<std::string, int64_t>{{"revision", sum->revision}};
}

Result<std::map<std::string, int64_t>> ProtoControl::IprotoCounters() {
  return EvalCounters(kBoxStatLua, "box.stat()");
}

Result<std::map<std::string, int64_t>> ProtoControl::EvalCounters(std::string_view lua, const std::string& what) {
  Status s = Begin();
  if (!s.ok()) return s;
  Buffer out;
  iproto::AppendEval(&out, ++sync_, lua, "\x90");
  iproto::Reader reader(iproto::Reader::Mode::kFull);
  s = IprotoExchange(out, &reader);
  if (!s.ok()) return s.WithContext(what + " on " + target_.Display());
  ++sent_["EVAL"];
  if (reader.summary().is_error) {
    return Status::Server(what + " on " + target_.Display() + ": " + reader.summary().error);
  }
  iproto::Value data = reader.TakeData();
  std::map<std::string, int64_t> c;
  if (data.items().empty() || data.items()[0].type() != iproto::Value::Type::kMap) {
    return Broken(
        Status::Protocol(what + " on " + target_.Display() + ": not a map: " + ToString(data)));
  }
  const auto& kv = data.items()[0].items();
  for (size_t i = 0; i + 1 < kv.size(); i += 2) {
    const iproto::Value& v = kv[i + 1];
    c[kv[i].str()] = v.type() == iproto::Value::Type::kUint ? static_cast<int64_t>(v.uint_value())
                                                            : v.int_value();
  }
  return c;
}

Result<uint32_t> ProtoControl::SpaceId(const std::string& name) {
  Status s = Begin();
  if (!s.ok()) return s;
  Buffer out;
  iproto::AppendEval(&out, ++sync_, "local s = box.space[...] return s and s.id",
                     iproto::Encode(iproto::Value::Array({iproto::Value::String(name)})));
  iproto::Reader reader(iproto::Reader::Mode::kFull);
  s = IprotoExchange(out, &reader);
  if (!s.ok()) return s.WithContext("looking up space '" + name + "' on " + target_.Display());
  ++sent_["EVAL"];
  if (reader.summary().is_error) {
    return Status::Server("looking up space '" + name + "': " + reader.summary().error);
  }
  iproto::Value data = reader.TakeData();
  if (data.items().empty() || data.items()[0].type() != iproto::Value::Type::kUint) {
    return Status::InvalidArgument("--command: space '" + name + "' does not exist on " +
                                   target_.Display());
  }
  return static_cast<uint32_t>(data.items()[0].uint_value());
}

Result<std::map<std::string, std::string>> ProtoControl::MemcacheStats() {
  Status s = Begin();
  if (!s.ok()) return s;
  return ReadStats();
}

Result<memcache::Reply> ProtoControl::MemcacheSet(std::string_view key, std::string_view value) {
  Status s = Begin();
  if (!s.ok()) return s;
  Buffer out;
  memcache::AppendStore(&out, memcache::StoreCommand::kSet, key, 0, 0, value);
  memcache::Reader reader(memcache::Reader::Mode::kFull);
  s = Exchange(out, &reader);
  if (!s.ok()) return s.WithContext("set on " + target_.Display());
  return reader.TakeReply();
}

Result<memcache::Reply> ProtoControl::MemcacheGet(std::string_view key) {
  Status s = Begin();
  if (!s.ok()) return s;
  Buffer out;
  memcache::AppendGet(&out, key);
  memcache::Reader reader(memcache::Reader::Mode::kFull);
  s = Exchange(out, &reader);
  if (!s.ok()) return s.WithContext("get on " + target_.Display());
  return reader.TakeReply();
}

Result<iproto::Value> ProtoControl::IprotoData(const std::function<void(Buffer*, uint64_t)>& append,
                                               const std::string& what) {
  Status s = Begin();
  if (!s.ok()) return s;
  Buffer out;
  append(&out, ++sync_);
  iproto::Reader reader(iproto::Reader::Mode::kFull);
  s = IprotoExchange(out, &reader);
  if (!s.ok()) return s.WithContext(what + " on " + target_.Display());
  ++sent_[what == "eval" ? "EVAL" : what == "call" ? "CALL" : "SELECT"];
  if (reader.summary().is_error) return Status::Server(reader.summary().error);
  return reader.TakeData();
}

Result<iproto::Value> ProtoControl::Eval(std::string_view lua, const iproto::Value& args) {
  const std::string encoded = iproto::Encode(args);
  return IprotoData([&](Buffer* out, uint64_t sync) { iproto::AppendEval(out, sync, lua, encoded); }, "eval");
}

Result<iproto::Value> ProtoControl::Call(std::string_view function, const iproto::Value& args) {
  const std::string encoded = iproto::Encode(args);
  return IprotoData([&](Buffer* out, uint64_t sync) { iproto::AppendCall(out, sync, function, encoded); },
                    "call");
}

Result<iproto::Value> ProtoControl::Select(uint32_t space_id, uint32_t index_id, const iproto::Value& key) {
  const std::string encoded = iproto::Encode(key);
  iproto::SelectRequest r;
  r.space_id = space_id;
  r.index_id = index_id;
  r.iterator = iproto::Iterator::kEq;
  r.key = encoded;
  return IprotoData([&](Buffer* out, uint64_t sync) { iproto::AppendSelect(out, sync, r); }, "select");
}

Result<TcpBytes> ProtoControl::KernelBytes() const {
  if (fd_ < 0) return broken_.ok() ? Status::Failed("not connected") : broken_;
  return ReadTcpBytes(fd_);
}

Result<etcd::Summary> ProtoControl::EtcdRequest(
    const std::function<void(Buffer*, const etcd::Target&)>& encode, bool want_kvs) {
  Status s = Begin();
  if (!s.ok()) return s;
  Buffer out;
  etcd::Target t;
  t.host = target_.host + ":" + std::to_string(target_.port);
  encode(&out, t);
  http::ResponseReader reader;
  s = Exchange(out, &reader);
  if (!s.ok()) return s.WithContext("etcd request on " + target_.Display());
  auto sum = etcd::DecodeReply(reader.response().status, reader.response().body, want_kvs);
  if (!sum.ok()) return Broken(sum.status());
  return sum;
}

}  // namespace memstand
