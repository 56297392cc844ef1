// A Tarantool request of the mix (--command), as the load engine sends it: an
// iproto::RequestTemplate (docs/protocols.md, "Tarantool request templates"), where
// SPACE may also be a space name, resolved on the server once (ResolveSpace). Appended
// by IprotoSession (load/iproto_session.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/buffer.h"
#include "load/proto_request.h"
#include "proto/iproto/call_error.h"
#include "proto/iproto/request_template.h"
#include "util/status.h"
#include "workload/shard.h"

namespace memstand {

class IprotoRequest {
 public:
  /// Parses one --command: InvalidArgument from the template's parser, naming the column.
  static Result<IprotoRequest> Parse(std::string_view text, std::string key_prefix);

  /// SPACE given by name is resolved to its id with `lookup` (a control connection's
  /// query) and the template parsed again with the id; a no-op for a space given by id
  /// and for requests without one. Until then such a request encodes space 0.
  Status ResolveSpace(const std::function<Result<uint32_t>(const std::string&)>& lookup);

  /// Checks, before anything is sent, that requests with values of up to max_value
  /// bytes stay within Tarantool's 2 GiB packet limit (keys and values are MessagePack
  /// strings: any bytes); InvalidArgument naming `value_flag`.
  Status CheckLimits(uint64_t key_max, size_t max_value, const std::string& value_flag) const;

  /// Appends one request with sync a.sync; returns the bytes appended.
  size_t Append(Buffer* out, const ProtoArgs& a) const {
    iproto::TemplateArgs t;
    t.key_index = a.key_index;
    t.key_prefix = key_prefix_;
    t.data = a.data;
    t.seq = ShardSeq(a.seq, shard_);
    t.rng = a.rng;
    return template_->Append(out, a.sync, t);
  }

  /// The register it reads or writes (--history); nullopt for any other request. Its
  /// space is 0 for a space given by name until ResolveSpace.
  const std::optional<iproto::RegisterForm>& register_form() const { return template_->register_form(); }
  /// The bytes a request has after its __data__ value (iproto::RequestTemplate::data_tail).
  size_t data_tail() const { return template_->data_tail(); }
  /// The space as the command named it; "" when it gave an id (or has no space).
  const std::string& space_name() const { return space_name_; }
  /// select and delete: a reply with a tuple is a hit, none a miss.
  bool counts_hits() const { return counts_hits_; }
  /// box.stat()'s name of this request, for the cross-check: "SELECT", "REPLACE",
  /// "CALL" (for "CALL crud.replace" too), ...; "" for ping.
  const std::string& server_stat() const { return server_stat_; }
  /// "SELECT", "REPLACE", "CALL crud.replace", "EVAL", ...
  const std::string& label() const { return label_; }
  bool uses_key() const { return uses_key_; }
  bool uses_data() const { return uses_data_; }
  /// The template holds __seq__ / __rand:N__ or __int:A:B__.
  bool uses_seq() const { return uses_seq_; }
  bool uses_rng() const { return uses_rng_; }
  /// CALL and EVAL: a stored function's error may follow some of its writes.
  bool partial_on_error() const { return server_stat_ == "CALL" || server_stat_ == "EVAL"; }
  /// --shard: __seq__ values are sent as ShardSeq(seq, s), disjoint from other shards'.
  void set_shard(Shard s) { shard_ = s; }
  /// --call-errors (default auto): which of this request's replies are application
  /// errors; a request other than call and eval reads none (kNone).
  void set_call_errors(iproto::CallErrors mode);
  iproto::CallErrors call_errors() const { return call_errors_; }

 private:
  Status SetTemplate(const std::string& text);

  bool counts_hits_ = false;
  bool uses_key_ = false;
  bool uses_data_ = false;
  bool uses_seq_ = false;
  bool uses_rng_ = false;
  bool is_call_ = false;  // call or eval
  iproto::CallErrors mode_ = iproto::CallErrors::kAuto;         // as set
  iproto::CallErrors call_errors_ = iproto::CallErrors::kNone;  // mode_ if is_call_
  Shard shard_;
  std::string label_;
  std::string server_stat_;
  std::string key_prefix_;
  std::string text_;        // the template as given
  std::string space_name_;  // empty: the space was a number (or the request has none)
  size_t space_pos_ = 0;    // where space_name_ starts in text_
  // Shared: a request is copied into every worker's view.
  std::shared_ptr<const iproto::RequestTemplate> template_;
};

}  // namespace memstand
