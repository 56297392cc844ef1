#include "load/history_ops.h"

#include <fmt/format.h>

#include "history/value_tag.h"

namespace memstand {
namespace {

// An argument that is exactly one placeholder of this kind.
bool Only(const TemplateArg& arg, TemplatePart::Kind kind) {
  return arg.size() == 1 && arg[0].kind == kind;
}

// RESP: GET __key__ reads the key; SET __key__ __data__ writes it (no option: NX, XX,
// GET or an expiry would make it something else than a register's write).
std::optional<history::Op> RespOp(const CommandTemplate& t) {
  using K = TemplatePart::Kind;
  if (t.name == "GET" && t.args.size() == 2 && Only(t.args[1], K::kKey)) return history::Op::kRead;
  if (t.name == "SET" && t.args.size() == 3 && Only(t.args[1], K::kKey) && Only(t.args[2], K::kData)) {
    return history::Op::kWrite;
  }
  return std::nullopt;
}

// etcd: get (range) __key__ reads the key; put __key__ __data__ writes it. A range over
// several keys (a range end) or a delete is not a register's operation.
std::optional<history::Op> EtcdOp(const std::string& text) {
  using K = TemplatePart::Kind;
  auto t = ParseCommandTemplate(text);
  if (!t.ok()) return std::nullopt;
  if ((t->name == "GET" || t->name == "RANGE") && t->args.size() == 2 && Only(t->args[1], K::kKey)) {
    return history::Op::kRead;
  }
  if (t->name == "PUT" && t->args.size() == 3 && Only(t->args[1], K::kKey) && Only(t->args[2], K::kData)) {
    return history::Op::kWrite;
  }
  return std::nullopt;
}

}  // namespace

history::TargetKind HistoryTargetKind(Protocol p) {
  switch (p) {
    case Protocol::kResp: return history::TargetKind::kResp;
    case Protocol::kMemcache: return history::TargetKind::kMemcache;
    case Protocol::kIproto: return history::TargetKind::kIproto;
    case Protocol::kEtcd: return history::TargetKind::kEtcd;
  }
  return history::TargetKind::kResp;
}

Result<std::vector<history::Op>> HistoryOps(const LoadOptions& opt) {
  if (opt.protocol != Protocol::kResp && opt.protocol != Protocol::kEtcd) {
    return Status::InvalidArgument(fmt::format("--history: {} histories are not written yet (redis and etcd targets are)",
                                               ProtocolServer(opt.protocol)));
  }
  if (opt.value.keyed) {
    return Status::InvalidArgument(
        "--history: a write's value carries its tag, and a dataset's values are its records: not both");
  }
  if (opt.value.min_size < history::kValueTagSize) {
    return Status::InvalidArgument(fmt::format(
        "--history: values of {} bytes cannot carry a write's tag ({} bytes): --data-size {} at least",
        opt.value.min_size, history::kValueTagSize, history::kValueTagSize));
  }
  std::vector<history::Op> ops;
  const bool etcd = opt.protocol == Protocol::kEtcd;
  for (const CommandSpec& c : opt.commands) {
    std::optional<history::Op> op = etcd ? EtcdOp(c.text) : RespOp(c.tmpl);
    if (!op) {
      return Status::InvalidArgument(fmt::format(
          "--history records reads and writes of registers: '{}' is neither '{}' nor '{}'",
          c.text.empty() ? c.label : c.text, etcd ? "get __key__" : "GET __key__",
          etcd ? "put __key__ __data__" : "SET __key__ __data__"));
    }
    ops.push_back(*op);
  }
  return ops;
}

}  // namespace memstand
