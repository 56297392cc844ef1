#include "load/command_spec.h"

#include "load/etcd_request.h"
#include "load/iproto_request.h"
#include "load/memcache_request.h"
#include "workload/command_template.h"

namespace memstand {

namespace {

// A memcache, etcd or Tarantool --command: parsed, checked against the protocol's limits,
// its label and whether it counts hits.
template <class R>
Status DescribeRequest(const std::string& text, const std::string& key_prefix, const CommandLimits& limits,
                       std::string* label, bool* counts_hits) {
  auto req = R::Parse(text, key_prefix);
  if (!req.ok()) return req.status().WithContext("--command");
  Status fits = req->CheckLimits(limits.key_max, limits.value_max, limits.value_flag);
  if (!fits.ok()) return fits;
  *label = req->label();
  *counts_hits = req->counts_hits();
  return Status::OK();
}

}  // namespace

Result<CommandSpec> MakeCommandSpec(Protocol p, const std::string& text,
                                    const std::string& key_prefix, KeyPatternSpec pattern,
                                    uint32_t weight, const CommandLimits& limits) {
  CommandSpec c;
  c.text = text;
  std::string proto_label;
  Status s;
  switch (p) {
    case Protocol::kResp: break;
    case Protocol::kMemcache:
      s = DescribeRequest<MemcacheRequest>(text, key_prefix, limits, &proto_label, &c.counts_hits);
      break;
    case Protocol::kEtcd:
      s = DescribeRequest<EtcdRequest>(text, key_prefix, limits, &proto_label, &c.counts_hits);
      break;
    case Protocol::kIproto:
      s = DescribeRequest<IprotoRequest>(text, key_prefix, limits, &proto_label, &c.counts_hits);
      break;
  }
  if (!s.ok()) return s;
  auto t = ParseCommandTemplate(proto_label.empty() ? text : proto_label);
  if (!t.ok()) return t.status().WithContext("--command");
  c.tmpl = *t;
  if (p == Protocol::kResp) {
    c.counts_hits = c.tmpl.name == "GET" || c.tmpl.name == "HGET" || c.tmpl.name == "GETEX" ||
                    c.tmpl.name == "GETDEL";
  }
  c.weight = weight;
  c.key_pattern = pattern;
  c.label = c.tmpl.name;
  return c;
}

}  // namespace memstand
