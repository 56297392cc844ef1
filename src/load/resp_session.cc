#include "load/resp_session.h"

#include <cctype>
#include <string>
#include <utility>

namespace memstand {

namespace {

std::string LowerWord(std::string_view s) {
  std::string lower(s);
  for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return lower;
}

}  // namespace

std::vector<RespRequest> RespSession::MakeRequests(const LoadOptions& opt) {
  std::vector<RespRequest> requests;
  for (const CommandSpec& c : opt.commands) {
    requests.push_back({RequestBuilder(c.tmpl, opt.key_prefix), c.tmpl.uses_key, c.tmpl.uses_data,
                        LowerWord(c.tmpl.name), "", 0});
    if (WaitFollows(opt, c)) {
      Buffer wait;
      resp::AppendCommand(&wait, std::vector<std::string_view>{"WAIT", std::to_string(opt.wait.replicas),
                                                               std::to_string(opt.wait.timeout_ms)});
      requests.back().wait = std::string(wait.View());
      requests.back().wait_replicas = opt.wait.replicas;
    }
  }
  return requests;
}

// --wait-replicas: the write's WAIT after it, one request with it (its tag, its bytes).
Sent RespSession::AppendWait(const Request& request, Sent sent, Buffer* out) {
  out->Append(request.wait);
  waited_.emplace_back(sent.tag, request.wait_replicas);
  ++waits_;
  return {sent.tag, sent.bytes + request.wait.size()};
}

// The write's reply is held; WAIT's ends the request: the write's error if it failed
// (fail, or what its error says), else WAIT's error (unknown: the write took effect, its
// replication is not known), else WAIT's count: ok when enough replicas acknowledged the
// write, unknown (kind "not replicated") when fewer did: the primary applied it, and a
// failover may or may not keep it. Every field of *reply is set (a reply after it in the
// same Feed loop sets only its own).
bool RespSession::WaitStep(const resp::Summary& s, ReplyView* reply) {
  if (!write_replied_) {
    write_replied_ = true;
    write_bytes_ = s.wire_bytes;
    write_failed_ = s.is_error;
    if (s.is_error) {
      write_error_ = s.error;
      error_kind_len_ = std::min<size_t>(write_error_.find_first_of(" \r\n"), 32);
    }
    return false;
  }
  const int wanted = waited_.front().second;
  waited_.pop_front();
  --waits_;
  write_replied_ = false;
  reply->tag = answered_++;
  reply->wire_bytes = write_bytes_ + s.wire_bytes;
  reply->is_error = write_failed_ || s.is_error || s.type != resp::Type::kInteger || s.integer < wanted;
  reply->positive = !reply->is_error;
  reply->indefinite = !write_failed_;
  reply->error = reply->error_kind = {};
  if (write_failed_) {
    reply->error = write_error_;
    reply->error_kind = std::string_view(write_error_).substr(0, error_kind_len_);
  } else if (s.is_error) {
    wait_error_ = "WAIT: " + s.error;
    reply->error = wait_error_;
    reply->error_kind = "WAIT";
  } else if (reply->is_error) {
    wait_error_ = s.type == resp::Type::kInteger
                      ? "WAIT answered " + std::to_string(s.integer) + ": fewer replicas than " +
                            std::to_string(wanted) + " acknowledged the write within its timeout"
                      : "WAIT answered with no count";
    reply->error = wait_error_;
    reply->error_kind = kNotReplicatedKind;
  }
  return true;
}

RespSession::RespSession(SessionConfig config) : config_(std::move(config)) {
  reader_.KeepHead(config_.value_head);
}

void RespSession::WriteSetup(Buffer* out, std::initializer_list<std::string_view> args) {
  resp::AppendCommand(out, std::vector<std::string_view>(args));
  setup_.push_back(LowerWord(*args.begin()));
  if (config_.setup_counts != nullptr) ++(*config_.setup_counts)[setup_.back()];
}

bool RespSession::Start(Buffer* out) {
  const RedisTarget& t = *config_.target;
  const std::string version = std::to_string(config_.resp);
  if (config_.resp == 3) {
    if (t.password.empty()) {
      WriteSetup(out, {"HELLO", version});
    } else {
      WriteSetup(out, {"HELLO", version, "AUTH", t.user.empty() ? "default" : t.user, t.password});
    }
  } else if (!t.password.empty()) {
    if (t.user.empty()) {
      WriteSetup(out, {"AUTH", t.password});
    } else {
      WriteSetup(out, {"AUTH", t.user, t.password});
    }
  }
  if (t.db != 0) WriteSetup(out, {"SELECT", std::to_string(t.db)});
  if (config_.read_only) WriteSetup(out, {"READONLY"});
  return setup_.empty();
}

bool RespSession::AppendRedirected(const Request& request, const Draw& draw, bool asking, Buffer* out,
                                   uint64_t* asking_tag, Sent* sent) {
  if (asking) {
    resp::AppendCommand(out, std::vector<std::string_view>{"ASKING"});
    *asking_tag = sent_++;
  }
  *sent = Append(request, draw, out);
  return true;
}

// A reply to the set-up: an error ends the connection; the last one readies it.
SessionEvent RespSession::SetupReply(const resp::Summary& s) {
  const std::string& name = setup_[setup_done_++];
  if (s.is_error) {
    failure_ = Status::Server(name + " failed: " + s.error + " (" + config_.peer + ")");
    return SessionEvent::kFailed;
  }
  return setup_done_ == setup_.size() ? SessionEvent::kReady : SessionEvent::kNeedMore;
}

SessionEvent RespSession::Unmatched(const resp::Summary& s) {
  const std::string said = s.is_error ? ": '" + s.error + "'" : "";
  failure_ = Status::Protocol("a reply arrived with no request in flight" + said);
  return SessionEvent::kProtocolError;
}

SessionEvent RespSession::Malformed() {
  failure_ = Status::Protocol("malformed reply from " + config_.peer + ": " + reader_.error());
  return SessionEvent::kProtocolError;
}

void RespSession::Reset() {
  reader_.Reset();
  sent_ = answered_ = 0;
  setup_.clear();
  setup_done_ = 0;
  failure_ = Status::OK();
  waited_.clear();
  waits_ = 0;
  write_replied_ = false;
}

}  // namespace memstand
