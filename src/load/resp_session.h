// RESP (Redis): one load connection's session (load/session.h). Set-up: HELLO
// (with AUTH inside) for RESP3, else AUTH, then SELECT, then READONLY on a replica's
// connection; requests from a RequestBuilder; replies in request order, so a request's
// tag is its index on the connection. RESP3 push messages answer no request and are
// skipped. --wait-replicas: a write is followed by WAIT on the same connection, and the
// two are one request (one tag) whose reply is WAIT's, read with the write's. No I/O.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffer.h"
#include "load/load_options.h"
#include "load/request_builder.h"
#include "load/session.h"
#include "proto/resp/resp.h"
#include "util/status.h"

namespace memstand {

/// One command of the mix, as a RESP session sends it.
struct RespRequest {
  RequestBuilder builder;
  bool key = false;   // holds __key__
  bool data = false;  // holds __data__
  /// The name INFO commandstats counts it under: the lower-case command name.
  std::string stat;
  /// --wait-replicas, a write: `WAIT N TIMEOUT` encoded, sent right after it; empty: none.
  std::string wait;
  int wait_replicas = 0;  // N: the replicas WAIT must report for the write to be ok

  bool uses_key() const { return key; }
  bool uses_data() const { return data; }
  bool uses_seq() const { return false; }
  /// A script or a transaction's EXEC: an error may follow some of its writes.
  bool partial_on_error() const {
    return stat == "eval" || stat == "evalsha" || stat == "eval_ro" || stat == "evalsha_ro" ||
           stat == "fcall" || stat == "fcall_ro" || stat == "exec";
  }
  const std::string& server_stat() const { return stat; }
};

class RespSession {
 public:
  using Request = RespRequest;

  /// The requests of the mix, by command index.
  static std::vector<RespRequest> MakeRequests(const LoadOptions& opt);
  /// --wait-replicas: whether a WAIT follows command `c` of the mix: every command but
  /// the GET-like reads (CommandSpec::counts_hits). Off: none.
  static bool WaitFollows(const LoadOptions& opt, const CommandSpec& c) {
    return opt.wait.replicas > 0 && !c.counts_hits;
  }
  /// The error kind of a write WAIT did not see on enough replicas (an unknown outcome).
  static constexpr std::string_view kNotReplicatedKind = "not replicated";

  explicit RespSession(SessionConfig config);

  bool Start(Buffer* out);
  /// Tag: the request's index on this connection, set-up not counted.
  Sent Append(const Request& request, const Draw& draw, Buffer* out) {
    const Sent sent{sent_++, request.builder.Append(out, draw.key, draw.data)};
    if (!request.wait.empty()) [[unlikely]] return AppendWait(request, sent, out);
    return sent;
  }
  /// The request again after a redirect; for an ASK, ASKING first (*asking_tag: its tag;
  /// its reply answers nothing).
  bool AppendRedirected(const Request& request, const Draw& draw, bool asking, Buffer* out,
                        uint64_t* asking_tag, Sent* sent);
  static int Slot(const Request& request, const Draw& draw) {
    return request.builder.Slot(draw.key, draw.data);
  }
  /// A request holds its value as it is: --history stamps a write's tag there.
  static constexpr bool kValueVerbatim = true;
  static constexpr bool kRecordedApart = false;  // session.h
  /// The value, `size` bytes, of the write Append just wrote to out: a register's write
  /// (`SET key __data__`, load/history_ops.h) ends with its value, then CRLF (then its
  /// WAIT, if any).
  static char* WrittenValue(const Request& request, Buffer* out, size_t size) {
    return out->WritePtr() - 2 - size - request.wait.size();
  }

