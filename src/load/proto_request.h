// The load engine's side of the protocols other than RESP: a request encoder per
// command of the mix (memcached text, etcd v3 JSON gateway, Tarantool IPROTO) and a
// reply reader per connection that says what a reply means for the statistics (error
// kind, hit or miss, an applied write). The RESP path does not use any of this.
//
// Templates (docs/protocols.md, "The load engine"):
//   memcache: get K | gets K | set|add|replace|append|prepend K V | cas K V UNIQUE |
//             delete K | incr K [DELTA] | decr K [DELTA] | touch K EXPTIME
//   etcd:     put K V | range K | delete K
//   iproto:   an iproto::RequestTemplate (docs/protocols.md, "Tarantool request
//             templates"), where SPACE may also be a space name, resolved on the
//             server once (ResolveSpace)
// K and V may hold __key__ / __data__ (also inside literal text).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffer.h"
#include "proto/iproto/request_template.h"
#include "load/protocol.h"
#include "proto/etcd/etcd.h"
#include "proto/etcd/http.h"
#include "proto/iproto/iproto.h"
#include "proto/memcache/memcache.h"
#include "util/rng.h"
#include "util/status.h"
#include "workload/command_template.h"
#include "workload/shard.h"

namespace memstand {

/// What one request is made of. `scratch` is the caller's (one per thread): its
/// capacity is kept, so steady state does not allocate.
struct ProtoArgs {
  uint64_t key_index = 0;
  std::string_view data;
  uint64_t sync = 0;  // IPROTO only
  std::string* scratch = nullptr;
  std::string* scratch2 = nullptr;
  uint64_t seq = 0;     // IPROTO __seq__
  Rng* rng = nullptr;   // IPROTO __rand:N__ / __int:A:B__; REQUIRES non-null if uses_rng()
};

class ProtoRequest {
 public:
  enum class Op : uint8_t {
    // memcache
    kMcGet, kMcGets, kMcStore, kMcCas, kMcDelete, kMcIncr, kMcDecr, kMcTouch,
    // etcd
    kEtcdPut, kEtcdRange, kEtcdDelete,
    // iproto
    kIpPing, kIpInsert, kIpReplace, kIpSelect, kIpDelete, kIpUpsert, kIpUpdate, kIpCall, kIpEval,
  };

  /// Parses one --command for protocol p (REQUIRES: p != kResp). InvalidArgument
  /// naming what is wrong and the forms accepted.
  static Result<ProtoRequest> Parse(Protocol p, std::string_view text, std::string key_prefix);

  /// IPROTO: SPACE given by name is resolved to its id with `lookup` (a control
  /// connection's query) and the template parsed again with the id; a no-op for other
  /// requests and for a space given by id. Until then such a request encodes space 0.
  Status ResolveSpace(const std::function<Result<uint32_t>(const std::string&)>& lookup);

  /// Checks, before anything is sent, that every key this request can make (the
  /// key prefix with any index up to key_max, and the template's literal text) and
  /// values of up to max_value bytes are what the protocol carries: memcache keys of
  /// at most 250 bytes with no space or control character (else the text protocol
  /// reads the rest of a key as commands); etcd requests within etcd's default
  /// --max-request-bytes; IPROTO requests within Tarantool's 2 GiB packet limit (its
  /// keys and values are MessagePack strings: any bytes). InvalidArgument naming the
  /// flag (--key-prefix, --key-maximum, --command, or `value_flag`).
  Status CheckLimits(uint64_t key_max, size_t max_value, const std::string& value_flag) const;

  /// Appends one request; returns the bytes appended.
  size_t Append(Buffer* out, const ProtoArgs& a) const;

  Op op() const { return op_; }
  /// Replies of this request are counted as hits or misses (see ProtoReply::positive).
  bool counts_hits() const { return counts_hits_; }
  /// The command name as the server's own statistics call it, for the cross-check:
  /// memcache "cmd_get", "cmd_set", "delete", "incr", "decr", "cmd_touch"; IPROTO
  /// box.stat() names ("SELECT", ...); etcd "" (the revision is checked instead).
  const std::string& server_stat() const { return server_stat_; }
  /// "GET", "SET", "PUT", "RANGE", "REPLACE", ...
  const std::string& label() const { return label_; }
  bool uses_key() const { return uses_key_; }
  bool uses_data() const { return uses_data_; }
  /// IPROTO: the template holds __seq__ / __rand:N__ or __int:A:B__.
  bool uses_seq() const { return uses_seq_; }
  bool uses_rng() const { return uses_rng_; }
  /// --shard: __seq__ values are sent as ShardSeq(seq, s), disjoint from other shards'.
  void set_shard(Shard s) { shard_ = s; }
  /// etcd: the Host header and gateway prefix.
  void set_etcd_target(const etcd::Target& t) { etcd_target_ = t; }

