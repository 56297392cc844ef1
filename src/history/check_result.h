// What a check of a history says: its verdict and its evidence, the exact operations.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "history/record.h"

namespace memstand::history {

enum class Verdict {
  kPass,           // the property held over the whole history
  kViolated,       // the system broke it: the findings show where
  kGaveUp,         // a bound (steps, memory, time) ran out before a verdict
  kCouldNotRun,    // the check lacked what it needs (the summary says what)
  kNotApplicable,  // the property does not exist for this history (revisions outside etcd)
};
const char* VerdictName(Verdict v);  // "pass", "violated", "gave up", "could not run", "not applicable"

/// One thing a check found, with the operations that show it (time order).
struct Finding {
  std::string kind;        // "lost", "unexpected", "recovered", "not linearizable", "stale read", ...
  bool violation = true;   // false: told for information (a recovered write, a key given up on)
  uint64_t key = 0;
  std::string text;        // one sentence: what is wrong, with op ids, values and times
  std::vector<Record> ops;
};

struct CheckResult {
  std::string check;       // "lost-writes", "linearizable", "monotonic-reads", "read-your-writes", "revisions"
  Verdict verdict = Verdict::kPass;
  std::string summary;     // one line: what was checked and found, or why there is no verdict
  std::vector<Finding> findings;  // the first kMaxFindings
  uint64_t findings_total = 0;    // every finding, kept or not
  uint64_t violations = 0;        // the findings that are violations
  std::map<std::string, uint64_t> by_kind;  // every finding, kept or not, by its kind

  /// by_kind's count of `kind` (0 when none).
  uint64_t Count(const std::string& kind) const {
    const auto it = by_kind.find(kind);
    return it == by_kind.end() ? 0 : it->second;
  }

  /// Keeps `f` if fewer than kMaxFindings of its sort (violations, or the others) are
  /// kept; counts it either way.
  void Add(Finding f);

 private:
  size_t kept_violations_ = 0, kept_others_ = 0;
};

/// Findings kept per check: the evidence of the first ones, the count of all.
inline constexpr size_t kMaxFindings = 100;

/// Operation time as the evidence prints it: seconds since the run's start, to the ns
/// ("1.000000250s"); INT64_MAX is "never".
std::string TimeName(int64_t ns);
/// An operation in a finding's sentence: "op 17 (client 3, write 3:7, ok, 1.000000200s
/// to 1.000000300s)"; a read says what it saw ("read 3:7", "read nil", "read foreign"),
/// a cas what it expected and put ("cas 3:7->4:2"), an unknown one "unknown since T".
std::string DescribeOp(const Record& r);

}  // namespace memstand::history
