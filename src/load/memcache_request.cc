#include "load/memcache_request.h"

#include <charconv>
#include <cstdio>
#include <utility>

#include "proto/wire_text.h"
#include "util/redact.h"

namespace memstand {

namespace {

constexpr const char* kMemcacheForms =
    "get K | gets K | set|add|replace|append|prepend K V | cas K V UNIQUE | delete K | "
    "incr K [DELTA] | decr K [DELTA] | touch K EXPTIME";

Status BadMemcache(const std::string& what, const char* forms) {
  return Status::InvalidArgument(what + " (accepted: " + forms + ")");
}

// A literal argument's text, or nullopt when it holds a placeholder.
bool LiteralUint(const TemplateArg& arg, uint64_t* out) {
  if (arg.size() != 1 || arg[0].kind != TemplatePart::Kind::kLiteral) return false;
  const std::string& s = arg[0].literal;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

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

Result<MemcacheRequest> MemcacheRequest::Parse(std::string_view text, std::string key_prefix) {
  auto parsed = ParseCommandTemplate(text);
  if (!parsed.ok()) return parsed.status();
  const CommandTemplate& t = *parsed;
  MemcacheRequest r;
  const std::string& n = t.name;
  const size_t args = t.args.size() - 1;
  auto want = [&](size_t lo, size_t hi) -> Status {
    if (args < lo || args > hi) {
      return BadMemcache("memcache '" + n + "' takes " + std::to_string(lo) +
                             (hi > lo ? ".." + std::to_string(hi) : "") + " arguments, got " +
                             std::to_string(args),
                         kMemcacheForms);
    }
    return Status::OK();
  };
  Status s;
  if (n == "GET" || n == "GETS") {
    s = want(1, 1);
    r.op_ = n == "GET" ? Op::kGet : Op::kGets;
    r.server_stat_ = "cmd_get";
    r.counts_hits_ = true;
  } else if (n == "SET" || n == "ADD" || n == "REPLACE" || n == "APPEND" || n == "PREPEND") {
    s = want(2, 2);
    r.op_ = Op::kStore;
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
      s = BadMemcache("memcache 'CAS': the cas unique must be a literal number", kMemcacheForms);
    }
    r.op_ = Op::kCas;
    r.server_stat_ = "cmd_set";
    r.counts_hits_ = true;
  } else if (n == "DELETE") {
    s = want(1, 1);
    r.op_ = Op::kDelete;
    r.server_stat_ = "delete";
    r.counts_hits_ = true;
  } else if (n == "INCR" || n == "DECR" || n == "TOUCH") {
    s = want(n == "TOUCH" ? 2 : 1, 2);
    r.number_ = n == "TOUCH" ? 0 : 1;
    if (s.ok() && args == 2 && !LiteralUint(t.args[2], &r.number_)) {
      s = BadMemcache("memcache '" + n + "': the second argument must be a literal number", kMemcacheForms);
    }
    r.op_ = n == "INCR" ? Op::kIncr : n == "DECR" ? Op::kDecr : Op::kTouch;
    r.server_stat_ = n == "INCR" ? "incr" : n == "DECR" ? "decr" : "cmd_touch";
    r.counts_hits_ = true;
  } else {
    s = BadMemcache("memcache has no command '" + Abbreviate(n) + "'", kMemcacheForms);
  }
  if (!s.ok()) return s;
  r.label_ = n;
  r.key_arg_ = t.args[1];
  if (r.op_ == Op::kStore || r.op_ == Op::kCas) r.value_arg_ = t.args[2];
  r.uses_key_ = t.uses_key;
  r.uses_data_ = t.uses_data;
  if (HasPart(r.key_arg_, TemplatePart::Kind::kData)) {
    return BadMemcache("memcache keys cannot hold __data__", kMemcacheForms);
  }
  r.key_prefix_ = std::move(key_prefix);
  return r;
}

Status MemcacheRequest::CheckKey(uint64_t key_max) const {
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
  const size_t longest = LongestArg(key_arg_, key_prefix_.size(), key_max);
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

Status MemcacheRequest::CheckLimits(uint64_t key_max, size_t, const std::string&) const {
  return CheckKey(key_max);
}

size_t MemcacheRequest::Append(Buffer* out, const ProtoArgs& a) const {
  const size_t before = out->Readable();
  const std::string_view key = RenderArg(key_arg_, key_prefix_, a, a.scratch);
  switch (op_) {
    case Op::kGet: memcache::AppendGet(out, key, false); break;
    case Op::kGets: memcache::AppendGet(out, key, true); break;
    case Op::kStore:
      memcache::AppendStore(out, store_, key, 0, 0, RenderArg(value_arg_, key_prefix_, a, a.scratch2));
      break;
    case Op::kCas:
      memcache::AppendCas(out, key, 0, 0, RenderArg(value_arg_, key_prefix_, a, a.scratch2), number_);
      break;
    case Op::kDelete: memcache::AppendDelete(out, key); break;
    case Op::kIncr: memcache::AppendIncr(out, key, number_); break;
    case Op::kDecr: memcache::AppendDecr(out, key, number_); break;
    case Op::kTouch: memcache::AppendTouch(out, key, static_cast<int64_t>(number_)); break;
  }
  return out->Readable() - before;
}

}  // namespace memstand
