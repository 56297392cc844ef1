// An etcd v3 request of the mix (--command), as the load engine sends it through the
// JSON gateway: put K V | range K (alias get) | delete K (alias deleterange). K and V
// may hold __key__ / __data__ (also inside literal text). Appended by EtcdSession
// (load/etcd_session.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/buffer.h"
#include "load/proto_request.h"
#include "proto/etcd/etcd.h"
#include "util/status.h"
#include "workload/command_template.h"

namespace memstand {

class EtcdRequest {
 public:
  enum class Op : uint8_t { kPut, kRange, kDelete };

  /// Parses one --command; InvalidArgument naming what is wrong and the forms accepted.
  static Result<EtcdRequest> Parse(std::string_view text, std::string key_prefix);

  /// Checks, before anything is sent, that every request this can make (keys up to
  /// key_max, values of up to max_value bytes) is within etcd's default
  /// --max-request-bytes; InvalidArgument naming `value_flag` or --key-prefix.
  Status CheckLimits(uint64_t key_max, size_t max_value, const std::string& value_flag) const;

  /// Appends one request; returns the bytes appended.
  size_t Append(Buffer* out, const ProtoArgs& a) const;

  Op op() const { return op_; }
  /// range and delete: replies are counted as hits or misses (ReplyView::positive).
  bool counts_hits() const { return counts_hits_; }
  /// "" (the revision is cross-checked instead).
  const std::string& server_stat() const { return server_stat_; }
  /// "PUT", "RANGE", "DELETE".
  const std::string& label() const { return label_; }
  bool uses_key() const { return uses_key_; }
  bool uses_data() const { return uses_data_; }
  bool uses_seq() const { return false; }
  bool partial_on_error() const { return false; }  // a put, range or delete is one Raft entry
  /// The Host header and gateway prefix.
  void set_etcd_target(const etcd::Target& t) { target_ = t; }

 private:
  Op op_ = Op::kPut;
  bool counts_hits_ = false;
  bool uses_key_ = false;
  bool uses_data_ = false;
  std::string label_;
  std::string server_stat_;
  std::string key_prefix_;
  TemplateArg key_arg_;
  TemplateArg value_arg_;
  etcd::Target target_;
};

}  // namespace memstand
