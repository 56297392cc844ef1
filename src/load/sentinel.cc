#include "load/sentinel.h"

#include <charconv>
#include <utility>

#include "client/redis_client.h"

namespace memstand {

namespace {

// One Sentinel's answer: the primary's host and port, or why not.
Result<std::pair<std::string, int>> AskSentinel(const std::string& host, int port, const std::string& name,
                                                int timeout_ms) {
  auto c = RedisClient::Connect(host, port, timeout_ms);
  if (!c.ok()) return c.status();
  auto r = (*c)->Command({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", name});
  if (!r.ok()) return r.status();
  if (r->is_error()) return Status::Server(r->str);
  if (r->is_null || r->type == resp::Type::kNull) {
    return Status::NotFound("knows no master named '" + name + "'");
  }
  int p = 0;
  const std::string* port_text = r->elements.size() == 2 ? &r->elements[1].str : nullptr;
  if (port_text == nullptr ||
      std::from_chars(port_text->data(), port_text->data() + port_text->size(), p).ptr !=
          port_text->data() + port_text->size() ||
      r->elements[0].str.empty()) {
    return Status::Protocol("answered neither [host, port] nor null");
  }
  return std::make_pair(r->elements[0].str, p);
}

// ROLE on the node: OK when it says "master"; the commands sent to it go to *sent.
Status CheckRole(const RedisTarget& node, const std::shared_ptr<const TlsContext>& tls, int timeout_ms,
                 std::map<std::string, int64_t>* sent) {
  RedisClientOptions o;
  o.host = node.host;
  o.port = node.port;
  o.user = node.user;
  o.password = node.password;
  o.tls = tls;
  o.timeout_ms = timeout_ms;
  auto c = RedisClient::Connect(o);
  if (!c.ok()) return c.status();
  auto r = (*c)->Command({"ROLE"});
  if (!r.ok()) return r.status();
  if (r->is_error()) return Status::Server("ROLE: " + r->str);
  const std::string role = r->elements.empty() ? "" : r->elements[0].str;
  if (role != "master") return Status::Failed("it says ROLE " + (role.empty() ? "nothing" : role) + ", not master");
  *sent = (*c)->sent_by_command();
  return Status::OK();
}

}  // namespace

Result<PrimaryFound> FindPrimary(const RedisTarget& t, const std::shared_ptr<const TlsContext>& tls,
                                 int timeout_ms) {
  std::string said;
  for (const auto& [host, port] : t.sentinels) {
    said += "; " + host + ":" + std::to_string(port);
    auto addr = AskSentinel(host, port, t.master_name, timeout_ms);
    if (!addr.ok()) {
      said += ": " + addr.status().message();
      continue;
    }
    PrimaryFound found;
    found.primary = t;
    found.primary.sentinels.clear();
    found.primary.master_name.clear();
    found.primary.host = addr->first;
    found.primary.port = addr->second;
    const std::string named = found.primary.Address();
    for (const RedisTarget::MappedAddress& m : t.address_map) {
      if (m.from != named) continue;
      found.primary.host = m.host;
      found.primary.port = m.port;
    }
    Status role = CheckRole(found.primary, tls, timeout_ms, &found.sent);
    if (role.ok()) return found;
    said += " named " + named +
            (named == found.primary.Address() ? "" : " (dialled as " + found.primary.Address() + ")") +
            ", not used: " + role.message();
  }
  return Status::Failed("no Sentinel named a primary for master name '" + t.master_name + "' (" +
                        said.substr(2) + ")");
}

}  // namespace memstand
