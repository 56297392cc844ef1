// A blocking control connection to a memcached, etcd or Tarantool server, beside the
// load: checks that the server speaks the protocol asked for (naming both protocols
// when it does not), reads its version, resolves Tarantool space names, and reads the
// server's own counters before and after the run for the cross-check. The connect and
// the exchange of Connect share one deadline; each later request has one of its own. A
// connection that times out, fails or gets a reply out of step (bytes before a
// request, bytes after its reply, an IPROTO reply with another sync, a reply of
// another kind) is closed and every later call fails without sending.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "core/buffer.h"
#include "core/tcp_info.h"
#include "core/tls.h"
#include "load/protocol.h"
#include "load/target.h"
#include "proto/etcd/etcd.h"
#include "proto/iproto/value.h"
#include "proto/memcache/memcache.h"
#include "util/status.h"

namespace memstand {

namespace iproto {
class Reader;
}  // namespace iproto

class ProtoControl {
 public:
  /// Connects and performs one exchange that only the right server answers well:
  /// memcache `version`, etcd maintenance/status, Tarantool greeting (+ AUTH when the
  /// target has a user). A server that speaks another protocol is a Protocol error
  /// naming both ("... speaks Redis (RESP), not memcached (text protocol)"); wrong
  /// credentials are a Server error with Tarantool's message. The connect and that
  /// exchange are bounded by timeout_ms together, each later request (its write and
  /// its whole reply) by timeout_ms. With `tls` (memcache+tls://, etcd+tls://) the TLS
  /// handshake comes first, within the same bound, and every exchange is encrypted.
  /// REQUIRES: p != kResp.
  static Result<std::unique_ptr<ProtoControl>> Connect(
      Protocol p, const RedisTarget& target, int timeout_ms,
      std::shared_ptr<const TlsContext> tls = nullptr);
  ~ProtoControl();
  ProtoControl(const ProtoControl&) = delete;
  ProtoControl& operator=(const ProtoControl&) = delete;

  /// The server's counters by name:
  ///   memcache: cmd_get, cmd_set, get_hits, get_misses, cmd_touch, delete
  ///             (delete_hits + delete_misses), incr, decr (hits + misses each);
  ///   etcd:     revision (header.revision of maintenance/status);
  ///   iproto:   box.stat() totals (SELECT, INSERT, REPLACE, DELETE, EVAL, AUTH, ...).
  Result<std::map<std::string, int64_t>> Counters();
  /// Tarantool: the id of space `name` (NotFound naming it if there is none).
  Result<uint32_t> SpaceId(const std::string& name);
  /// The server's version (memcached `version`, etcd status, the Tarantool greeting).
  const std::string& version() const { return version_; }
  /// Requests this connection made that the server's counters include, by counter
  /// name (Tarantool: EVAL and AUTH).
  const std::map<std::string, int64_t>& sent() const { return sent_; }
  /// Non-zero when the counters are those of a store the server shares with others
  /// (etcd: the cluster id; every member of a cluster reports the cluster's revision),
  /// so a pool counts them once per id. 0: the server's own (memcached, Tarantool).
  /// Known after Counters().
  uint64_t shared_store_id() const { return shared_store_id_; }
  /// TLS: the protocol and cipher agreed (TlsSession::Describe); "" without TLS.
  std::string tls_description() const { return tls_ ? tls_->Describe() : ""; }
  /// Application bytes read from and written to the socket since the connect, the
  /// handshake included (counted at each read() and write(); with TLS the ciphertext).
  const SocketBytes& bytes() const { return bytes_; }
  /// The kernel's count of the same connection (TCP_INFO); an error once it is closed.
  Result<TcpBytes> KernelBytes() const;

