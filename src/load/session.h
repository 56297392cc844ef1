// The contract every protocol's session keeps (RespSession, MemcacheSession,
// EtcdSession, IprotoSession): one load connection's protocol state, fed bytes and
// appending to a Buffer, with no I/O, no clock and no statistics of its own. The worker
// (load/worker.h) is written once over it, as a template: a session's calls are inlined,
// never virtual.
//
// A session's life: constructed with its SessionConfig; Start() writes the set-up
// (HELLO/AUTH/SELECT/READONLY, nothing, or nothing until Tarantool's greeting); Append()
// writes one request and returns its tag; Feed() reads replies and says what each
// means; Reset() forgets the connection (in flight, set-up, parser) for a new one.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "core/buffer.h"
#include "load/target.h"
#include "util/rng.h"
#include "util/status.h"

namespace memstand {

/// What the worker drew for one request: the values of its placeholders.
struct Draw {
  uint64_t key = 0;       // __key__: the key index
  std::string_view data;  // __data__: a value from the pool, which outlives the run
  uint64_t seq = 0;       // IPROTO __seq__ (drawn only when the request uses_seq())
  Rng* rng = nullptr;     // IPROTO __rand:N__ / __int:A:B__: the client's generator
};

/// A request just appended: its tag and its bytes on the wire.
struct Sent {
  uint64_t tag;
  size_t bytes;
};

/// What a session is told once, when its connection is made.
struct SessionConfig {
  const RedisTarget* target = nullptr;  // credentials and db (REQUIRES non-null); outlives the session
  std::string peer;                     // the server, for messages: "127.0.0.1:6379"
  int resp = 2;                         // RESP: 2, or 3 (HELLO 3)
  bool read_only = false;               // RESP: a replica's connection (READONLY)
  /// Slots for requests in flight, a power of two >= 4: the worker keeps request t at
  /// t & (slots - 1). IPROTO makes its syncs from them; the others ignore it.
  size_t slots = 4;
  /// Every set-up request written is counted here by lower-case name ("hello", "auth",
  /// "select", "readonly"); may be null.
  std::map<std::string, uint64_t>* setup_counts = nullptr;
  /// --history: a read's reply carries the first this many bytes of the value it
  /// returned (ReplyView::value), where a write's tag is; 0: none (the hot path's cost).
  size_t value_head = 0;
  /// --history against Tarantool: the tuple field (from 0) that holds a register's value;
  /// 0: none.
  uint32_t value_field = 0;
};

/// What Feed() found.
enum class SessionEvent : uint8_t {
  kNeedMore,       // every byte taken; no whole reply yet
  kReply,          // *reply is the reply to one of our requests
  kReady,          // the set-up is through: requests may follow
  kFailed,         // failure(): the server refused the set-up (AUTH, SELECT, ...)
  kProtocolError,  // failure(): a malformed reply, or one that answers no request of ours
};

/// What one reply means, whatever the protocol. Valid until the next Feed().
struct ReplyView {
  uint64_t tag = 0;        // the tag Append() gave its request
  size_t wire_bytes = 0;   // the reply's bytes on the wire
  bool is_error = false;   // an error reply (-ERR, CLIENT_ERROR, a box error, etcd's error)
  /// Of a reply that is not an error: a hit, i.e. a value came back or a conditional
  /// write took effect (see docs/protocols.md). Not read for error replies.
  bool positive = false;
  bool applied_write = false;  // etcd: the reply raised the store revision
  bool counts_get = false;     // memcache get/gets: counted in get_hits/get_misses
  bool closes = false;         // the server closes after this reply (HTTP Connection: close)
  /// is_error: the error does not say whether the request took effect (etcd's "request
  /// timed out", Tarantool's synchronous-quorum timeout): the operation ends unknown,
  /// not fail (docs/faults.md). A session that sets it sets it for every error reply.
  bool indefinite = false;
  /// etcd: the store revision its reply carried (header.revision); 0 elsewhere.
  int64_t revision = 0;
  std::string_view error;       // is_error: the server's text
  std::string_view error_kind;  // is_error: what errors are grouped by ("OOM", "ER_TUPLE_FOUND (3)")
};

/// The session contract, checked where the worker is instantiated.
template <class S>
concept LoadSession = requires(S s, const S cs, const typename S::Request& request, const Draw& draw,
                               Buffer* out, const char* p, size_t n, size_t* used, ReplyView* reply,
                               bool asking, uint64_t* tag, Sent* sent) {
  /// Appends the set-up to out; true when there is none to wait for.
  { s.Start(out) } -> std::same_as<bool>;
  /// Appends one request. Tags grow in the order requests are appended, and those in
  /// flight are distinct modulo SessionConfig::slots (and, in-order protocols, modulo
  /// any power of two >= in_flight()).
  { s.Append(request, draw, out) } -> std::same_as<Sent>;
  /// Takes bytes up to and including the next event (*used of them). A kFailed or
  /// kProtocolError takes no request off what is in flight; the connection is then
  /// done with (the worker closes it, or Resets the session for a new one).
  { s.Feed(p, n, used, out, reply) } -> std::same_as<SessionEvent>;
  { cs.failure() } -> std::convertible_to<const Status&>;
  /// Requests appended whose replies have not come; set-up requests awaiting theirs.
  { cs.in_flight() } -> std::same_as<uint64_t>;
  { cs.setup_in_flight() } -> std::same_as<uint64_t>;
  /// The tag the next Append gives (--history: a copy of a write's value is stamped
  /// before it is appended, with the process of the slot that tag takes).
  { cs.next_tag() } -> std::same_as<uint64_t>;
  /// Calls f(tag) for every request in flight.
  cs.ForEachInFlight([](uint64_t) {});
  /// Redis Cluster (--cluster): the key slot of a request (-1: none); and a request
  /// appended again where a redirect sends it, after ASKING (its tag in *tag) for an ASK
  /// redirect: false, with nothing appended, where the protocol has no redirects.
  { S::Slot(request, draw) } -> std::same_as<int>;
  /// Whether an error reply to this request may follow part of its effect (a script,
  /// a stored function): such an error ends the operation unknown, not fail.
  { request.partial_on_error() } -> std::same_as<bool>;
  { s.AppendRedirected(request, draw, asking, out, tag, sent) } -> std::same_as<bool>;
  /// --history: whether a request holds its value as it is (RESP, memcached, Tarantool), so that a write's tag
  /// is stamped in the request once written, where `S::WrittenValue(request, out, size)` says;
  /// false: the value is encoded (etcd's base64), and a copy is stamped before.
  { S::kValueVerbatim } -> std::convertible_to<bool>;
  /// --history: whether a recorded send (its process, its tag stamped) stays out of
  /// SendOne, so that SendOne without the history stays as it was: Tarantool's, with it
  /// in line, was no longer put in line in Fill (+23 instructions a request, history off).
  { S::kRecordedApart } -> std::convertible_to<bool>;
  /// SessionConfig::value_head > 0, right after a kReply: the first value_head bytes of
  /// the value the reply returned (a read's), empty when it returned none. Asked only
  /// by a history, so that the reply path pays nothing for it otherwise.
  { cs.last_value() } -> std::same_as<std::string_view>;
  s.Reset();
};

}  // namespace memstand
