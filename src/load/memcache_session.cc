#include "load/memcache_session.h"

#include <utility>

#include "load/protocol.h"

namespace memstand {

MemcacheSession::MemcacheSession(SessionConfig config)
    : config_(std::move(config)), mask_(config_.slots - 1), requests_(config_.slots, nullptr) {
  reader_.KeepHead(config_.value_head);
}

SessionEvent MemcacheSession::Malformed() {
  failure_ = Status::Protocol("malformed reply from " + config_.peer + " (" + ProtocolServer(Protocol::kMemcache) +
                              " expected): " + reader_.error());
  return SessionEvent::kProtocolError;
}

SessionEvent MemcacheSession::Unmatched() {
  failure_ = Status::Protocol("a reply arrived with no request in flight");
  return SessionEvent::kProtocolError;
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
