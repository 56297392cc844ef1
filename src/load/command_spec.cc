#include "load/command_spec.h"

#include "load/proto_request.h"
#include "workload/command_template.h"

namespace memstand {

Result<CommandSpec> MakeCommandSpec(Protocol p, const std::string& text,
                                    const std::string& key_prefix, KeyPatternSpec pattern,
                                    uint32_t weight, const CommandLimits& limits) {
  CommandSpec c;
  c.text = text;
  std::string proto_label;
  if (p != Protocol::kResp) {
    auto req = ProtoRequest::Parse(p, text, key_prefix);
    if (!req.ok()) return req.status().WithContext("--command");
    Status fits = req->CheckLimits(limits.key_max, limits.value_max, limits.value_flag);
    if (!fits.ok()) return fits;
    proto_label = req->label();
    c.counts_hits = req->counts_hits();
  }
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