  // Requests for scenarios (src/scenario), one at a time. I/O failures are a Status.
  /// memcached: every field of `stats`, by name.
  Result<std::map<std::string, std::string>> MemcacheStats();
  /// memcached: `set key 0 0 <len>`; the reply as it came (STORED, SERVER_ERROR ...).
  Result<memcache::Reply> MemcacheSet(std::string_view key, std::string_view value);
  /// memcached: get of one key; the reply (kValues, no value when the key is absent, or
  /// an error line).
  Result<memcache::Reply> MemcacheGet(std::string_view key);
  /// Tarantool: EVAL of `lua` with `args` (an array); the reply's data (an array of the
  /// returned values). An error reply is Status::Server with Tarantool's text.
  Result<iproto::Value> Eval(std::string_view lua, const iproto::Value& args);
  /// Tarantool: EVAL of `lua` (no arguments) that returns one map of integers (box.stat()
  /// totals, a scenario's counters); the map by name. Errors are prefixed with `what`; a
  /// result that is not a map is a Protocol error and closes the connection.
  Result<std::map<std::string, int64_t>> EvalCounters(std::string_view lua, const std::string& what);
  /// Tarantool: CALL of the global Lua function `function` with `args` (an array); the
  /// reply's data (the returned values). An error reply is Status::Server.
  Result<iproto::Value> Call(std::string_view function, const iproto::Value& args);
  /// Tarantool: SELECT from space_id / index_id with iterator EQ on `key` (an array),
  /// no limit; the reply's data (the tuples).
  Result<iproto::Value> Select(uint32_t space_id, uint32_t index_id, const iproto::Value& key);
  /// etcd: one request, appended by `encode` (an etcd::Append* encoder); its reply
  /// decoded (a range's key-values too with want_kvs). An etcd error (e.g. "etcdserver:
  /// mvcc: database space exceeded") is a Summary with ok == false, not a Status.
  Result<etcd::Summary> EtcdRequest(const std::function<void(Buffer*, const etcd::Target&)>& encode,
                                    bool want_kvs = false);

 private:
  ProtoControl() = default;
  /// Sends a request and reads its reply into *reader by deadline_ns_; any failure
  /// breaks the connection (Broken).
  template <class Reader>
  Status Exchange(const Buffer& request, Reader* reader);
  template <class Reader>
  Status ReadReply(Reader* reader);
  Status IprotoExchange(const Buffer& request, iproto::Reader* reader);
  /// Sends an IPROTO request built by `append` (given the next sync) and returns its
  /// data; `what` names it in errors.
  Result<iproto::Value> IprotoData(const std::function<void(Buffer*, uint64_t)>& append,
                                   const std::string& what);
  Status CheckInStep();
  /// The socket's bytes, in plaintext or through the TLS session; bytes_ counted.
  Status Send(const Buffer& request);
  Result<size_t> Receive(char* buf, size_t cap);
  /// Starts a request after Connect: its own deadline; the error if the connection broke.
  Status Begin();
  Status Broken(Status s);
  std::string Bound() const;
  Status Handshake();
  Status WrongServer(const std::string& detail) const;
  Result<std::map<std::string, int64_t>> MemcacheCounters();
  Result<std::map<std::string, std::string>> ReadStats();  // memcached `stats`
  Result<std::map<std::string, int64_t>> EtcdCounters();
  Result<std::map<std::string, int64_t>> IprotoCounters();

  Protocol protocol_ = Protocol::kMemcache;
  RedisTarget target_;
  int timeout_ms_ = 5000;
  uint64_t shared_store_id_ = 0;
  int fd_ = -1;              // non-blocking; -1 once broken (closed)
  std::unique_ptr<TlsSession> tls_;  // null: plaintext
  int64_t deadline_ns_ = 0;  // of the exchange under way
  bool in_setup_ = false;    // Connect's exchange: the deadline counts from the connect
  Status broken_;
  uint64_t sync_ = 0;
  std::string version_;
  std::map<std::string, int64_t> sent_;
  SocketBytes bytes_;
};

/// Connects to t (its Unix socket, or host:port) and tells which kind of server answers: a greeting that
/// names Tarantool; else the answer to "PING\r\n": "+PONG"/"-..." is Redis (RESP),
/// "ERROR" memcached, "HTTP/" an HTTP server (etcd's gateway among them). "" when
/// nothing tells (closed, silent). Bounded by about timeout_ms in all.
std::string IdentifyServer(const RedisTarget& t, int timeout_ms);

}  // namespace memstand
