#include "load/iproto_session.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "load/proto_request.h"
#include "load/protocol.h"
#include "proto/iproto/greeting.h"
#include "proto/iproto/msgpack.h"

namespace memstand {

IprotoSession::IprotoSession(SessionConfig config)
    : config_(std::move(config)), bits_(std::countr_zero(config_.slots)) {}

bool IprotoSession::Start(Buffer*) {
  slot_sync_.assign(config_.slots, 0);
  slot_mode_.assign(config_.slots, iproto::CallErrors::kNone);
  free_.clear();
  for (size_t i = config_.slots; i > 0; --i) free_.push_back(static_cast<uint32_t>(i - 1));
  return false;
}

SessionEvent IprotoSession::FeedGreeting(const char* p, size_t n, size_t* used, Buffer* out) {
  const size_t take = std::min(n, iproto::kGreetingSize - greeting_.size());
  greeting_.append(p, take);
  *used = take;
  if (greeting_.size() < iproto::kGreetingSize) return SessionEvent::kNeedMore;
  auto g = iproto::ParseGreeting(greeting_);
  if (!g.ok()) {
    failure_ = g.status().WithContext(config_.peer);
    return SessionEvent::kFailed;
  }
  const RedisTarget& t = *config_.target;
  if (t.user.empty()) return SessionEvent::kReady;
  iproto::AppendAuth(out, 0, t.user, iproto::ChapSha1Scramble(t.password, g->salt));
  auth_sent_ = true;
  if (config_.setup_counts != nullptr) ++(*config_.setup_counts)["auth"];
  return SessionEvent::kNeedMore;
}

SessionEvent IprotoSession::AuthReply(const iproto::Summary& s) {
  auth_sent_ = false;
  if (s.is_error) {
    failure_ = Status::Server("AUTH as '" + config_.target->user + "' failed: " + s.error + " (" +
                              config_.peer + ")");
    return SessionEvent::kFailed;
  }
  return SessionEvent::kReady;
}

SessionEvent IprotoSession::FeedSlow(const char* p, size_t n, size_t* used, Buffer* out, ReplyView* reply) {
  size_t off = 0;
  if (greeting_.size() < iproto::kGreetingSize) {
    const SessionEvent ev = FeedGreeting(p, n, &off, out);
    *used = off;
    if (ev != SessionEvent::kNeedMore || off == n) return ev;
  }
  for (;;) {
    size_t took = 0;
    const iproto::Reader::Event ev = reader_.Feed(p + off, n - off, &took);
    off += took;
    *used = off;
    if (ev == iproto::Reader::Event::kNeedMore) return SessionEvent::kNeedMore;
    if (ev == iproto::Reader::Event::kProtocolError) return Malformed();
    const iproto::Summary& s = reader_.summary();
    if (!s.is_push) break;  // box.session.push: the response follows
    if (off == n) return SessionEvent::kNeedMore;
  }
  const iproto::Summary& s = reader_.summary();
  if (auth_sent_) return AuthReply(s);
  return Answered(s, reply);
}

SessionEvent IprotoSession::Malformed() {
  failure_ = Status::Protocol("malformed reply from " + config_.peer + " (" + ProtocolServer(Protocol::kIproto) +
                              " expected): " + reader_.error());
  return SessionEvent::kProtocolError;
}

SessionEvent IprotoSession::Unmatched(uint64_t sync) {
  failure_ = Status::Protocol("a reply with sync " + std::to_string(sync) + " that no request in flight has");
  return SessionEvent::kProtocolError;
}

void IprotoSession::ErrorReply(const iproto::Summary& s, ReplyView* reply) {
  error_kind_ = IprotoErrorName(s.error_code) + " (" + std::to_string(s.error_code) + ")";
  reply->error = s.error;
  reply->error_kind = error_kind_;
  reply->indefinite = IprotoErrorIndefinite(s.error_code);
}

std::string_view IprotoSession::last_value() const {
  const std::string_view data = reader_.summary().data;
  if (config_.value_field == 0 || data.empty()) return {};
  iproto::Cursor c(data.data(), data.data() + data.size());
  uint32_t n = 0;
  if (!c.ReadArray(&n) || n == 0 || !c.ReadArray(&n) || n <= config_.value_field) return {};
  for (uint32_t i = 0; i < config_.value_field; ++i) {
    if (!c.Skip()) return {};
  }
  std::string_view value;
  if (!c.ReadStr(&value)) return {};
  return value.substr(0, config_.value_head);
}

void IprotoSession::CallReply(const iproto::Summary& s, iproto::CallErrors mode, ReplyView* reply) {
  iproto::CallError e;
  if (!iproto::FindCallError(s.data, mode, &e)) return;
  iproto::FormatCallError(e, &error_kind_, &call_error_);
  reply->is_error = true;
  reply->positive = false;
  reply->indefinite = false;  // a CALL's error is unknown anyway (partial_on_error)
  reply->error = call_error_;
  reply->error_kind = error_kind_;
}

void IprotoSession::Reset() {
  reader_.Reset();
  greeting_.clear();
  auth_sent_ = false;
  sequence_ = 0;
  in_flight_ = 0;
  slot_sync_.clear();
  slot_mode_.clear();
  free_.clear();
  failure_ = Status::OK();
}

}  // namespace memstand
