// What mvcc-quota measured, between the procedure (mvcc_quota.cc) and its report: the
// results and invariants blocks, the JSON (json.h), the evidence tables and the verdict.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "scenario/mvcc_quota/mvcc_quota.h"
#include "scenario/scenario.h"

namespace memstand {

/// etcd in one run.
struct MvccEtcdRun {
  std::string failure;
  int64_t attempted = 0, successful = 0, failed = 0;
  int64_t db_size_before = 0, revision_before = 0, revision_end = 0;
  int64_t first_failed_write = 0;  // 1-based; 0: none failed
  std::string error;               // its text, verbatim
  Interval detected_in;
  std::vector<std::string> alarms;  // from the alarm list after the failure
  int64_t db_size_at_failure = 0;   // status after the portion of the first failure
  int64_t db_size_after_recovery = 0;
  std::vector<std::string> recovery;  // each step and what it answered
  bool canary_ok = false;
  std::string canary_error;
  std::vector<std::pair<int64_t, int64_t>> db_size_by_write;  // (writes attempted, db size)
};

/// Redis in one run.
struct MvccRedisRun {
  std::string failure;
  int64_t attempted = 0, successful = 0, errors = 0;
  int64_t used_memory_before = 0, used_memory_after = 0, keys = 0;
  int64_t delta() const { return used_memory_after - used_memory_before; }
};

/// etcd under the intended profile in one run (its own fresh etcd).
struct MvccIntendedRun {
  std::string failure;
  int64_t attempted = 0, successful = 0, failed = 0;
  std::string first_error;  // verbatim, of the first failed write
  int64_t db_size_before = 0, db_size_peak = 0, db_size_end = 0, db_size_in_use_end = 0;
  int64_t revision_before = 0, revision_end = 0;
  double load_s = 0;  // from the first write to the last status read
  /// A read of the first write's revision at the end: compacted away (auto-compaction
  /// ran) or not; `compaction_probe` is what etcd answered.
  bool compacted = false;
  std::string compaction_probe;
  std::vector<std::pair<int64_t, int64_t>> db_size_by_write;  // (writes attempted, db size)
};

/// One run: the profiles that ran, the invariants and the ratio.
struct MvccQuotaRun {
  bool misuse_ran = false, intended_ran = false;
  MvccEtcdRun etcd;
  MvccRedisRun redis;
  MvccIntendedRun intended;
  std::vector<Invariant> invariants;
  double ratio = 0;  // etcd db size at failure / Redis Δused_memory
  bool ok() const {
    return etcd.failure.empty() && redis.failure.empty() && intended.failure.empty() &&
           std::all_of(invariants.begin(), invariants.end(), [](const Invariant& i) { return i.ok(); });
  }
};

/// Fills the report's blocks, JSON, tables and verdict from the runs (the procedure and
/// limits are the caller's).
void FillMvccQuotaReport(const MvccQuotaOptions& o, const std::vector<MvccQuotaRun>& runs, bool interrupted,
                         ScenarioReport* report);

}  // namespace memstand