 private:
  static Result<ProtoRequest> ParseMemcache(const CommandTemplate& t);
  static Result<ProtoRequest> ParseEtcd(const CommandTemplate& t);
  static Result<ProtoRequest> ParseIproto(std::string_view text);
  std::string_view Render(const TemplateArg& arg, const ProtoArgs& a, std::string* out) const;
  Status SetTemplate(const std::string& text);
  size_t AppendMemcache(Buffer* out, const ProtoArgs& a) const;
  size_t AppendEtcd(Buffer* out, const ProtoArgs& a) const;
  size_t AppendIproto(Buffer* out, const ProtoArgs& a) const;
  Status CheckMemcacheKey(uint64_t key_max) const;
  size_t LongestKey(uint64_t key_max) const;

  Op op_ = Op::kMcGet;
  bool counts_hits_ = false;
  bool uses_key_ = false;
  bool uses_data_ = false;
  bool uses_seq_ = false;
  bool uses_rng_ = false;
  Shard shard_;
  std::string label_;
  std::string server_stat_;
  std::string key_prefix_;
  // memcache / etcd: the key and value arguments
  TemplateArg key_arg_;
  TemplateArg value_arg_;
  memcache::StoreCommand store_ = memcache::StoreCommand::kSet;
  uint64_t number_ = 0;  // cas unique, incr/decr delta, touch exptime
  etcd::Target etcd_target_;
  // iproto: the template (shared: ProtoRequest is copied into every worker's view)
  std::string iproto_text_;
  std::string space_name_;  // empty: the space was a number (or the request has none)
  size_t space_pos_ = 0;    // where space_name_ starts in iproto_text_
  std::shared_ptr<const iproto::RequestTemplate> iproto_;
};

/// What a reply means for the statistics.
struct ProtoReply {
  bool is_error = false;
  /// A hit: get/gets found a value, range found a key, select/delete returned a tuple,
  /// add/replace/cas/delete/incr/decr/touch took effect (STORED, DELETED, a number,
  /// TOUCHED). A miss otherwise (NOT_STORED, NOT_FOUND, EXISTS, an empty result).
  bool positive = false;
  /// etcd: the reply raised the store revision (a put, a delete that deleted).
  bool applied_write = false;
  std::string error_kind;   // grouping key: "client-error", "ER_TUPLE_FOUND (3)", etcd text
  std::string error_text;   // the server's whole message
  size_t wire_bytes = 0;
};

/// One connection's reply reader for protocol p (REQUIRES: p != kResp).
class ProtoReader {
 public:
  enum class Event { kNeedMore, kReply, kProtocolError };
  explicit ProtoReader(Protocol p);

  /// Like the codecs' Feed: stops after one whole reply.
  Event Feed(const char* data, size_t len, size_t* consumed);
  /// REQUIRES: kReply. IPROTO: the reply's sync, and whether it is a push message
  /// (box.session.push: not the response).
  uint64_t sync() const { return iproto_.summary().sync; }
  bool is_push() const { return iproto_.summary().is_push; }
  /// etcd: the server said Connection: close.
  bool closes() const;
  /// REQUIRES: kReply. The meaning of the reply to `request`; a Protocol error when
  /// an etcd 200 body is not the JSON expected.
  Status Interpret(const ProtoRequest& request, ProtoReply* out);
  /// IPROTO set-up: the reply to AUTH (error text empty when accepted).
  std::string AuthError() const;
  const std::string& error() const;

 private:
  Protocol protocol_;
  memcache::Reader memcache_{memcache::Reader::Mode::kSummary};
  iproto::Reader iproto_{iproto::Reader::Mode::kSummary};
  http::ResponseReader http_;
};

/// Tarantool's name of a box error code: 3 -> "ER_TUPLE_FOUND"; "ER_<code>" if unknown.
std::string IprotoErrorName(uint32_t code);

}  // namespace memstand