  [[gnu::always_inline]] inline SessionEvent Feed(const char* p, size_t n, size_t* used, Buffer* out,
                                                  ReplyView* reply);
  const Status& failure() const { return failure_; }
  std::string_view last_value() const {
    const resp::Summary& s = reader_.summary();
    return s.type == resp::Type::kBulkString ? std::string_view(s.head) : std::string_view();
  }
  uint64_t in_flight() const { return sent_ - answered_; }
  uint64_t next_tag() const { return sent_; }
  uint64_t setup_in_flight() const { return setup_.size() - setup_done_; }
  template <class F>
  void ForEachInFlight(F f) const {
    for (uint64_t t = answered_; t != sent_; ++t) f(t);
  }
  void Reset();

 private:
  SessionEvent SetupReply(const resp::Summary& s);
  [[gnu::noinline]] Sent AppendWait(const Request& request, Sent sent, Buffer* out);
  /// A reply to the oldest request, which a WAIT follows: false for the write's own
  /// (held), true for WAIT's, with *reply the request's (both read).
  [[gnu::noinline]] bool WaitStep(const resp::Summary& s, ReplyView* reply);
  SessionEvent Unmatched(const resp::Summary& s);
  SessionEvent Malformed();
  void WriteSetup(Buffer* out, std::initializer_list<std::string_view> args);

  SessionConfig config_;
  resp::Reader reader_{resp::Reader::Mode::kSummary};
  uint64_t sent_ = 0;      // requests appended (the next tag)
  uint64_t answered_ = 0;  // requests answered (the oldest tag in flight)
  std::vector<std::string> setup_;  // the set-up requests written, by name, in order
  size_t setup_done_ = 0;           // of them, answered
  Status failure_;
  /// --wait-replicas: the tags in flight whose request a WAIT follows, oldest first,
  /// with the replicas each wants; waits_ their count (tested per reply: 0 when off).
  std::deque<std::pair<uint64_t, int>> waited_;
  size_t waits_ = 0;
  // The oldest of them, its write's reply read and WAIT's awaited: that reply's bytes
  // and, an error, its text and kind (which the request's reply then is).
  bool write_replied_ = false;
  size_t write_bytes_ = 0;
  bool write_failed_ = false;
  std::string write_error_;
  std::string wait_error_;  // the reply's error text when WAIT's decides it
  size_t error_kind_len_ = 0;
};

// The hot path: a reply per call, with the rare cases (set-up, a reply to nothing,
// malformed bytes) out of line.
SessionEvent RespSession::Feed(const char* p, size_t n, size_t* used, Buffer*, ReplyView* reply) {
  size_t off = 0;
  for (;;) {
    size_t took = 0;
    const resp::Reader::Event ev = reader_.Feed(p + off, n - off, &took);
    off += took;
    *used = off;
    if (ev == resp::Reader::Event::kNeedMore) return SessionEvent::kNeedMore;
    if (ev == resp::Reader::Event::kProtocolError) [[unlikely]] return Malformed();
    const resp::Summary& s = reader_.summary();
    if (s.type == resp::Type::kPush) [[unlikely]] {  // RESP3 out-of-band: answers no request
      if (off == n) return SessionEvent::kNeedMore;
      continue;
    }
    if (setup_done_ != setup_.size()) [[unlikely]] {
      const SessionEvent ev = SetupReply(s);  // kNeedMore: more set-up replies to come
      if (ev != SessionEvent::kNeedMore || off == n) return ev;
      continue;
    }
    if (answered_ == sent_) [[unlikely]] return Unmatched(s);
    if (waits_ != 0 && waited_.front().first == answered_) [[unlikely]] {
      if (WaitStep(s, reply)) return SessionEvent::kReply;
      if (off == n) return SessionEvent::kNeedMore;
      continue;
    }
    reply->tag = answered_++;
    reply->wire_bytes = s.wire_bytes;
    reply->is_error = s.is_error;
    reply->positive = !s.is_null;
    if (s.is_error) [[unlikely]] {
      // Errors are grouped by their first word ("OOM", "MOVED", "ERR"), at most 32 bytes.
      reply->error = s.error;
      reply->error_kind = reply->error.substr(0, std::min<size_t>(s.error.find_first_of(" \r\n"), 32));
    }
    return SessionEvent::kReply;
  }
}

}  // namespace memstand
