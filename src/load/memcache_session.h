// memcached's text protocol: one load connection's session (load/session.h). No
// set-up; requests from a MemcacheRequest (get, gets, set, add, ..., touch); replies in
// request order, so a request's tag is its index on the connection. What a reply means
// (an error, a hit) is read from the reply and, for get/gets, from the request it
// answers. No I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/buffer.h"
#include "load/memcache_request.h"
#include "load/session.h"
#include "proto/memcache/memcache.h"
#include "util/status.h"

namespace memstand {

class MemcacheSession {
 public:
  using Request = MemcacheRequest;

  explicit MemcacheSession(SessionConfig config);

  bool Start(Buffer*) { return true; }
  /// Tag: the request's index on this connection. REQUIRES: in_flight() < slots.
  Sent Append(const Request& request, const Draw& draw, Buffer* out) {
    requests_[sent_ & mask_] = &request;
    ProtoArgs a{draw.key, draw.data, 0, &scratch_, &scratch2_};
    return {sent_++, request.Append(out, a)};
  }
  bool AppendRedirected(const Request&, const Draw&, bool, Buffer*, uint64_t*, Sent*) {
    return false;  // memcached has no cluster redirects
  }
  static int Slot(const Request&, const Draw&) { return -1; }
  static constexpr bool kValueVerbatim = true;
  static constexpr bool kRecordedApart = false;  // session.h
  /// The value, `size` bytes, of the write Append just wrote to out: a register's write
  /// (`set key __data__`, load/history_ops.h) ends with its value, then CRLF.
  static char* WrittenValue(const Request&, Buffer* out, size_t size) { return out->WritePtr() - 2 - size; }

  /// In line in the worker's Deliver (both of its copies: with and without --history),
  /// what is rare out of line.
  [[gnu::always_inline]] inline SessionEvent Feed(const char* p, size_t n, size_t* used, Buffer* out,
                                                  ReplyView* reply);
  const Status& failure() const { return failure_; }
  /// --history: the first SessionConfig::value_head bytes of the value a get's reply
  /// holds; empty for any other reply. Valid until the next Feed().
  std::string_view last_value() const;
  uint64_t in_flight() const { return sent_ - answered_; }
  uint64_t next_tag() const { return sent_; }
  uint64_t setup_in_flight() const { return 0; }
  template <class F>
  void ForEachInFlight(F f) const {
    for (uint64_t t = answered_; t != sent_; ++t) f(t);
  }
  void Reset();

 private:
  [[gnu::cold]] SessionEvent Malformed();
  [[gnu::cold]] SessionEvent Unmatched();

  SessionConfig config_;
  memcache::Reader reader_{memcache::Reader::Mode::kSummary};
  uint64_t sent_ = 0;
  uint64_t answered_ = 0;
  const uint64_t mask_;
  std::vector<const MemcacheRequest*> requests_;  // by tag & mask_: what each reply answers
  std::string scratch_, scratch2_;             // keys and values rendered per request
  Status failure_;
};

SessionEvent MemcacheSession::Feed(const char* p, size_t n, size_t* used, Buffer*, ReplyView* reply) {
  const memcache::Reader::Event ev = reader_.Feed(p, n, used);
  if (ev == memcache::Reader::Event::kNeedMore) return SessionEvent::kNeedMore;
  if (ev == memcache::Reader::Event::kProtocolError) return Malformed();
  if (answered_ == sent_) return Unmatched();
  const bool is_get = requests_[answered_ & mask_]->is_get();
  const memcache::Summary& s = reader_.summary();
  using K = memcache::Kind;
  reply->tag = answered_++;
  reply->wire_bytes = s.wire_bytes;
  reply->is_error = s.is_error;
  // A hit: a VALUE came, or the command took effect (STORED, DELETED, TOUCHED, a number).
  reply->positive = !s.is_error && (s.kind == K::kValues ? s.values > 0
                                                         : (s.kind == K::kStored || s.kind == K::kDeleted ||
                                                            s.kind == K::kTouched || s.kind == K::kNumber));
  reply->counts_get = !s.is_error && is_get;
  if (s.is_error) {
    reply->error = s.error;
    reply->error_kind = memcache::KindName(s.kind);
  }
  return SessionEvent::kReply;
}

}  // namespace memstand
