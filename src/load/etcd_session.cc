#include "load/etcd_session.h"

#include <utility>

#include "load/protocol.h"
#include "proto/etcd/etcd.h"

namespace memstand {

EtcdSession::EtcdSession(SessionConfig config)
    : config_(std::move(config)), mask_(config_.slots - 1), requests_(config_.slots, nullptr) {}

SessionEvent EtcdSession::Feed(const char* p, size_t n, size_t* used, Buffer*, ReplyView* reply) {
  const http::ResponseReader::Event ev = reader_.Feed(p, n, used);
  if (ev == http::ResponseReader::Event::kNeedMore) return SessionEvent::kNeedMore;
  if (ev == http::ResponseReader::Event::kProtocolError) {
    failure_ = Status::Protocol("malformed reply from " + config_.peer + " (" +
                                ProtocolServer(Protocol::kEtcd) + " expected): " + reader_.error());
    return SessionEvent::kProtocolError;
  }
  if (answered_ == sent_) {
    failure_ = Status::Protocol("a reply arrived with no request in flight");
    return SessionEvent::kProtocolError;
  }
  const http::Response& resp = reader_.response();
  const EtcdRequest::Op op = requests_[answered_ & mask_]->op();
  const bool want_value = config_.value_head > 0 && op == EtcdRequest::Op::kRange;
  auto sum = etcd::DecodeReply(resp.status, resp.body, want_value);
  if (!sum.ok()) {
    failure_ = sum.status().WithContext("reply from " + config_.peer);
    return SessionEvent::kProtocolError;
  }
  reply->tag = answered_++;
  reply->wire_bytes = resp.wire_bytes;
  reply->closes = !resp.keep_alive;
  reply->is_error = !sum->ok;
  reply->positive = false;
  reply->applied_write = false;
  reply->revision = sum->revision;
  if (want_value) {
    value_.clear();
    if (!sum->kv_list.empty()) value_ = sum->kv_list[0].value.substr(0, config_.value_head);
  }
  if (!sum->ok) {
    error_ = sum->error;
    error_kind_ = sum->code != 0 ? sum->error + " (code " + std::to_string(sum->code) + ")" : sum->error;
    reply->error = error_;
    reply->error_kind = error_kind_;
    reply->indefinite = etcd::ErrorIndefinite(sum->error);
    return SessionEvent::kReply;
  }
  switch (op) {
    case EtcdRequest::Op::kPut:
      reply->positive = true;
      reply->applied_write = true;
      break;
    case EtcdRequest::Op::kRange: reply->positive = sum->count > 0; break;
    case EtcdRequest::Op::kDelete:  // a hit, and a new revision, when it deleted something
      reply->positive = sum->deleted > 0;
      reply->applied_write = sum->deleted > 0;
      break;
  }
  return SessionEvent::kReply;
}

void EtcdSession::Reset() {
  reader_.Reset();
  sent_ = answered_ = 0;
  failure_ = Status::OK();
}

}  // namespace memstand
