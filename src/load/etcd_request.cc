#include "load/etcd_request.h"

#include <utility>

#include "util/redact.h"

namespace memstand {

namespace {

constexpr const char* kEtcdForms = "put K V | range K | delete K";

Status BadEtcd(const std::string& what, const char* forms) {
  return Status::InvalidArgument(what + " (accepted: " + forms + ")");
}

// etcd's default --max-request-bytes (embed.DefaultMaxRequestBytes, 1.5 MiB): the
// server refuses a larger proposal with "etcdserver: request is too large". The
// proposal holds the key and value plus its protobuf framing and request header,
// 24 to 26 bytes (measured on etcd 3.4.23 through the JSON gateway: a put of 1572840
// bytes of key and value was accepted, one of 1572842 refused); 64 leaves room.
constexpr size_t kEtcdMaxRequest = 3 << 19;
constexpr size_t kEtcdFraming = 64;

}  // namespace

Result<EtcdRequest> EtcdRequest::Parse(std::string_view text, std::string key_prefix) {
  auto parsed = ParseCommandTemplate(text);
  if (!parsed.ok()) return parsed.status();
  const CommandTemplate& t = *parsed;
  EtcdRequest r;
  const std::string& n = t.name;
  const size_t want = n == "PUT" ? 2 : 1;
  if (n == "PUT") {
    r.op_ = Op::kPut;
  } else if (n == "RANGE" || n == "GET") {
    r.op_ = Op::kRange;
    r.counts_hits_ = true;
  } else if (n == "DELETE" || n == "DELETERANGE") {
    r.op_ = Op::kDelete;
    r.counts_hits_ = true;
  } else {
    return BadEtcd("etcd has no request '" + Abbreviate(n) + "'", kEtcdForms);
  }
  if (t.args.size() - 1 != want) {
    return BadEtcd("etcd '" + n + "' takes " + std::to_string(want) + " argument(s)", kEtcdForms);
  }
  r.label_ = r.op_ == Op::kPut ? "PUT" : r.op_ == Op::kRange ? "RANGE" : "DELETE";
  r.key_arg_ = t.args[1];
  if (want == 2) r.value_arg_ = t.args[2];
  r.uses_key_ = t.uses_key;
  r.uses_data_ = t.uses_data;
  r.key_prefix_ = std::move(key_prefix);
  return r;
}

Status EtcdRequest::CheckLimits(uint64_t key_max, size_t max_value,
                                const std::string& value_flag) const {
  const size_t value = op_ == Op::kPut ? max_value : 0;
  const size_t total = LongestArg(key_arg_, key_prefix_.size(), key_max) + value;
  if (total + kEtcdFraming <= kEtcdMaxRequest) return Status::OK();
  return Status::InvalidArgument(
      (value > 0 ? value_flag : std::string("--key-prefix")) + ": an etcd " + label_ +
      " of up to " + std::to_string(total) + " bytes of key and value is over etcd's " +
      "default request limit (--max-request-bytes 1572864, 1.5 MiB, less " +
      std::to_string(kEtcdFraming) +
      " bytes of framing); the server would refuse it "
      "with \"request is too large\"");
}

size_t EtcdRequest::Append(Buffer* out, const ProtoArgs& a) const {
  const size_t before = out->Readable();
  const std::string_view key = RenderArg(key_arg_, key_prefix_, a, a.scratch);
  switch (op_) {
    case Op::kPut:
      etcd::AppendPut(out, target_, key, RenderArg(value_arg_, key_prefix_, a, a.scratch2));
      break;
    case Op::kRange: etcd::AppendRange(out, target_, key); break;
    case Op::kDelete: etcd::AppendDeleteRange(out, target_, key); break;
  }
  return out->Readable() - before;
}

}  // namespace memstand
