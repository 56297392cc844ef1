#include "load/history_checks.h"

#include <functional>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "client/redis_client.h"
#include "core/tls.h"
#include "history/linearizable.h"
#include "history/lost_writes.h"
#include "history/revisions.h"
#include "history/sessions.h"
#include "history/value_tag.h"
#include "load/proto_control.h"
#include "proto/etcd/etcd.h"
#include "proto/iproto/value.h"
#include "proto/memcache/memcache.h"

namespace memstand {

using history::CheckResult;
using history::History;

namespace {

// Keys read after the run per pipelined batch of GETs.
constexpr size_t kFinalReadBatch = 512;
constexpr size_t kForeignPreviewBytes = 40;
// etcd, Tarantool, memcached: the bound of the connect and of each read (ProtoControl).
constexpr int kFinalReadTimeoutMs = 5000;

// What a value read back says of the key: this run's write (its tag), or other bytes.
history::FinalValue FinalOfValue(const History& h, const std::string& value) {
  history::FinalValue v;
  if (const auto id = history::ReadValueTag(h.header.run_tag, value)) {
    v.seen = history::Seen::kOurs;
    v.value = *id;
  } else {
    v.seen = history::Seen::kForeign;
    v.preview = value.substr(0, kForeignPreviewBytes);
  }
  return v;
}

// What a GET's reply says of the key.
Result<history::FinalValue> FinalOf(const History& h, uint64_t key, const resp::Reply& reply) {
  history::FinalValue v;
  if (reply.is_null) return v;  // kAbsent
  if (reply.is_error()) {
    return Status::Server(fmt::format("GET {}: the server answered {}", h.KeyName(key), reply.str));
  }
  if (reply.type != resp::Type::kBulkString) {
    return Status::Protocol(fmt::format("GET {}: a reply that is not a string", h.KeyName(key)));
  }
  return FinalOfValue(h, reply.str);
}

// A TLS target's context, its certificate checked against the system's CAs; null for a
// plaintext one.
Result<std::shared_ptr<const TlsContext>> TargetTls(const RedisTarget& t) {
  if (!t.tls) return std::shared_ptr<const TlsContext>();
  TlsOptions options;
  options.enabled = true;
  return TlsContext::Create(options);
}

// Every written key read once from a RESP target, in batches of pipelined GETs.
Result<std::map<uint64_t, history::FinalValue>> ReadFinalValues(const History& h, const RedisTarget& t) {
  RedisClientOptions o;
  o.host = t.host;
  o.port = t.port;
  o.unix_path = t.unix_path;
  o.user = t.user;
  o.password = t.password;
  o.db = t.db;
  auto tls = TargetTls(t);
  if (!tls.ok()) return tls.status();
  o.tls = *tls;
  auto client = RedisClient::Connect(o);
  if (!client.ok()) return client.status();
  const std::vector<uint64_t> keys = history::WrittenKeys(h);
  std::map<uint64_t, history::FinalValue> finals;
  for (size_t at = 0; at < keys.size(); at += kFinalReadBatch) {
    std::vector<std::vector<std::string>> gets;
    for (size_t i = at; i < keys.size() && i < at + kFinalReadBatch; ++i) gets.push_back({"GET", h.KeyName(keys[i])});
    auto replies = (*client)->Pipeline(gets);
    if (!replies.ok()) return replies.status();
    for (size_t i = 0; i < replies->size(); ++i) {
      auto v = FinalOf(h, keys[at + i], (*replies)[i]);
      if (!v.ok()) return v.status();
      finals[keys[at + i]] = std::move(*v);
    }
  }
  return finals;
}

// Every written key read once through a control connection to the target, one request
// a key: `read` asks for one key and says what it holds.
using ReadOneKey = std::function<Result<history::FinalValue>(ProtoControl&, uint64_t key)>;
Result<std::map<uint64_t, history::FinalValue>> ReadEachKey(const History& h, const RedisTarget& t, Protocol p,
                                                            const ReadOneKey& read) {
  auto tls = TargetTls(t);
  if (!tls.ok()) return tls.status();
  auto control = ProtoControl::Connect(p, t, kFinalReadTimeoutMs, *tls);
  if (!control.ok()) return control.status();
  std::map<uint64_t, history::FinalValue> finals;
  for (uint64_t key : history::WrittenKeys(h)) {
    auto v = read(**control, key);
    if (!v.ok()) return v.status();
    finals[key] = std::move(*v);
  }
  return finals;
}

// etcd: a range of the one key.
Result<history::FinalValue> ReadEtcdKey(const History& h, ProtoControl& control, uint64_t key) {
  const std::string name = h.KeyName(key);
  auto sum = control.EtcdRequest([&](Buffer* out, const etcd::Target& et) { etcd::AppendRange(out, et, name); },
                                 /*want_kvs=*/true);
  if (!sum.ok()) return sum.status();
  if (!sum->ok) return Status::Server(fmt::format("range {}: etcd answered {}", name, sum->error));
  return sum->kv_list.empty() ? history::FinalValue{} : FinalOfValue(h, sum->kv_list[0].value);
}

// What a Tarantool select's tuples say of the key: none, absent; else the first tuple's
// value field.
history::FinalValue FinalOfTuples(const History& h, const iproto::Value& tuples) {
  if (tuples.type() != iproto::Value::Type::kArray || tuples.items().empty()) return {};
  const iproto::Value& tuple = tuples.items()[0];
  const size_t field = h.header.value_field;
  if (tuple.type() == iproto::Value::Type::kArray && field < tuple.items().size() &&
      tuple.items()[field].type() == iproto::Value::Type::kString) {
    return FinalOfValue(h, tuple.items()[field].str());
  }
  history::FinalValue v;  // a tuple without a string where values go: not a value of ours
  v.seen = history::Seen::kForeign;
  v.preview = iproto::ToString(tuple).substr(0, kForeignPreviewBytes);
  return v;
}

// Tarantool: a select of the one key on the history's space and its primary index.
Result<history::FinalValue> ReadIprotoKey(const History& h, ProtoControl& control, uint64_t key) {
  const iproto::Value k = h.header.key_numbers ? iproto::Value::Uint(key) : iproto::Value::String(h.KeyName(key));
  auto tuples = control.Select(h.header.space, 0, iproto::Value::Array({k}));
  if (!tuples.ok()) {
    return tuples.status().WithContext(fmt::format("select {} from space {}", h.KeyName(key), h.header.space));
  }
  return FinalOfTuples(h, *tuples);
}

// memcached: a get of the one key.
Result<history::FinalValue> ReadMemcacheKey(const History& h, ProtoControl& control, uint64_t key) {
  const std::string name = h.KeyName(key);
  auto reply = control.MemcacheGet(name);
  if (!reply.ok()) return reply.status();
  if (reply->kind != memcache::Kind::kValues) {
    return Status::Server(fmt::format("get {}: memcached answered {} {}", name, memcache::KindName(reply->kind),
                                      reply->text));
  }
  return reply->values.empty() ? history::FinalValue{} : FinalOfValue(h, reply->values[0].data);
}

}  // namespace

CheckResult CheckLostWritesAt(const History& h, const RedisTarget& t) {
  Result<std::map<uint64_t, history::FinalValue>> finals = Status::Failed("no final reads");
  switch (h.header.target_kind) {
    case history::TargetKind::kResp: finals = ReadFinalValues(h, t); break;
    case history::TargetKind::kEtcd:
      finals = ReadEachKey(h, t, Protocol::kEtcd, [&](ProtoControl& c, uint64_t k) { return ReadEtcdKey(h, c, k); });
      break;
    case history::TargetKind::kIproto:
      finals =
          ReadEachKey(h, t, Protocol::kIproto, [&](ProtoControl& c, uint64_t k) { return ReadIprotoKey(h, c, k); });
      break;
    case history::TargetKind::kMemcache:
      finals = ReadEachKey(h, t, Protocol::kMemcache,
                           [&](ProtoControl& c, uint64_t k) { return ReadMemcacheKey(h, c, k); });
      break;
  }
  if (!finals.ok()) {
    return history::LostWritesNotRun("not checked: reading the written keys from " + t.Display() +
                                     " failed: " + finals.status().message());
  }
  return history::CheckLostWrites(h, *finals);
}

std::vector<CheckResult> RunHistoryChecks(const History& h, const std::set<std::string>& checks,
                                          const RedisTarget* target, int64_t time_limit_ns) {
  std::vector<CheckResult> results;
  if (checks.count("lost-writes") > 0) {
    results.push_back(target != nullptr ? CheckLostWritesAt(h, *target)
                                        : history::LostWritesNotRun("not checked: no target to read the keys from"));
  }
  if (checks.count("linearizable") > 0) {
    history::LinearizabilityLimits limits;
    limits.time_limit_ns = time_limit_ns;
    results.push_back(history::CheckLinearizable(h, limits));
  }
  if (checks.count("monotonic-reads") > 0) results.push_back(history::CheckMonotonicReads(h));
  if (checks.count("read-your-writes") > 0) results.push_back(history::CheckReadYourWrites(h));
  if (checks.count("revisions") > 0) results.push_back(history::CheckRevisions(h));
  return results;
}

}  // namespace memstand
