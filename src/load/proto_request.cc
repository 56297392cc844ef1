#include "load/proto_request.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "load/request_builder.h"
#include "proto/wire_text.h"
#include "util/redact.h"

namespace memstand {

namespace {

// Box error codes 0..60 by name, as Tarantool 2.6's box.error lists them.
constexpr const char* kErrorNames[] = {
    "UNKNOWN", "ILLEGAL_PARAMS", "MEMORY_ISSUE", "TUPLE_FOUND", "TUPLE_NOT_FOUND",
    "UNSUPPORTED", "NONMASTER", "READONLY", "INJECTION", "CREATE_SPACE", "SPACE_EXISTS",
    "DROP_SPACE", "ALTER_SPACE", "INDEX_TYPE", "MODIFY_INDEX", "LAST_DROP",
    "TUPLE_FORMAT_LIMIT", "DROP_PRIMARY_KEY", "KEY_PART_TYPE", "EXACT_MATCH",
    "INVALID_MSGPACK", "PROC_RET", "TUPLE_NOT_ARRAY", "FIELD_TYPE",
    "INDEX_PART_TYPE_MISMATCH", "UPDATE_SPLICE", "UPDATE_ARG_TYPE",
    "FORMAT_MISMATCH_INDEX_PART", "UNKNOWN_UPDATE_OP", "UPDATE_FIELD",
    "FUNCTION_TX_ACTIVE", "KEY_PART_COUNT", "PROC_LUA", "NO_SUCH_PROC", "NO_SUCH_TRIGGER",
    "NO_SUCH_INDEX_ID", "NO_SUCH_SPACE", "NO_SUCH_FIELD_NO", "EXACT_FIELD_COUNT",
    "FIELD_MISSING", "WAL_IO", "MORE_THAN_ONE_TUPLE", "ACCESS_DENIED", "CREATE_USER",
    "DROP_USER", "NO_SUCH_USER", "USER_EXISTS", "PASSWORD_MISMATCH", "UNKNOWN_REQUEST_TYPE",
    "UNKNOWN_SCHEMA_OBJECT", "CREATE_FUNCTION", "NO_SUCH_FUNCTION", "FUNCTION_EXISTS",
    "BEFORE_REPLACE_RET", "MULTISTATEMENT_TRANSACTION", "TRIGGER_EXISTS", "USER_MAX",
    "NO_SUCH_ENGINE", "RELOAD_CFG", "CFG", "SAVEPOINT_EMPTY_TX"};

constexpr const char* kMemcacheForms =
    "get K | gets K | set|add|replace|append|prepend K V | cas K V UNIQUE | delete K | "
    "incr K [DELTA] | decr K [DELTA] | touch K EXPTIME";
constexpr const char* kEtcdForms = "put K V | range K | delete K";

Status Bad(const std::string& what, const char* forms) {
  return Status::InvalidArgument(what + " (accepted: " + forms + ")");
}

bool HasPart(const TemplateArg& arg, TemplatePart::Kind kind) {
  for (const auto& p : arg) {
    if (p.kind == kind) return true;
  }
  return false;
}

// A literal argument's text, or nullopt when it holds a placeholder.
bool LiteralUint(const TemplateArg& arg, uint64_t* out) {
  if (arg.size() != 1 || arg[0].kind != TemplatePart::Kind::kLiteral) return false;
  const std::string& s = arg[0].literal;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string Upper(std::string_view s) {
  std::string u(s);
  for (auto& ch : u) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return u;
}

}  // namespace

std::string IprotoErrorName(uint32_t code) {
  if (code < std::size(kErrorNames)) return std::string("ER_") + kErrorNames[code];
  return "error code " + std::to_string(code);
}

Result<ProtoRequest> ProtoRequest::Parse(Protocol p, std::string_view text, std::string key_prefix) {
  Result<ProtoRequest> r = Status::InvalidArgument("no protocol");
  if (p == Protocol::kIproto) {
    r = ParseIproto(text);
  } else {
    auto t = ParseCommandTemplate(text);
    if (!t.ok()) return t.status();
    r = p == Protocol::kMemcache ? ParseMemcache(*t) : ParseEtcd(*t);
  }
  if (r.ok()) r->key_prefix_ = std::move(key_prefix);
  return r;
}

Result<ProtoRequest> ProtoRequest::ParseMemcache(const CommandTemplate& t) {
  ProtoRequest r;
  const std::string& n = t.name;
  const size_t args = t.args.size() - 1;
  auto want = [&](size_t lo, size_t hi) -> Status {
    if (args < lo || args > hi) {
      return Bad("memcache '" + n + "' takes " + std::to_string(lo) +
                 (hi > lo ? ".." + std::to_string(hi) : "") + " arguments, got " +
                 std::to_string(args), kMemcacheForms);
    }
    return Status::OK();
  };
  Status s;
  if (n == "GET" || n == "GETS") {
    s = want(1, 1);
    r.op_ = n == "GET" ? Op::kMcGet : Op::kMcGets;
    r.server_stat_ = "cmd_get";
    r.counts_hits_ = true;
  } else if (n == "SET" || n == "ADD" || n == "REPLACE" || n == "APPEND" || n == "PREPEND") {
    s = want(2, 2);
    r.op_ = Op::kMcStore;
    r.store_ = n == "SET" ? memcache::StoreCommand::kSet
               : n == "ADD" ? memcache::StoreCommand::kAdd
               : n == "REPLACE" ? memcache::StoreCommand::kReplace
               : n == "APPEND" ? memcache::StoreCommand::kAppend
                               : memcache::StoreCommand::kPrepend;
    r.server_stat_ = "cmd_set";
    r.counts_hits_ = n != "SET";
  } else if (n == "CAS") {
    s = want(3, 3);
    if (s.ok() && !LiteralUint(t.args[3], &r.number_)) {
      s = Bad("memcache 'CAS': the cas unique must be a literal number", kMemcacheForms);
    }
    r.op_ = Op::kMcCas;
    r.server_stat_ = "cmd_set";
    r.counts_hits_ = true;
  } else if (n == "DELETE") {
    s = want(1, 1);
    r.op_ = Op::kMcDelete;
    r.server_stat_ = "delete";
    r.counts_hits_ = true;
  } else if (n == "INCR" || n == "DECR" || n == "TOUCH") {
    s = want(n == "TOUCH" ? 2 : 1, 2);
    r.number_ = n == "TOUCH" ? 0 : 1;
    if (s.ok() && args == 2 && !LiteralUint(t.args[2], &r.number_)) {
      s = Bad("memcache '" + n + "': the second argument must be a literal number", kMemcacheForms);
    }
    r.op_ = n == "INCR" ? Op::kMcIncr : n == "DECR" ? Op::kMcDecr : Op::kMcTouch;
    r.server_stat_ = n == "INCR" ? "incr" : n == "DECR" ? "decr" : "cmd_touch";
    r.counts_hits_ = true;
  } else {
    s = Bad("memcache has no command '" + Abbreviate(n) + "'", kMemcacheForms);
  }
  if (!s.ok()) return s;
  r.label_ = n;
  r.key_arg_ = t.args[1];
  if (r.op_ == Op::kMcStore || r.op_ == Op::kMcCas) r.value_arg_ = t.args[2];
  r.uses_key_ = t.uses_key;
  r.uses_data_ = t.uses_data;
  if (HasPart(r.key_arg_, TemplatePart::Kind::kData)) {
    return Bad("memcache keys cannot hold __data__", kMemcacheForms);
  }
  return r;
}

Result<ProtoRequest> ProtoRequest::ParseEtcd(const CommandTemplate& t) {
  ProtoRequest r;
  const std::string& n = t.name;
  const size_t want = n == "PUT" ? 2 : 1;
  if (n == "PUT") {
    r.op_ = Op::kEtcdPut;
  } else if (n == "RANGE" || n == "GET") {
    r.op_ = Op::kEtcdRange;
    r.counts_hits_ = true;
  } else if (n == "DELETE" || n == "DELETERANGE") {
    r.op_ = Op::kEtcdDelete;
    r.counts_hits_ = true;
  } else {
    return Bad("etcd has no request '" + Abbreviate(n) + "'", kEtcdForms);
  }
  if (t.args.size() - 1 != want) {
    return Bad("etcd '" + n + "' takes " + std::to_string(want) + " argument(s)", kEtcdForms);
  }
  r.label_ = r.op_ == Op::kEtcdPut ? "PUT" : r.op_ == Op::kEtcdRange ? "RANGE" : "DELETE";
  r.key_arg_ = t.args[1];
  if (want == 2) r.value_arg_ = t.args[2];
  r.uses_key_ = t.uses_key;
  r.uses_data_ = t.uses_data;
  return r;
}

namespace {

// Requests whose second word is the space.
bool TakesSpace(std::string_view kind) {
  for (std::string_view k : {"select", "insert", "replace", "upsert", "update", "delete"}) {
    if (kind.size() == k.size() && Upper(kind) == Upper(k)) return true;
  }
  return false;
}

// A space name rather than an id: a word of letters, digits and '_' that does not
// start with a digit and is not a placeholder (__key__).
bool IsSpaceName(std::string_view w) {
  if (w.empty() || std::isdigit(static_cast<unsigned char>(w[0]))) return false;
  if (w.size() >= 4 && w.substr(0, 2) == "__" && w.substr(w.size() - 2) == "__") return false;
  for (char c : w) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

Result<ProtoRequest> ProtoRequest::ParseIproto(std::string_view text) {
  ProtoRequest r;
  r.iproto_text_ = std::string(text);
  // A space given by name: remember where, and parse with zeros of the same length
  // in its place (columns in messages stay right) until ResolveSpace knows the id.
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  size_t i = 0;
  while (i < text.size() && is_space(text[i])) ++i;
  const size_t kind_start = i;
  while (i < text.size() && !is_space(text[i])) ++i;
  std::string probe(text);
  if (TakesSpace(text.substr(kind_start, i - kind_start))) {
    while (i < text.size() && is_space(text[i])) ++i;
    size_t end = i;
    while (end < text.size() && !is_space(text[end]) && text[end] != '[') ++end;
    if (IsSpaceName(text.substr(i, end - i))) {
      r.space_name_ = std::string(text.substr(i, end - i));
      r.space_pos_ = i;
      probe.replace(i, end - i, end - i, '0');
    }
  }
  Status s = r.SetTemplate(probe);
  if (!s.ok()) return s;
  return r;
}

Status ProtoRequest::SetTemplate(const std::string& text) {
  auto t = iproto::RequestTemplate::Parse(text);
  if (!t.ok()) return t.status();
  using iproto::RequestType;
  switch (t->type()) {
    case iproto::kPing: op_ = Op::kIpPing; break;
    case iproto::kInsert: op_ = Op::kIpInsert; break;
    case iproto::kReplace: op_ = Op::kIpReplace; break;
    case iproto::kSelect: op_ = Op::kIpSelect; break;
    case iproto::kDelete: op_ = Op::kIpDelete; break;
    case iproto::kUpsert: op_ = Op::kIpUpsert; break;
    case iproto::kUpdate: op_ = Op::kIpUpdate; break;
    case iproto::kCall: op_ = Op::kIpCall; break;
    default: op_ = Op::kIpEval; break;
  }
  label_ = t->label();
  // box.stat() names the request kinds; "CALL crud.replace" counts as CALL.
  server_stat_ = op_ == Op::kIpPing ? "" : label_.substr(0, label_.find(' '));
  counts_hits_ = op_ == Op::kIpSelect || op_ == Op::kIpDelete;
  uses_key_ = t->uses_key();
  uses_data_ = t->uses_data();
  uses_seq_ = t->uses_seq();
  uses_rng_ = t->uses_rng();
  iproto_ = std::make_shared<const iproto::RequestTemplate>(std::move(*t));
  return Status::OK();
}

Status ProtoRequest::ResolveSpace(
    const std::function<Result<uint32_t>(const std::string&)>& lookup) {
  if (space_name_.empty()) return Status::OK();
  auto id = lookup(space_name_);
  if (!id.ok()) return id.status();
  std::string text = iproto_text_;
  text.replace(space_pos_, space_name_.size(), std::to_string(*id));
  return SetTemplate(text);
}

namespace {

// etcd's default --max-request-bytes (embed.DefaultMaxRequestBytes, 1.5 MiB): the
// server refuses a larger proposal with "etcdserver: request is too large". The
// proposal holds the key and value plus its protobuf framing and request header,
// 24 to 26 bytes (measured on etcd 3.4.23 through the JSON gateway: a put of 1572840
// bytes of key and value was accepted, one of 1572842 refused); 64 leaves room.
constexpr size_t kEtcdMaxRequest = 3 << 19;
constexpr size_t kEtcdFraming = 64;
// Tarantool's IPROTO_PACKET_SIZE_MAX (src/box/iproto.cc, 1.10 to 3.x): the server
// closes the connection on a longer packet. Keys and values are MessagePack strings,
// so any bytes go; tuples over memtx_max_tuple_size (1 MiB by default, a server
// setting) are error replies naming it.
constexpr size_t kIprotoMaxPacket = size_t{2} << 30;

Status BadKeyText(const std::string& flag, std::string_view text, size_t at) {
  char hex[8];
  std::snprintf(hex, sizeof(hex), "0x%02x", static_cast<unsigned char>(text[at]));
  return Status::InvalidArgument(
      flag + ": " + proto::Quote(text, 80) + " puts " +
      (text[at] == ' ' ? std::string("a space") : std::string("the control character ") + hex) +
      " at byte " + std::to_string(at) +
      " into a memcache key; memcached keys take no spaces or control characters (the text "
      "protocol would read the rest of the key as a command)");
}

}  // namespace

size_t ProtoRequest::LongestKey(uint64_t key_max) const {
  size_t n = 0;
  for (const TemplatePart& p : key_arg_) {
    if (p.kind == TemplatePart::Kind::kLiteral) n += p.literal.size();
    if (p.kind == TemplatePart::Kind::kKey) n += key_prefix_.size() + proto::DecimalSize(key_max);
  }
  return n;
}

Status ProtoRequest::CheckMemcacheKey(uint64_t key_max) const {
  bool uses_key = false;
  size_t literal = 0;
  for (const TemplatePart& p : key_arg_) {
    if (p.kind != TemplatePart::Kind::kLiteral) {
      uses_key = true;
      continue;
    }
    literal += p.literal.size();
    if (size_t at = memcache::FirstInvalidKeyByte(p.literal); at != std::string::npos) {
      return BadKeyText("--command", p.literal, at);
    }
  }
  if (uses_key) {
    if (size_t at = memcache::FirstInvalidKeyByte(key_prefix_); at != std::string::npos) {
      return BadKeyText("--key-prefix", key_prefix_, at);
    }
  }
  const size_t longest = LongestKey(key_max);
  if (longest == 0) {
    return Status::InvalidArgument("--command: the memcache key of " + label_ + " is empty");
  }
  // memcached's KEY_MAX_LENGTH (memcached.h; protocol.txt: keys hold no control
  // characters or whitespace, at most 250 characters): memcache::IsValidKey's rule.
  if (longest <= memcache::kMaxKeyLength) return Status::OK();
  std::string parts;
  if (uses_key) {
    parts = "--key-prefix of " + std::to_string(key_prefix_.size()) +
            " bytes + the index up to --key-maximum " + std::to_string(key_max) + " (" +
            std::to_string(proto::DecimalSize(key_max)) + " digits)";
  }
  if (literal > 0) {
    parts += (parts.empty() ? "" : " + ") + std::to_string(literal) + " bytes of text in --command";
  }
  return Status::InvalidArgument(
      std::string(uses_key ? "--key-prefix/--key-maximum" : "--command") +
      ": memcache keys are at most 250 bytes, but " + label_ + "'s longest key is " +
      std::to_string(longest) + " bytes (" + parts + ")");
}

Status ProtoRequest::CheckLimits(uint64_t key_max, size_t max_value,
                                 const std::string& value_flag) const {
  switch (op_) {
    case Op::kEtcdPut:
    case Op::kEtcdRange:
    case Op::kEtcdDelete: {
      const size_t value = op_ == Op::kEtcdPut ? max_value : 0;
      const size_t total = LongestKey(key_max) + value;
      if (total + kEtcdFraming <= kEtcdMaxRequest) return Status::OK();
      return Status::InvalidArgument(
          (value > 0 ? value_flag : std::string("--key-prefix")) + ": an etcd " + label_ +
          " of up to " + std::to_string(total) + " bytes of key and value is over etcd's " +
          "default request limit (--max-request-bytes 1572864, 1.5 MiB, less " +
          std::to_string(kEtcdFraming) +
          " bytes of framing); the server would refuse it "
          "with \"request is too large\"");
    }
    case Op::kMcGet:
    case Op::kMcGets:
    case Op::kMcStore:
    case Op::kMcCas:
    case Op::kMcDelete:
    case Op::kMcIncr:
    case Op::kMcDecr:
    case Op::kMcTouch: return CheckMemcacheKey(key_max);
    default: break;
  }
  const size_t most = iproto_ ? iproto_->MaxSize(key_prefix_.size(), max_value) : 0;
  if (most <= kIprotoMaxPacket) return Status::OK();
  return Status::InvalidArgument(
      value_flag + ": " + label_ + " would make IPROTO requests of up to " +
      std::to_string(most) + " bytes, over Tarantool's IPROTO_PACKET_SIZE_MAX of 2 GiB (the "
      "server closes the connection on a longer packet)");
}

std::string_view ProtoRequest::Render(const TemplateArg& arg, const ProtoArgs& a,
                                      std::string* out) const {
  if (arg.size() == 1 && arg[0].kind == TemplatePart::Kind::kData) return a.data;
  if (arg.size() == 1 && arg[0].kind == TemplatePart::Kind::kLiteral) return arg[0].literal;
  out->clear();
  char digits[24];
  for (const TemplatePart& p : arg) {
    switch (p.kind) {
      case TemplatePart::Kind::kLiteral: out->append(p.literal); break;
      case TemplatePart::Kind::kData: out->append(a.data); break;
      case TemplatePart::Kind::kKey:
        out->append(key_prefix_);
        out->append(digits, FormatUint(a.key_index, digits));
        break;
    }
  }
  return *out;
}

size_t ProtoRequest::Append(Buffer* out, const ProtoArgs& a) const {
  switch (op_) {
    case Op::kEtcdPut:
    case Op::kEtcdRange:
    case Op::kEtcdDelete: return AppendEtcd(out, a);
    case Op::kIpPing:
    case Op::kIpInsert:
    case Op::kIpReplace:
    case Op::kIpSelect:
    case Op::kIpDelete:
    case Op::kIpUpsert:
    case Op::kIpUpdate:
    case Op::kIpCall:
    case Op::kIpEval: return AppendIproto(out, a);
    default: return AppendMemcache(out, a);
  }
}

size_t ProtoRequest::AppendMemcache(Buffer* out, const ProtoArgs& a) const {
  const size_t before = out->Readable();
  const std::string_view key = Render(key_arg_, a, a.scratch);
  switch (op_) {
    case Op::kMcGet: memcache::AppendGet(out, key, false); break;
    case Op::kMcGets: memcache::AppendGet(out, key, true); break;
    case Op::kMcStore:
      memcache::AppendStore(out, store_, key, 0, 0, Render(value_arg_, a, a.scratch2));
      break;
    case Op::kMcCas:
      memcache::AppendCas(out, key, 0, 0, Render(value_arg_, a, a.scratch2), number_);
      break;
    case Op::kMcDelete: memcache::AppendDelete(out, key); break;
    case Op::kMcIncr: memcache::AppendIncr(out, key, number_); break;
    case Op::kMcDecr: memcache::AppendDecr(out, key, number_); break;
    case Op::kMcTouch: memcache::AppendTouch(out, key, static_cast<int64_t>(number_)); break;
    default: break;
  }
  return out->Readable() - before;
}

size_t ProtoRequest::AppendEtcd(Buffer* out, const ProtoArgs& a) const {
  const size_t before = out->Readable();
  const std::string_view key = Render(key_arg_, a, a.scratch);
  switch (op_) {
    case Op::kEtcdPut:
      etcd::AppendPut(out, etcd_target_, key, Render(value_arg_, a, a.scratch2));
      break;
    case Op::kEtcdRange: etcd::AppendRange(out, etcd_target_, key); break;
    case Op::kEtcdDelete: etcd::AppendDeleteRange(out, etcd_target_, key); break;
    default: break;
  }
  return out->Readable() - before;
}

size_t ProtoRequest::AppendIproto(Buffer* out, const ProtoArgs& a) const {
  iproto::TemplateArgs t;
  t.key_index = a.key_index;
  t.key_prefix = key_prefix_;
  t.data = a.data;
  t.seq = ShardSeq(a.seq, shard_);
  t.rng = a.rng;
  return iproto_->Append(out, a.sync, t);
}

Result<std::vector<ProtoRequest>> MakeProtoRequests(
    const LoadOptions& opt, const std::function<Result<uint32_t>(const std::string&)>& space_id) {
  // etcd: the Host header names the first target for every member (the gateway does not read it).
  etcd::Target et;
  et.host = opt.target.host + ":" + std::to_string(opt.target.port);
  std::vector<ProtoRequest> requests;
  for (const CommandSpec& c : opt.commands) {
    auto req = ProtoRequest::Parse(opt.protocol, c.text, opt.key_prefix);
    if (!req.ok()) return req.status().WithContext("--command '" + c.text + "'");
    req->set_etcd_target(et);
    if (opt.shard) req->set_shard(opt.shard->shard);
    Status s = req->ResolveSpace(space_id);
    if (!s.ok()) return s;
    requests.push_back(std::move(*req));
  }
  return requests;
}

}  // namespace memstand
