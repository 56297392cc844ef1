// etcd v3 through its JSON gateway (grpc-gateway): request encoders that append a whole
// HTTP/1.1 POST to a Buffer, and a decoder of the JSON reply into a summary. Keys and
// values travel base64-encoded; int64 fields come back as JSON strings. No I/O here;
// http::ResponseReader frames the replies.
//
// The gateway's prefix depends on the version: /v3 (3.4+), /v3beta (3.3, still served
// by 3.4), /v3alpha (3.2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffer.h"
#include "util/status.h"

namespace memstand::etcd {

struct Target {
  std::string host = "127.0.0.1:2379";  // the Host header
  std::string prefix = "/v3";           // the gateway's path prefix
};

// ---- Encoders: each appends one complete request. Keys and values are raw bytes. ----

/// POST <prefix>/kv/put {"key", "value"[, "lease"]}.
void AppendPut(Buffer* out, const Target& t, std::string_view key, std::string_view value,
               int64_t lease = 0);

struct RangeOptions {
  std::string_view range_end;  // empty: the single key; "\0": every key >= key
  int64_t limit = 0;           // 0: no limit
  int64_t revision = 0;        // read as of this revision (0: the latest); one compacted
                               // away is an error ("required revision has been compacted")
  bool count_only = false;
  bool keys_only = false;
  bool serializable = false;   // read from the local member without a quorum round
};
/// POST <prefix>/kv/range.
void AppendRange(Buffer* out, const Target& t, std::string_view key, const RangeOptions& options = {});
/// POST <prefix>/kv/deleterange {"key"[, "range_end"]}.
void AppendDeleteRange(Buffer* out, const Target& t, std::string_view key,
                       std::string_view range_end = {});
/// POST <prefix>/maintenance/status {}.
void AppendStatus(Buffer* out, const Target& t);
/// POST <prefix>/kv/compaction {"revision", "physical"}: physical waits until the
/// compaction is applied to the backend.
void AppendCompaction(Buffer* out, const Target& t, int64_t revision, bool physical = true);
/// POST <prefix>/maintenance/defragment {}.
void AppendDefragment(Buffer* out, const Target& t);
/// POST <prefix>/maintenance/alarm {"action": "GET"}: every active alarm.
void AppendAlarmList(Buffer* out, const Target& t);
/// POST <prefix>/maintenance/alarm {"action": "DEACTIVATE", "memberID", "alarm"}.
/// `alarm` is "NOSPACE" or "CORRUPT".
void AppendAlarmDisarm(Buffer* out, const Target& t, uint64_t member_id, std::string_view alarm);

// ---- Replies. ----

struct KeyValue {
  std::string key;    // decoded
  std::string value;  // decoded
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;
};

struct Alarm {
  uint64_t member_id = 0;
  std::string alarm;  // "NOSPACE", "CORRUPT"
};

/// What a reply says. Fields a reply does not carry stay 0 / empty.
struct Summary {
  int http_status = 0;
  bool ok = false;       // HTTP 200 and no error object
  std::string error;     // etcd's text, e.g. "etcdserver: mvcc: database space exceeded"
  int code = 0;          // its gRPC code, e.g. 8 (RESOURCE_EXHAUSTED)
  int64_t revision = 0;  // header.revision: the store revision after the request
  uint64_t member_id = 0;  // header.member_id
  uint64_t cluster_id = 0;  // header.cluster_id: the same on every member of a cluster
  int64_t count = 0;     // range: keys in the range
  size_t kvs = 0;        // range: key-values returned
  bool more = false;     // range: more keys past the limit
  int64_t deleted = 0;   // deleterange
  // maintenance/status
  std::string version;
  int64_t db_size = 0;
  int64_t db_size_in_use = 0;
  uint64_t leader = 0;
  // maintenance/alarm
  std::vector<Alarm> alarms;
  // range, with want_kvs
  std::vector<KeyValue> kv_list;
};

/// Decodes a gateway reply body. A non-JSON body with a non-200 status (e.g. the
/// "404 page not found" of a wrong prefix) is a Summary with ok == false and the
/// status and text in `error`; a 200 whose body is not the JSON expected is a
/// Protocol error.
Result<Summary> DecodeReply(int http_status, std::string_view body, bool want_kvs = false);

/// Whether an error reply leaves open whether the request was applied: etcd's "request
/// timed out" (the proposal may still commit), "leader changed", a gateway deadline.
/// Other errors (a compacted revision, "no leader", a malformed request) were not.
bool ErrorIndefinite(std::string_view error);

}  // namespace memstand::etcd
