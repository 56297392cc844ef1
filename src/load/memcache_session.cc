#include "load/memcache_session.h"

#include <utility>

#include "load/protocol.h"

namespace memstand {

MemcacheSession::MemcacheSession(SessionConfig config)
    : config_(std::move(config)), mask_(config_.slots - 1), requests_(config_.slots, nullptr) {
  reader_.KeepHead(config_.value_head);
}

SessionEvent MemcacheSession::Feed(const char* p, size_t n, size_t* used, Buffer*, ReplyView* reply) {
  const memcache::Reader::Event ev = reader_.Feed(p, n, used);
  if (ev == memcache::Reader::Event::kNeedMore) return SessionEvent::kNeedMore;
  if (ev == memcache::Reader::Event::kProtocolError) {
    failure_ = Status::Protocol("malformed reply from " + config_.peer + " (" +
                                ProtocolServer(Protocol::kMemcache) + " expected): " + reader_.error());
    return SessionEvent::kProtocolError;
  }
  if (answered_ == sent_) {
    failure_ = Status::Protocol("a reply arrived with no request in flight");
    return SessionEvent::kProtocolError;
  }
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

std::string_view MemcacheSession::last_value() const {
  const memcache::Summary& s = reader_.summary();
  return s.kind == memcache::Kind::kValues && s.values > 0 ? std::string_view(s.head) : std::string_view();
}

void MemcacheSession::Reset() {
  reader_.Reset();
  sent_ = answered_ = 0;
  failure_ = Status::OK();
}

}  // namespace memstand
