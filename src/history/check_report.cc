#include "history/check_report.h"

#include <set>

#include <fmt/format.h>

namespace memstand::history {
namespace {

std::string SeenJson(Seen seen, uint64_t value) {
  switch (seen) {
    case Seen::kNone: return "";
    case Seen::kAbsent: return "nil";
    case Seen::kOurs: return ValueName(value);
    case Seen::kForeign: return "foreign";
  }
  return "";
}

nlohmann::ordered_json OpJson(const History& h, const Record& r) {
  nlohmann::ordered_json j;
  j["op_id"] = r.op_id;
  j["client"] = r.client;
  j["seq"] = r.seq;
  j["f"] = OpName(r.f);
  j["key"] = h.KeyName(r.key);
  j["outcome"] = OutcomeName(r.outcome);
  j["invoke_ns"] = r.invoke_ns;
  j["complete_ns"] = r.complete_ns;
  if (r.intended_ns != kNoIntendedTime) j["intended_ns"] = r.intended_ns;
  if (r.writes()) j["wrote"] = ValueName(r.written());
  if (r.seen != Seen::kNone) j[r.f == Op::kCas ? "expected" : "saw"] = SeenJson(r.seen, r.value);
  if (r.node != 0) j["node"] = h.String(r.node);
  if (r.error != 0) j["error"] = h.String(r.error);
  if (r.revision != 0) j["revision"] = r.revision;
  return j;
}

std::string ResultLine(const CheckResult& r) {
  return fmt::format("{:<18} {:<15} {}\n", r.check, VerdictName(r.verdict), r.summary);
}

}  // namespace

Verdict OverallVerdict(const std::vector<CheckResult>& results) {
  auto any = [&](Verdict v) {
    for (const CheckResult& r : results) {
      if (r.verdict == v) return true;
    }
    return false;
  };
  for (Verdict v : {Verdict::kViolated, Verdict::kCouldNotRun, Verdict::kGaveUp}) {
    if (any(v)) return v;
  }
  return Verdict::kPass;
}

std::string EvidenceLine(const History& h, const Record& r) {
  std::string line = DescribeOp(r) + " on " + h.KeyName(r.key);
  if (r.node != 0) line += " at " + h.String(r.node);
  if (r.error != 0) line += ", error " + h.String(r.error);
  if (r.revision != 0) line += fmt::format(", revision {}", r.revision);
  return line;
}

std::string CheckReportText(const History& h, const std::vector<CheckResult>& results) {
  std::string out;
  for (const CheckResult& r : results) out += ResultLine(r);
  for (const CheckResult& r : results) {
    if (r.findings.empty()) continue;
    out += fmt::format("\n{}: {} finding(s), {} violation(s){}\n", r.check, r.findings_total, r.violations,
                       r.findings.size() < r.findings_total ? fmt::format(" ({} shown)", r.findings.size()) : "");
    for (const Finding& f : r.findings) {
      out += fmt::format("  {}: {}\n", f.kind, f.text);
      for (const Record& op : f.ops) out += "    " + EvidenceLine(h, op) + "\n";
    }
  }
  out += fmt::format("\nverdict: {}\n", VerdictName(OverallVerdict(results)));
  return out;
}

nlohmann::ordered_json CheckReportJson(const History& h, const std::vector<CheckResult>& results) {
  std::set<uint32_t> clients;
  std::set<uint64_t> keys;
  for (const Record& r : h.records) {
    clients.insert(r.client);
    keys.insert(r.key);
  }
  nlohmann::ordered_json j;
  j["schema"] = "memstand.check";
  j["version"] = 1;
  j["verdict"] = VerdictName(OverallVerdict(results));
  auto& hist = j["history"];
  hist["target_kind"] = TargetKindName(h.header.target_kind);
  hist["target"] = h.header.target;
  hist["writer"] = h.header.writer;
  hist["key_prefix"] = h.header.key_prefix;
  hist["operations"] = h.records.size();
  hist["clients"] = clients.size();
  hist["keys"] = keys.size();
  hist["nemesis_events"] = h.events.size();
  j["checks"] = nlohmann::ordered_json::array();
  for (const CheckResult& r : results) {
    nlohmann::ordered_json c;
    c["check"] = r.check;
    c["verdict"] = VerdictName(r.verdict);
    c["summary"] = r.summary;
    c["findings_total"] = r.findings_total;
    c["violations"] = r.violations;
    c["findings"] = nlohmann::ordered_json::array();
    for (const Finding& f : r.findings) {
      nlohmann::ordered_json fj;
      fj["kind"] = f.kind;
      fj["violation"] = f.violation;
      fj["key"] = h.KeyName(f.key);
      fj["text"] = f.text;
      fj["ops"] = nlohmann::ordered_json::array();
      for (const Record& op : f.ops) fj["ops"].push_back(OpJson(h, op));
      c["findings"].push_back(std::move(fj));
    }
    j["checks"].push_back(std::move(c));
  }
  return j;
}

}  // namespace memstand::history
