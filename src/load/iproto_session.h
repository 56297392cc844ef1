// Tarantool IPROTO: one load connection's session (load/session.h). Set-up: the
// server's 128-byte greeting, then AUTH (chap-sha1, with the greeting's salt) when the
// target has a user. Requests from an IprotoRequest (an IPROTO request template);
// responses come in any order and carry their request's sync, which is its tag:
// (sequence << bits) | slot, the slot (of SessionConfig::slots) taken from a free list
// and given back with the response, so syncs grow in the order requests are sent and
// those in flight differ in their low bits. box.session.push messages answer no
// request and are skipped. A reply to call or eval whose results say `nil, err` is an
// error of kind "call: <err>" as the request's --call-errors mode reads it
// (proto/iproto/call_error.h). No I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/buffer.h"
#include "load/iproto_request.h"
#include "load/session.h"
#include "proto/iproto/iproto.h"
#include "util/status.h"

namespace memstand {

class IprotoSession {
 public:
  using Request = IprotoRequest;

  explicit IprotoSession(SessionConfig config);

  /// Nothing to write: the server speaks first. Always false (the greeting is awaited).
  bool Start(Buffer* out);
  /// REQUIRES: in_flight() < slots, and the set-up through.
  Sent Append(const Request& request, const Draw& draw, Buffer* out) {
    const uint32_t slot = free_.back();
    free_.pop_back();
    const uint64_t sync = (++sequence_ << bits_) | slot;
    slot_sync_[slot] = sync;
    slot_mode_[slot] = request.call_errors();
    ++in_flight_;
    ProtoArgs a{draw.key, draw.data, sync, nullptr, nullptr, draw.seq, draw.rng};
    return {sync, request.Append(out, a)};
  }
  bool AppendRedirected(const Request&, const Draw&, bool, Buffer*, uint64_t*, Sent*) {
    return false;  // Tarantool has no cluster redirects
  }
  static int Slot(const Request&, const Draw&) { return -1; }
  /// A request holds its value as it is (a MessagePack string): --history stamps a
  /// write's tag there.
  static constexpr bool kValueVerbatim = true;
  static constexpr bool kRecordedApart = true;  // session.h
  /// The value, `size` bytes, of the write Append just wrote to out: a register's write
  /// (`replace SPACE [KEY, ...]`, load/history_ops.h) has its value as its last
  /// placeholder, followed by the template's constant bytes (IprotoRequest::data_tail).
  static char* WrittenValue(const Request& request, Buffer* out, size_t size) {
    return out->WritePtr() - request.data_tail() - size;
  }

  /// Writes AUTH to out once the greeting is whole (when the target has a user). In line
  /// in the worker's Deliver (both of its copies: with and without --history) for a
  /// reply that is neither the greeting nor AUTH's nor what follows a push (FeedSlow);
  /// what is rare out of line.
  [[gnu::always_inline]] inline SessionEvent Feed(const char* p, size_t n, size_t* used, Buffer* out,
                                                  ReplyView* reply);
  const Status& failure() const { return failure_; }
  /// --history: the value of the register a select's reply holds (field
  /// SessionConfig::value_field of its first tuple, the first value_head bytes); empty
  /// when the history is off, or for a reply without one. Valid until the next Feed().
  std::string_view last_value() const;
  uint64_t in_flight() const { return in_flight_; }
  /// REQUIRES: in_flight() < slots.
  uint64_t next_tag() const { return ((sequence_ + 1) << bits_) | free_.back(); }
  uint64_t setup_in_flight() const { return auth_sent_ ? 1 : 0; }
  template <class F>
  void ForEachInFlight(F f) const {
    for (uint64_t sync : slot_sync_) {
      if (sync != 0) f(sync);
    }
  }
  void Reset();

 private:
  /// Takes greeting bytes; once it is whole, writes AUTH if the target has a user.
  SessionEvent FeedGreeting(const char* p, size_t n, size_t* used, Buffer* out);
  SessionEvent AuthReply(const iproto::Summary& s);
  /// Feed from the start: the greeting, a push, AUTH's reply.
  SessionEvent FeedSlow(const char* p, size_t n, size_t* used, Buffer* out, ReplyView* reply);
  /// The reply the reader holds, to a request in flight: its ReplyView.
  [[gnu::always_inline]] inline SessionEvent Answered(const iproto::Summary& s, ReplyView* reply);
  [[gnu::cold]] SessionEvent Malformed();
  [[gnu::cold]] SessionEvent Unmatched(uint64_t sync);
  [[gnu::cold]] void ErrorReply(const iproto::Summary& s, ReplyView* reply);
  /// A call or eval's results, read as `mode` says: an application error or not.
  void CallReply(const iproto::Summary& s, iproto::CallErrors mode, ReplyView* reply);

  SessionConfig config_;
  const int bits_;  // log2(slots)
  iproto::Reader reader_{iproto::Reader::Mode::kSummary};
  std::string greeting_;          // its bytes so far; whole once kGreetingSize
  bool auth_sent_ = false;        // AUTH written, its reply not read
  std::vector<uint64_t> slot_sync_;  // by slot: the sync in flight there, 0 when free
  std::vector<iproto::CallErrors> slot_mode_;  // by slot: its request's call_errors()
  std::vector<uint32_t> free_;       // free slots, the lowest last
  uint64_t sequence_ = 0;
  uint64_t in_flight_ = 0;
  std::string error_kind_;  // the last error response's kind ("ER_TUPLE_FOUND (3)")
  std::string call_error_;  // the last application error's message
  Status failure_;
};

SessionEvent IprotoSession::Feed(const char* p, size_t n, size_t* used, Buffer* out, ReplyView* reply) {
  if (greeting_.size() < iproto::kGreetingSize || auth_sent_) [[unlikely]] return FeedSlow(p, n, used, out, reply);
  size_t took = 0;
  const iproto::Reader::Event ev = reader_.Feed(p, n, &took);
  *used = took;
  if (ev == iproto::Reader::Event::kNeedMore) return SessionEvent::kNeedMore;
  if (ev == iproto::Reader::Event::kProtocolError) [[unlikely]] return Malformed();
  const iproto::Summary& s = reader_.summary();
  if (s.is_push) [[unlikely]] {  // box.session.push: the response follows
    if (took == n) return SessionEvent::kNeedMore;
    size_t more = 0;
    const SessionEvent next = FeedSlow(p + took, n - took, &more, out, reply);
    *used = took + more;
    return next;
  }
  return Answered(s, reply);
}

SessionEvent IprotoSession::Answered(const iproto::Summary& s, ReplyView* reply) {
  const uint64_t slot = s.sync & (config_.slots - 1);
  if (s.sync == 0 || slot_sync_[slot] != s.sync) [[unlikely]] return Unmatched(s.sync);
  slot_sync_[slot] = 0;
  free_.push_back(static_cast<uint32_t>(slot));
  --in_flight_;
  reply->tag = s.sync;
  reply->wire_bytes = s.wire_bytes;
  reply->is_error = s.is_error;
  reply->positive = !s.is_error && s.data_count > 0;
  if (s.is_error) [[unlikely]] {
    ErrorReply(s, reply);
  } else if (s.data_count >= 2 && slot_mode_[slot] != iproto::CallErrors::kNone) [[unlikely]] {
    CallReply(s, slot_mode_[slot], reply);
  }
  return SessionEvent::kReply;
}

}  // namespace memstand
