#include "scenario/kit/check_findings.h"

#include <fmt/format.h>

namespace memstand {
namespace {

// Examples kept per anomaly: the first violations, each with its operations.
constexpr size_t kExamples = 3;

}  // namespace

const history::CheckResult* FindCheck(const std::vector<history::CheckResult>& checks, const std::string& check) {
  for (const history::CheckResult& c : checks) {
    if (c.check == check) return &c;
  }
  return nullptr;
}

uint64_t CheckCount(const std::vector<history::CheckResult>& checks, const std::string& check,
                    const std::string& kind) {
  const history::CheckResult* c = FindCheck(checks, check);
  return c == nullptr ? 0 : c->Count(kind);
}

std::string CheckVerdict(const std::vector<history::CheckResult>& checks, const std::string& check) {
  const history::CheckResult* c = FindCheck(checks, check);
  return c == nullptr ? "-" : history::VerdictName(c->verdict);
}

nlohmann::json ChecksJson(const std::vector<history::CheckResult>& checks) {
  nlohmann::json out = nlohmann::json::array();
  for (const history::CheckResult& r : checks) {
    out.push_back({{"check", r.check}, {"verdict", history::VerdictName(r.verdict)}, {"summary", r.summary}});
  }
  return out;
}

void MarkChecks(const std::string& label, const std::vector<history::CheckResult>& checks,
                const std::string& promise, ScenarioReport* report) {
  for (const history::CheckResult& r : checks) {
    if (r.verdict == history::Verdict::kGaveUp || r.verdict == history::Verdict::kCouldNotRun) {
      report->Mark(ScenarioVerdict::kFailed,
                   fmt::format("{}: {} {}: {}", label, r.check, history::VerdictName(r.verdict), r.summary));
    }
    if (promise.empty() || r.verdict != history::Verdict::kViolated) continue;
    for (const auto& [kind, count] : r.by_kind) {
      Anomaly a{label, kind, count, {}};
      for (const history::Finding& f : r.findings) {
        if (f.kind == kind && f.violation && a.examples.size() < kExamples) a.examples.push_back(f.text);
      }
      if (a.examples.empty()) continue;  // told for information (recovered), not a violation
      report->Mark(ScenarioVerdict::kFinding, fmt::format("{}: {}: {} finding(s) ({})", label, kind, count, promise));
      report->anomalies.push_back(std::move(a));
    }
  }
}

}  // namespace memstand
