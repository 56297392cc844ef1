#include "history/jepsen_export.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace memstand::history {
namespace {

constexpr size_t kSinkBytes = size_t{1} << 20;

struct JepsenEvent {
  int64_t time;
  bool completion;
  bool nemesis;    // an event's (index into h.events), else an operation's (into h.records)
  uint32_t index;
};

// A value as both syntaxes write it ("nil" is turned into "null" for JSON).
std::string ValueText(Seen seen, uint64_t value, bool json) {
  switch (seen) {
    case Seen::kOurs: return std::to_string(value);
    case Seen::kForeign: return "\"foreign\"";
    case Seen::kAbsent:
    case Seen::kNone: break;
  }
  return json ? "null" : "nil";
}

std::string EdnString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string JsonString(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

class JepsenLines {
 public:
  JepsenLines(const History& h, JepsenSyntax syntax, JepsenModel model)
      : h_(h), json_(syntax == JepsenSyntax::kJson), rw_(model == JepsenModel::kRwRegister) {}

  std::string Line(uint64_t index, const JepsenEvent& e) const {
    if (e.nemesis) return NemesisLine(index, e);
    const Record& r = h_.records[e.index];
    std::vector<std::pair<std::string, std::string>> fields = {
        {"index", std::to_string(index)},
        {"time", std::to_string(e.time)},
        {"type", Keyword(e.completion ? Type(r.outcome) : "invoke")},
        {"process", std::to_string(r.client)},
        {"f", Keyword(rw_ ? "txn" : OpName(r.f))},
        {"value", Value(r, e.completion)},
    };
    if (e.completion && r.node != 0) fields.emplace_back("node", Str(h_.String(r.node)));
    if (e.completion && r.error != 0) fields.emplace_back("error", Str(h_.String(r.error)));
    return Map(fields);
  }

 private:
  // A nemesis action, as Jepsen's nemesis writes one: :info both ways, :process :nemesis,
  // :f the action, :value the target (nil: none); what it did (:detail) on its completion.
  std::string NemesisLine(uint64_t index, const JepsenEvent& e) const {
    const Event& ev = h_.events[e.index];
    std::vector<std::pair<std::string, std::string>> fields = {
        {"index", std::to_string(index)},
        {"time", std::to_string(e.time)},
        {"type", Keyword("info")},
        {"process", Keyword("nemesis")},
        {"f", Keyword(ev.action)},
        {"value", ev.target.empty() ? std::string(json_ ? "null" : "nil") : Str(ev.target)},
    };
    if (e.completion && !ev.detail.empty()) fields.emplace_back("detail", Str(ev.detail));
    return Map(fields);
  }

  std::string Map(const std::vector<std::pair<std::string, std::string>>& fields) const {
    std::string line = "{";
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) line += ", ";
      line += json_ ? "\"" + fields[i].first + "\": " : ":" + fields[i].first + " ";
      line += fields[i].second;
    }
    return line + "}\n";
  }

  static const char* Type(Outcome o) {
    switch (o) {
      case Outcome::kOk: return "ok";
      case Outcome::kFail: return "fail";
      case Outcome::kUnknown: return "info";
    }
    return "info";
  }
  std::string Keyword(std::string_view k) const { return json_ ? "\"" + std::string(k) + "\"" : ":" + std::string(k); }
  std::string Str(std::string_view s) const { return json_ ? JsonString(s) : EdnString(s); }
  std::string Vec(const std::vector<std::string>& items) const {
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) out += (i > 0 ? (json_ ? ", " : " ") : "") + items[i];
    return out + "]";
  }

  // What the operation read, wrote or compared: on its invoke a read's value is nil,
  // on its completion (ok) what it saw.
  std::string Value(const Record& r, bool completion) const {
    const std::string key = std::to_string(r.key);
    std::string v;
    switch (r.f) {
      case Op::kRead:
        v = completion && r.outcome == Outcome::kOk ? ValueText(r.seen, r.value, json_) : ValueText(Seen::kNone, 0, json_);
        break;
      case Op::kWrite: v = std::to_string(r.written()); break;
      case Op::kCas: v = Vec({ValueText(r.seen, r.value, json_), std::to_string(r.written())}); break;
    }
    if (!rw_) return Vec({key, v});
    return Vec({Vec({Keyword(r.f == Op::kRead ? "r" : "w"), key, v})});
  }

  const History& h_;
  bool json_;
  bool rw_;
};

}  // namespace

Status ExportJepsen(const History& h, JepsenSyntax syntax, JepsenModel model,
                    const std::function<Status(std::string_view)>& sink) {
  if (model == JepsenModel::kRwRegister) {
    for (const Record& r : h.records) {
      if (r.f == Op::kCas) {
        return Status::InvalidArgument(fmt::format(
            "op {} is a cas, which Elle's rw-register cannot say: export as cas-register", r.op_id));
      }
    }
  }
  std::vector<JepsenEvent> events;
  events.reserve((h.records.size() + h.events.size()) * 2);
  for (uint32_t i = 0; i < h.records.size(); ++i) {
    events.push_back({h.records[i].invoke_ns, false, false, i});
    events.push_back({h.records[i].complete_ns, true, false, i});
  }
  for (uint32_t i = 0; i < h.events.size(); ++i) {
    events.push_back({h.events[i].start_ns, false, true, i});
    events.push_back({h.events[i].end_ns, true, true, i});
  }
  // Time order; at equal times invokes first (they overlap), the operations' before the
  // nemesis's, then op order (an event's: file order).
  std::sort(events.begin(), events.end(), [&](const JepsenEvent& a, const JepsenEvent& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.completion != b.completion) return !a.completion;
    if (a.nemesis != b.nemesis) return !a.nemesis;
    if (a.nemesis) return a.index < b.index;
    return h.records[a.index].op_id < h.records[b.index].op_id;
  });
  const JepsenLines lines(h, syntax, model);
  std::string out;
  for (size_t i = 0; i < events.size(); ++i) {
    out += lines.Line(i, events[i]);
    if (out.size() >= kSinkBytes) {
      if (Status s = sink(out); !s.ok()) return s;
      out.clear();
    }
  }
  return out.empty() ? Status::OK() : sink(out);
}

}  // namespace memstand::history
