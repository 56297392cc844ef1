#include "proto/etcd/etcd.h"

#include <cstring>
#include <initializer_list>
#include <span>
#include <nlohmann/json.hpp>

#include "proto/etcd/http.h"
#include "proto/wire_text.h"
#include "util/base64.h"
#include "util/json_depth.h"

namespace memstand::etcd {

namespace {

using nlohmann::json;

// One member of a request's JSON object. Names and plain strings are ASCII constants
// (no escaping needed); bytes go base64-encoded.
struct Field {
  enum class Kind : uint8_t { kBase64, kInt, kUint, kTrue, kText };
  std::string_view name;
  Kind kind;
  std::string_view bytes = {};
  int64_t i = 0;
  uint64_t u = 0;

  static Field B64(std::string_view name, std::string_view b) { return {name, Kind::kBase64, b}; }
  static Field Int(std::string_view name, int64_t i) { return {name, Kind::kInt, {}, i}; }
  static Field Uint(std::string_view name, uint64_t u) { return {name, Kind::kUint, {}, 0, u}; }
  static Field True(std::string_view name) { return {name, Kind::kTrue}; }
  static Field Text(std::string_view name, std::string_view s) { return {name, Kind::kText, s}; }

  size_t ValueSize() const {
    switch (kind) {
      case Kind::kBase64:
        return Base64Size(bytes.size()) + 2;
      case Kind::kInt:
        return proto::DecimalSize(i < 0 ? 0 - static_cast<uint64_t>(i) : static_cast<uint64_t>(i)) +
               (i < 0 ? 1 : 0);
      case Kind::kUint:
        return proto::DecimalSize(u);
      case Kind::kTrue:
        return 4;
      case Kind::kText:
        return bytes.size() + 2;
    }
    return 0;
  }
  char* WriteValue(char* p) const {
    switch (kind) {
      case Kind::kBase64:
        *p++ = '"';
        p = Base64Write(p, bytes);
        *p++ = '"';
        return p;
      case Kind::kInt:
        if (i < 0) *p++ = '-';
        return proto::WriteDecimal(p, i < 0 ? 0 - static_cast<uint64_t>(i) : static_cast<uint64_t>(i));
      case Kind::kUint:
        return proto::WriteDecimal(p, u);
      case Kind::kTrue:
        std::memcpy(p, "true", 4);
        return p + 4;
      case Kind::kText:
        *p++ = '"';
        std::memcpy(p, bytes.data(), bytes.size());
        p += bytes.size();
        *p++ = '"';
        return p;
    }
    return p;
  }
};

// Appends the POST with its JSON body {"name":value,...}, sized first and then written
// in place: no temporary string.
void AppendJsonPost(Buffer* out, const Target& t, std::string_view method, std::span<const Field> fields) {
  size_t body = 2 + (fields.size() > 0 ? fields.size() - 1 : 0);  // braces and commas
  for (const Field& f : fields) body += f.name.size() + 3 + f.ValueSize();
  const size_t path = t.prefix.size() + method.size();
  char path_buf[256];
  std::string path_str;
  std::string_view full_path;
  if (path <= sizeof(path_buf)) {
    std::memcpy(path_buf, t.prefix.data(), t.prefix.size());
    std::memcpy(path_buf + t.prefix.size(), method.data(), method.size());
    full_path = std::string_view(path_buf, path);
  } else {
    path_str = t.prefix + std::string(method);
    full_path = path_str;
  }
  http::AppendPostHead(out, t.host, full_path, body);
  out->EnsureWritable(body);
  char* start = out->WritePtr();
  char* p = start;
  *p++ = '{';
  bool first = true;
  for (const Field& f : fields) {
    if (!first) *p++ = ',';
    first = false;
    *p++ = '"';
    std::memcpy(p, f.name.data(), f.name.size());
    p += f.name.size();
    *p++ = '"';
    *p++ = ':';
    p = f.WriteValue(p);
  }
  *p++ = '}';
  out->Commit(static_cast<size_t>(p - start));
}

void AppendJsonPost(Buffer* out, const Target& t, std::string_view method,
                    std::initializer_list<Field> fields) {
  AppendJsonPost(out, t, method, std::span<const Field>(fields.begin(), fields.size()));
}

// An int64 of the gateway's JSON: a string of digits (proto3 mapping) or a number.
bool ReadInt64(const json& obj, const char* name, int64_t* out) {
  auto it = obj.find(name);
  if (it == obj.end()) return true;
  if (it->is_number_integer()) {
    *out = it->get<int64_t>();
    return true;
  }
  if (!it->is_string()) return false;
  const std::string& s = it->get_ref<const std::string&>();
  const bool negative = !s.empty() && s[0] == '-';
  uint64_t v = 0;
  if (!proto::ParseUint64(std::string_view(s).substr(negative ? 1 : 0), &v) ||
      v > static_cast<uint64_t>(INT64_MAX)) {
    return false;
  }
  *out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

bool ReadUint64(const json& obj, const char* name, uint64_t* out) {
  auto it = obj.find(name);
  if (it == obj.end()) return true;
  if (it->is_number_unsigned()) {
    *out = it->get<uint64_t>();
    return true;
  }
  return it->is_string() && proto::ParseUint64(it->get_ref<const std::string&>(), out);
}

bool ReadBase64(const json& obj, const char* name, std::string* out) {
  auto it = obj.find(name);
  if (it == obj.end()) return true;
  return it->is_string() && Base64Decode(it->get_ref<const std::string&>(), out);
}

Status Bad(const char* what) {
  return Status::Protocol(std::string("etcd reply with a bad ") + what);
}

Status DecodeKvs(const json& kvs, bool want_kvs, Summary* s) {
  if (!kvs.is_array()) return Bad("kvs");
  s->kvs = kvs.size();
  if (!want_kvs) return Status::OK();
  for (const json& kv : kvs) {
    if (!kv.is_object()) return Bad("kvs");
    KeyValue& out = s->kv_list.emplace_back();
    if (!ReadBase64(kv, "key", &out.key) || !ReadBase64(kv, "value", &out.value) ||
        !ReadInt64(kv, "create_revision", &out.create_revision) ||
        !ReadInt64(kv, "mod_revision", &out.mod_revision) ||
        !ReadInt64(kv, "version", &out.version)) {
      return Bad("key-value");
    }
  }
  return Status::OK();
}

Status DecodeAlarms(const json& alarms, Summary* s) {
  if (!alarms.is_array()) return Bad("alarms");
  for (const json& a : alarms) {
    if (!a.is_object()) return Bad("alarm");
    Alarm& out = s->alarms.emplace_back();
    auto name = a.find("alarm");
    if (!ReadUint64(a, "memberID", &out.member_id)) return Bad("alarm memberID");
    if (name != a.end() && name->is_string()) out.alarm = name->get<std::string>();
    if (name == a.end()) out.alarm = "NONE";  // proto3 JSON omits the zero enum value
  }
  return Status::OK();
}

// {"error": text, "code": n} (grpc-gateway v1) or {"message": text, "code": n}.
bool DecodeError(const json& j, Summary* s) {
  auto err = j.find("error");
  if (err == j.end() || !err->is_string()) err = j.find("message");
  if (err == j.end() || !err->is_string()) return false;
  s->error = err->get<std::string>();
  auto code = j.find("code");
  if (code != j.end() && code->is_number_integer()) s->code = code->get<int>();
  return true;
}

Status DecodeFields(const json& j, bool want_kvs, Summary* s) {
  if (auto h = j.find("header"); h != j.end()) {
    if (!h->is_object() || !ReadInt64(*h, "revision", &s->revision) ||
        !ReadUint64(*h, "member_id", &s->member_id) ||
        !ReadUint64(*h, "cluster_id", &s->cluster_id)) {
      return Bad("header");
    }
  }
  if (!ReadInt64(j, "count", &s->count) || !ReadInt64(j, "deleted", &s->deleted) ||
      !ReadInt64(j, "dbSize", &s->db_size) || !ReadInt64(j, "dbSizeInUse", &s->db_size_in_use) ||
      !ReadUint64(j, "leader", &s->leader)) {
    return Bad("number");
  }
  if (auto more = j.find("more"); more != j.end()) s->more = more->is_boolean() && more->get<bool>();
  if (auto v = j.find("version"); v != j.end() && v->is_string()) s->version = v->get<std::string>();
  if (auto kvs = j.find("kvs"); kvs != j.end()) {
    if (Status st = DecodeKvs(*kvs, want_kvs, s); !st.ok()) return st;
  }
  if (auto alarms = j.find("alarms"); alarms != j.end()) return DecodeAlarms(*alarms, s);
  return Status::OK();
}

}  // namespace

void AppendPut(Buffer* out, const Target& t, std::string_view key, std::string_view value,
               int64_t lease) {
  if (lease != 0) {
    AppendJsonPost(out, t, "/kv/put",
                   {Field::B64("key", key), Field::B64("value", value), Field::Int("lease", lease)});
  } else {
    AppendJsonPost(out, t, "/kv/put", {Field::B64("key", key), Field::B64("value", value)});
  }
}

void AppendRange(Buffer* out, const Target& t, std::string_view key, const RangeOptions& o) {
  // Optional members are sent only when set.
  Field fields[7] = {Field::B64("key", key)};
  size_t n = 1;
  if (!o.range_end.empty()) fields[n++] = Field::B64("range_end", o.range_end);
  if (o.limit != 0) fields[n++] = Field::Int("limit", o.limit);
  if (o.revision != 0) fields[n++] = Field::Int("revision", o.revision);
  if (o.count_only) fields[n++] = Field::True("count_only");
  if (o.keys_only) fields[n++] = Field::True("keys_only");
  if (o.serializable) fields[n++] = Field::True("serializable");
  AppendJsonPost(out, t, "/kv/range", std::span<const Field>(fields, n));
}

void AppendDeleteRange(Buffer* out, const Target& t, std::string_view key,
                       std::string_view range_end) {
  if (range_end.empty()) return AppendJsonPost(out, t, "/kv/deleterange", {Field::B64("key", key)});
  AppendJsonPost(out, t, "/kv/deleterange",
                 {Field::B64("key", key), Field::B64("range_end", range_end)});
}

void AppendStatus(Buffer* out, const Target& t) { AppendJsonPost(out, t, "/maintenance/status", {}); }

void AppendCompaction(Buffer* out, const Target& t, int64_t revision, bool physical) {
  if (!physical) return AppendJsonPost(out, t, "/kv/compaction", {Field::Int("revision", revision)});
  AppendJsonPost(out, t, "/kv/compaction",
                 {Field::Int("revision", revision), Field::True("physical")});
}

void AppendDefragment(Buffer* out, const Target& t) {
  AppendJsonPost(out, t, "/maintenance/defragment", {});
}

void AppendAlarmList(Buffer* out, const Target& t) {
  AppendJsonPost(out, t, "/maintenance/alarm", {Field::Text("action", "GET")});
}

void AppendAlarmDisarm(Buffer* out, const Target& t, uint64_t member_id, std::string_view alarm) {
  AppendJsonPost(out, t, "/maintenance/alarm",
                 {Field::Text("action", "DEACTIVATE"), Field::Uint("memberID", member_id),
                  Field::Text("alarm", alarm)});
}

Result<Summary> DecodeReply(int http_status, std::string_view body, bool want_kvs) {
  Summary s;
  s.http_status = http_status;
  // A reply nested deeper than any etcd writes would take nlohmann's recursive parser
  // (and the json's destructor) down the stack: refused before it is parsed.
  if (Status depth = CheckJsonDepth(body); !depth.ok()) {
    return Status::Protocol("etcd reply " + depth.message() + ": " + proto::Quote(body, 80));
  }
  const json j = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    if (http_status == 200) {
      return Status::Protocol("etcd reply is not a JSON object: " + proto::Quote(body, 80));
    }
    s.error = "HTTP " + std::to_string(http_status) + ": " + std::string(body.substr(0, 200));
    while (!s.error.empty() && (s.error.back() == '\n' || s.error.back() == '\r')) s.error.pop_back();
    return s;
  }
  const bool has_error = DecodeError(j, &s);
  if (Status st = DecodeFields(j, want_kvs, &s); !st.ok()) return st;
  s.ok = http_status == 200 && !has_error;
  if (!s.ok && s.error.empty()) s.error = "HTTP " + std::to_string(http_status);
  return s;
}

bool ErrorIndefinite(std::string_view error) {
  return error.find("timed out") != std::string_view::npos ||
         error.find("leader changed") != std::string_view::npos ||
         error.find("deadline exceeded") != std::string_view::npos;
}

}  // namespace memstand::etcd
