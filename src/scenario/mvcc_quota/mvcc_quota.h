// mvcc-quota (docs/scenarios/mvcc-quota.md): a hot, frequently overwritten
// key set written to etcd, whose every write is a new MVCC revision kept until
// compaction, until its backend quota is exceeded; then the documented recovery
// (compact, defragment, disarm) and a canary write. The same profile runs against Redis
// at the same time, for the size of the same data where overwrites replace in place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "util/status.h"

namespace memstand {

struct MeasuredChoiceRow;
struct ReportInput;
struct ReportSection;

/// The intended profile (the positive control, docs/scenarios/mvcc-quota.md): what etcd
/// is built for, a small set of critical metadata written rarely, with auto-compaction
/// on as a deployment runs it.
struct MvccIntendedOptions {
  uint32_t keys = 100;
  uint32_t writes = 1000;
  uint32_t value_size = 256;
  double rate = 100;  // writes per second, open loop
  /// etcd --auto-compaction-retention in periodic mode ("2s", "5m", "1h"): it keeps the
  /// revisions of that window and compacts the rest as often.
  std::string compaction_retention = "2s";
  uint32_t portion = 100;  // writes between two status reads; must divide writes
};

struct MvccQuotaOptions {
  /// Which profiles run: the misuse (the hot overwritten set, until the quota) and the
  /// intended one; both: side by side.
  bool misuse = true;
  bool intended = false;
  MvccIntendedOptions intended_profile;
  /// etcd --quota-backend-bytes: 64 MiB (docs/scenarios/mvcc-quota.md), small enough to be reached by
  /// 50,000 writes of 1 KiB in seconds.
  int64_t quota_bytes = int64_t{64} << 20;
  uint32_t keys = 5000;     // the hot set: write i goes to key i mod keys
  uint32_t writes = 50000;  // ≈ 10 overwrites per key
  uint32_t value_size = 1024;
  /// Writes between two status reads: the detection's resolution. Must divide `keys`
  /// (a portion then covers a contiguous run of keys).
  uint32_t portion = 1000;
  /// In flight on the one load connection per server; order is kept.
  int pipeline = 16;
};

Status ValidateMvccQuota(const MvccQuotaOptions& options);

/// Runs the procedure ctx.runs times, each with a fresh etcd (new data directory) and
/// a fresh Redis.
Result<ScenarioReport> RunMvccQuota(const MvccQuotaOptions& options, const ScenarioContext& ctx);

// Its row in scenario/registry.cc: its flags (flags.cc), its charts and JSON tables on
// the report page (charts.cc) and its rows of the choice map (choices.cc).
ScenarioPrepare SetupMvccQuota(CLI::App* app);
void MvccQuotaCharts(const ReportInput& in, ReportSection* section);
std::vector<MeasuredChoiceRow> MvccQuotaChoiceRows();

}  // namespace memstand
