// etcd v3 through its JSON gateway: one load connection's session
// (load/session.h), a keep-alive HTTP/1.1 connection. No set-up; requests from
// an EtcdRequest (put, range, delete); responses in request order, so a request's tag
// is its index on the connection. A response's body is decoded to say what it meant,
// which depends on the request it answers (a put raised the revision, a range found a
// key). No I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/buffer.h"
#include "load/etcd_request.h"
#include "load/session.h"
#include "proto/etcd/http.h"
#include "util/status.h"

namespace memstand {

class EtcdSession {
 public:
  using Request = EtcdRequest;

  explicit EtcdSession(SessionConfig config);

  bool Start(Buffer*) { return true; }
  /// Tag: the request's index on this connection. REQUIRES: in_flight() < slots.
  Sent Append(const Request& request, const Draw& draw, Buffer* out) {
    requests_[sent_ & mask_] = &request;
    ProtoArgs a{draw.key, draw.data, 0, &scratch_, &scratch2_};
    return {sent_++, request.Append(out, a)};
  }
  bool AppendRedirected(const Request&, const Draw&, bool, Buffer*, uint64_t*, Sent*) {
    return false;  // etcd has no cluster redirects
  }
  static int Slot(const Request&, const Draw&) { return -1; }
  static constexpr bool kValueVerbatim = false;  // base64 in JSON
  static constexpr bool kRecordedApart = false;  // session.h

  /// A 200 whose body is not the JSON expected is a kProtocolError ("reply from PEER: ...").
  SessionEvent Feed(const char* p, size_t n, size_t* used, Buffer* out, ReplyView* reply);
  const Status& failure() const { return failure_; }
  std::string_view last_value() const { return value_; }
  uint64_t in_flight() const { return sent_ - answered_; }
  uint64_t next_tag() const { return sent_; }
  uint64_t setup_in_flight() const { return 0; }
  template <class F>
  void ForEachInFlight(F f) const {
    for (uint64_t t = answered_; t != sent_; ++t) f(t);
  }
  void Reset();

 private:
  SessionConfig config_;
  http::ResponseReader reader_;
  uint64_t sent_ = 0;
  uint64_t answered_ = 0;
  const uint64_t mask_;
  std::vector<const EtcdRequest*> requests_;  // by tag & mask_: what each response answers
  std::string scratch_, scratch2_;             // keys and values rendered per request
  std::string error_, error_kind_;             // the last error response's text and kind
  std::string value_;                          // value_head: a range's first value, its head
  Status failure_;
};

}  // namespace memstand
