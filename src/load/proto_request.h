// The load engine's requests for the protocols other than RESP: an encoder per command
// of the mix (memcached text, etcd v3 JSON gateway, Tarantool IPROTO), which their
// sessions (load/*_session.h) append. What a reply means is the session's.
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
#include "load/load_options.h"
#include "load/protocol.h"
#include "proto/etcd/etcd.h"
#include "proto/iproto/request_template.h"
#include "proto/memcache/memcache.h"
#include "util/rng.h"
#include "util/status.h"
#include "workload/command_template.h"
#include "workload/shard.h"

namespace memstand {

/// What one request is made of. `scratch` is the caller's (its session's): its
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
  /// The same for a request known to be of one protocol (its session's): no dispatch.
  size_t AppendMemcache(Buffer* out, const ProtoArgs& a) const;
  size_t AppendEtcd(Buffer* out, const ProtoArgs& a) const;
  size_t AppendIproto(Buffer* out, const ProtoArgs& a) const;

  Op op() const { return op_; }
  /// Replies of this request are counted as hits or misses (ReplyView::positive).
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

/// The requests of opt's mix for opt.protocol (REQUIRES: not RESP), by command index:
/// each --command parsed again, with the etcd Host of the first target and the shard's
/// __seq__ values; an IPROTO space given by name resolved with `space_id`.
Result<std::vector<ProtoRequest>> MakeProtoRequests(
    const LoadOptions& opt, const std::function<Result<uint32_t>(const std::string&)>& space_id);

/// Tarantool's name of a box error code: 3 -> "ER_TUPLE_FOUND"; "ER_<code>" if unknown.
std::string IprotoErrorName(uint32_t code);

}  // namespace memstand
