#include "load/resp_session.h"

#include <cctype>
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
                        LowerWord(c.tmpl.name)});
  }
  return requests;
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
}

}  // namespace memstand
