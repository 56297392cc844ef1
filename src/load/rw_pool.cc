#include "load/rw_pool.h"

#include <utility>
#include <vector>

#include "load/proto_control.h"

namespace memstand {

namespace {

// The member t names by host and port, alone.
RedisTarget MemberTarget(const RedisTarget& t, const std::pair<std::string, int>& member) {
  RedisTarget m = t;
  m.rw_members.clear();
  m.host = member.first;
  m.port = member.second;
  return m;
}

// Whether the member says box.info.ro is false; the requests sent go to *sent.
Status CheckWritable(const RedisTarget& member, int timeout_ms, std::map<std::string, int64_t>* sent) {
  auto c = ProtoControl::Connect(Protocol::kIproto, member, timeout_ms);
  if (!c.ok()) return c.status();
  auto ro = (*c)->Eval("return box.info.ro", iproto::Value::Array({}));
  if (!ro.ok()) return ro.status();
  if (ro->type() != iproto::Value::Type::kArray || ro->items().empty() ||
      ro->items()[0].type() != iproto::Value::Type::kBool) {
    return Status::Protocol("box.info.ro is not a boolean: " + iproto::ToString(*ro));
  }
  if (ro->items()[0].boolean()) return Status::Failed("read-only");
  *sent = (*c)->sent();
  return Status::OK();
}

}  // namespace

Result<PrimaryFound> FindWritable(const RedisTarget& t, const std::string& current, int timeout_ms) {
  std::vector<RedisTarget> order;  // the current member last
  for (const bool last : {false, true}) {
    for (const auto& member : t.rw_members) {
      RedisTarget m = MemberTarget(t, member);
      if ((m.Address() == current) == last) order.push_back(std::move(m));
    }
  }
  std::string said;
  for (const RedisTarget& m : order) {
    PrimaryFound found;
    Status s = CheckWritable(m, timeout_ms, &found.sent);
    if (s.ok()) {
      found.primary = m;
      return found;
    }
    said += "; " + m.Address() + ": " + s.message();
  }
  return Status::Failed("no member of " + t.Display() + " is writable (box.info.ro false) (" + said.substr(2) + ")");
}

}  // namespace memstand
