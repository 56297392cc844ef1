#include "scenario/scenario.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/redact.h"

namespace memstand {

void ScenarioContext::Progress(const char* scenario, const std::string& line) const {
  if (progress != nullptr) fmt::print(progress, "{}: {}\n", scenario, RedactSecrets(line));
}

std::string StartFailure(const ScenarioContext& ctx, const char* scenario, const std::string& label,
                         const std::string& failed, const Status& status) {
  if (!ctx.interrupted()) return failed + status.message();
  ctx.Progress(scenario, label + ": the start was interrupted: " + status.message());
  return "interrupted";
}

std::string ApproxSeconds(double seconds) {
  return seconds >= 10 ? fmt::format("{:.0f}", seconds) : fmt::format("{:.2g}", seconds);
}

std::string Invariant::Describe() const {
  const char* op = at_least ? ">=" : "==";
  return fmt::format("{}: {} {} {} ({} {} {}) {}", name, lhs_value, op, rhs_value, lhs, op, rhs,
                     ok() ? "ok" : "BROKEN");
}

nlohmann::json Invariant::ToJson() const {
  return {{"name", name}, {"lhs", lhs}, {"lhs_value", lhs_value},
          {"rhs", rhs},   {"rhs_value", rhs_value}, {"relation", at_least ? ">=" : "=="},
          {"ok", ok()}};
}

Invariant MakeInvariant(std::string lhs, int64_t lhs_value, std::string rhs, int64_t rhs_value) {
  Invariant i;
  i.name = lhs + " == " + rhs;
  i.lhs = std::move(lhs);
  i.lhs_value = lhs_value;
  i.rhs = std::move(rhs);
  i.rhs_value = rhs_value;
  return i;
}

Invariant MakeAtLeastInvariant(std::string lhs, int64_t lhs_value, std::string rhs, int64_t rhs_value) {
  Invariant i = MakeInvariant(std::move(lhs), lhs_value, std::move(rhs), rhs_value);
  i.name = i.lhs + " >= " + i.rhs;
  i.at_least = true;
  return i;
}

std::string Interval::Describe() const { return fmt::format("({}; {}]", low, high); }

Interval PortionOf(int64_t index, int64_t portion, int64_t total) {
  Interval i;
  i.low = (index - 1) / portion * portion;
  i.high = std::min(i.low + portion, total);
  return i;
}

namespace {
int Rank(ScenarioVerdict v) {
  switch (v) {
    case ScenarioVerdict::kOk: return 0;
    case ScenarioVerdict::kPartial: return 1;
    case ScenarioVerdict::kFinding: return 2;
    case ScenarioVerdict::kInterrupted: return 3;
    case ScenarioVerdict::kFailed: return 4;
  }
  return 4;
}
}  // namespace

nlohmann::json Anomaly::ToJson() const {
  return {{"configuration", configuration}, {"kind", kind}, {"count", count}, {"examples", examples}};
}

void ScenarioReport::Mark(ScenarioVerdict v, std::string why) {
  if (Rank(v) > Rank(verdict)) verdict = v;
  if (!why.empty()) verdict_lines.push_back(std::move(why));
}

int ScenarioReport::ExitCode() const {
  switch (verdict) {
    case ScenarioVerdict::kOk: return kScenarioExitOk;
    case ScenarioVerdict::kPartial: return kScenarioExitPartial;
    case ScenarioVerdict::kInterrupted: return kScenarioExitInterrupted;
    case ScenarioVerdict::kFailed: return kScenarioExitFailed;
    case ScenarioVerdict::kFinding: return kScenarioExitFinding;
  }
  return kScenarioExitFailed;
}

const char* VerdictName(ScenarioVerdict v) {
  switch (v) {
    case ScenarioVerdict::kOk: return "ok";
    case ScenarioVerdict::kPartial: return "partial";
    case ScenarioVerdict::kFinding: return "finding";
    case ScenarioVerdict::kInterrupted: return "interrupted";
    case ScenarioVerdict::kFailed: return "failed";
  }
  return "failed";
}

}  // namespace memstand
