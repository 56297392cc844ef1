#include "history/check_result.h"

#include <cstdint>

#include <fmt/format.h>

namespace memstand::history {

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "pass";
    case Verdict::kViolated: return "violated";
    case Verdict::kGaveUp: return "gave up";
    case Verdict::kCouldNotRun: return "could not run";
    case Verdict::kNotApplicable: return "not applicable";
  }
  return "?";
}

void CheckResult::Add(Finding f) {
  ++findings_total;
  ++by_kind[f.kind];
  size_t& kept = f.violation ? kept_violations_ : kept_others_;
  if (f.violation) ++violations;
  if (kept >= kMaxFindings) return;
  ++kept;
  findings.push_back(std::move(f));
}

std::string TimeName(int64_t ns) {
  if (ns == INT64_MAX) return "never";
  return fmt::format("{}.{:09d}s", ns / 1000000000, ns % 1000000000);
}

namespace {

std::string SeenName(Seen seen, uint64_t value) {
  switch (seen) {
    case Seen::kNone: return "-";
    case Seen::kAbsent: return "nil";
    case Seen::kOurs: return ValueName(value);
    case Seen::kForeign: return "foreign";
  }
  return "?";
}

std::string WhatName(const Record& r) {
  switch (r.f) {
    case Op::kRead: return r.outcome == Outcome::kOk ? "read " + SeenName(r.seen, r.value) : "read";
    case Op::kWrite: return "write " + ValueName(r.written());
    case Op::kCas: return "cas " + SeenName(r.seen, r.value) + "->" + ValueName(r.written());
  }
  return "?";
}

}  // namespace

std::string DescribeOp(const Record& r) {
  if (r.outcome == Outcome::kUnknown) {
    return fmt::format("op {} (client {}, {}, unknown since {})", r.op_id, r.client, WhatName(r),
                       TimeName(r.invoke_ns));
  }
  return fmt::format("op {} (client {}, {}, {}, {} to {})", r.op_id, r.client, WhatName(r), OutcomeName(r.outcome),
                     TimeName(r.invoke_ns), TimeName(r.complete_ns));
}

}  // namespace memstand::history
