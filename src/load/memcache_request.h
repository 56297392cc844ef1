// A memcached text command of the mix (--command), as the load engine sends it:
//   get K | gets K | set|add|replace|append|prepend K V | cas K V UNIQUE | delete K |
//   incr K [DELTA] | decr K [DELTA] | touch K EXPTIME
// K and V may hold __key__ / __data__ (also inside literal text). Appended by
// MemcacheSession (load/memcache_session.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/buffer.h"
#include "load/proto_request.h"
#include "proto/memcache/memcache.h"
#include "util/status.h"
#include "workload/command_template.h"

namespace memstand {

class MemcacheRequest {
 public:
  enum class Op : uint8_t { kGet, kGets, kStore, kCas, kDelete, kIncr, kDecr, kTouch };

  /// Parses one --command; InvalidArgument naming what is wrong and the forms accepted.
  static Result<MemcacheRequest> Parse(std::string_view text, std::string key_prefix);

  /// Checks, before anything is sent, that every key this request can make (the key
  /// prefix with any index up to key_max, and the template's literal text) is one
  /// memcached takes: at most 250 bytes, no space or control character (else the text
  /// protocol reads the rest of a key as commands). Values are length-prefixed: any
  /// bytes. InvalidArgument naming the flag (--key-prefix, --key-maximum, --command).
  Status CheckLimits(uint64_t key_max, size_t max_value, const std::string& value_flag) const;

  /// Appends one request; returns the bytes appended.
  size_t Append(Buffer* out, const ProtoArgs& a) const;

  Op op() const { return op_; }
  /// get or gets: its replies are counted in the server's get_hits / get_misses.
  bool is_get() const { return op_ == Op::kGet || op_ == Op::kGets; }
  /// Replies are counted as hits or misses (ReplyView::positive): all but set.
  bool counts_hits() const { return counts_hits_; }
  /// The server's counter of this command, for the cross-check: "cmd_get", "cmd_set",
  /// "delete", "incr", "decr", "cmd_touch".
  const std::string& server_stat() const { return server_stat_; }
  /// "GET", "SET", "INCR", ...
  const std::string& label() const { return label_; }
  bool uses_key() const { return uses_key_; }
  bool uses_data() const { return uses_data_; }
  bool uses_seq() const { return false; }
  bool partial_on_error() const { return false; }  // one command, applied whole or not at all

 private:
  Status CheckKey(uint64_t key_max) const;

  Op op_ = Op::kGet;
  bool counts_hits_ = false;
  bool uses_key_ = false;
  bool uses_data_ = false;
  std::string label_;
  std::string server_stat_;
  std::string key_prefix_;
  TemplateArg key_arg_;
  TemplateArg value_arg_;
  memcache::StoreCommand store_ = memcache::StoreCommand::kSet;
  uint64_t number_ = 0;  // cas unique, incr/decr delta, touch exptime
};

}  // namespace memstand
