#include "load/history_ops.h"

#include <fmt/format.h>

#include "history/value_tag.h"

namespace memstand {
namespace {

// An argument that is exactly one placeholder of this kind.
bool Only(const TemplateArg& arg, TemplatePart::Kind kind) {
  return arg.size() == 1 && arg[0].kind == kind;
}

// A key argument: __key__, or text then __key__ (`{tag}__key__`: a cluster hash tag,
// `user:__key__`); the text before the key. nullopt for any other argument.
std::optional<std::string> KeyText(const TemplateArg& arg) {
  using K = TemplatePart::Kind;
  if (Only(arg, K::kKey)) return std::string();
  if (arg.size() == 2 && arg[0].kind == K::kLiteral && arg[1].kind == K::kKey) return arg[0].literal;
  return std::nullopt;
}

// A read of `read_name KEY` or a write of `write_name KEY __data__` (nothing more: an
// option such as SET's NX, XX, GET or an expiry makes it something else than a
// register's write); its key's text before __key__.
std::optional<std::pair<history::Op, std::string>> RegisterOp(const CommandTemplate& t,
                                                              std::initializer_list<const char*> reads,
                                                              const char* write) {
  std::optional<std::string> key = t.args.size() >= 2 ? KeyText(t.args[1]) : std::nullopt;
  if (!key) return std::nullopt;
  for (const char* name : reads) {
    if (t.name == name && t.args.size() == 2) return std::pair{history::Op::kRead, *key};
  }
  if (t.name == write && t.args.size() == 3 && Only(t.args[2], TemplatePart::Kind::kData)) {
    return std::pair{history::Op::kWrite, *key};
  }
  return std::nullopt;
}

// Tarantool: every command a read or write of a register (iproto::RegisterForm), all on
// one space (as the commands name it), keys alike, writes putting their value in one field.
Status PlanIproto(const LoadOptions& opt, HistoryPlan* plan) {
  std::optional<std::pair<std::string, bool>> keys;  // the space as named, keys as numbers
  std::optional<uint32_t> value_field;
  for (const CommandSpec& c : opt.commands) {
    auto r = IprotoRequest::Parse(c.text, opt.key_prefix);
    const std::optional<iproto::RegisterForm> form =
        r.ok() ? r->register_form() : std::optional<iproto::RegisterForm>();
    if (!form) {
      return Status::InvalidArgument(fmt::format(
          "--history records reads and writes of registers: '{}' is neither 'select SPACE 0 [__key__]' nor "
          "'replace SPACE [__key__, ..., __data__, ...]' (the key first, one __data__, the rest constants)",
          c.text));
    }
    const std::string space = r->space_name().empty() ? std::to_string(form->space) : r->space_name();
    if (keys && (keys->first != space || keys->second != form->key_number)) {
      return Status::InvalidArgument(fmt::format(
          "--history: every command must read and write the same registers: '{}' names space {} with {}, "
          "another space {} with {}",
          c.text, space, form->key_number ? "__keynum__" : "__key__", keys->first,
          keys->second ? "__keynum__" : "__key__"));
    }
    keys = std::pair{space, form->key_number};
    if (form->write) {
      if (value_field && *value_field != form->data_field) {
        return Status::InvalidArgument(fmt::format(
            "--history: every write must put its value in the same field: '{}' puts __data__ in field {}, "
            "another in field {}",
            c.text, form->data_field, *value_field));
      }
      if (form->data_field > UINT16_MAX) {
        return Status::InvalidArgument(fmt::format("--history: '{}' puts __data__ in field {}, above 65535",
                                                   c.text, form->data_field));
      }
      value_field = form->data_field;
    }
    plan->ops.push_back(form->write ? history::Op::kWrite : history::Op::kRead);
  }
  plan->key_numbers = keys && keys->second;
  plan->key_prefix = plan->key_numbers ? "" : opt.key_prefix;
  // A mix without writes reads what others wrote: the field after the key.
  plan->value_field = static_cast<uint16_t>(value_field.value_or(1));
  return Status::OK();
}

}  // namespace

uint32_t HistorySpace(const std::vector<IprotoRequest>& requests) {
  for (const IprotoRequest& r : requests) {
    if (r.register_form()) return r.register_form()->space;
  }
  return 0;
}

history::TargetKind HistoryTargetKind(Protocol p) {
  switch (p) {
    case Protocol::kResp: return history::TargetKind::kResp;
    case Protocol::kMemcache: return history::TargetKind::kMemcache;
    case Protocol::kIproto: return history::TargetKind::kIproto;
    case Protocol::kEtcd: return history::TargetKind::kEtcd;
  }
  return history::TargetKind::kResp;
}

Result<HistoryPlan> PlanHistory(const LoadOptions& opt) {
  if (opt.value.keyed) {
    return Status::InvalidArgument(
        "--history: a write's value carries its tag, and a dataset's values are its records: not both");
  }
  if (opt.value.min_size < history::kValueTagSize) {
    return Status::InvalidArgument(fmt::format(
        "--history: values of {} bytes cannot carry a write's tag ({} bytes): --data-size {} at least",
        opt.value.min_size, history::kValueTagSize, history::kValueTagSize));
  }
  HistoryPlan plan;
  if (opt.protocol == Protocol::kIproto) {
    Status s = PlanIproto(opt, &plan);
    if (!s.ok()) return s;
    return plan;
  }
  const bool etcd = opt.protocol == Protocol::kEtcd;
  const bool memcache = opt.protocol == Protocol::kMemcache;
  std::optional<std::string> key_text;
  for (const CommandSpec& c : opt.commands) {
    const std::string shown = c.text.empty() ? c.label : c.text;
    std::optional<std::pair<history::Op, std::string>> op;
    if (etcd || memcache) {
      auto t = ParseCommandTemplate(c.text);  // the spec keeps only the label as its template
      if (t.ok()) op = etcd ? RegisterOp(*t, {"GET", "RANGE"}, "PUT") : RegisterOp(*t, {"GET"}, "SET");
    } else {
      op = RegisterOp(c.tmpl, {"GET"}, "SET");
    }
    if (!op) {
      return Status::InvalidArgument(fmt::format(
          "--history records reads and writes of registers: '{}' is neither '{}' nor '{}'", shown,
          etcd || memcache ? "get __key__" : "GET __key__",
          etcd ? "put __key__ __data__" : memcache ? "set __key__ __data__" : "SET __key__ __data__"));
    }
    if (key_text && *key_text != op->second) {
      return Status::InvalidArgument(fmt::format(
          "--history: every command must name its keys alike (a register is one key): '{}' puts '{}' before "
          "__key__, another '{}'",
          shown, op->second, *key_text));
    }
    key_text = op->second;
    plan.ops.push_back(op->first);
  }
  plan.key_prefix = key_text.value_or("") + opt.key_prefix;
  return plan;
}

}  // namespace memstand
