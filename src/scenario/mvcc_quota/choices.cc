// mvcc-quota's rows of the choice map (docs/choice-map.md, report/choice_map.h), filled from
// its JSON: every complete run's figures as a range with its N, and the quota the runs
// had (the scenario's --quota, not etcd's own default); the intended profile's row when
// it ran.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report/choice_map.h"
#include "scenario/kit/ranges.h"
#include "scenario/mvcc_quota/json.h"
#include "scenario/mvcc_quota/mvcc_quota.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = mvcc_quota_json;

// The row's system before a result says which quota it ran with.
constexpr char kEtcdSystem[] = "etcd at the quota of the scenario's --quota (etcd's own default: 2 GiB)";

// The complete runs: runs_detail[] where ok; a result without runs_detail has only the
// top level's figures, which are one run's.
std::vector<json> CompleteRuns(const json& doc) {
  std::vector<json> runs;
  const json detail = ChoiceAt(doc, {key::kRunsDetail});
  if (detail.is_array()) {
    for (const json& r : detail) {
      if (r.is_object() && r.value(key::kRunOk, false)) runs.push_back(r);
    }
  } else if (doc.contains(key::kEtcd) || doc.contains(key::kRedis)) {
    runs.push_back({{key::kEtcd, ChoiceAt(doc, {key::kEtcd})}, {key::kRedis, ChoiceAt(doc, {key::kRedis})},
                    {key::kRatio, ChoiceAt(doc, {key::kRatio})}});
  }
  return runs;
}

// The numbers at `path` in each run that has one.
std::vector<double> RunValues(const std::vector<json>& runs, std::initializer_list<const char*> path) {
  std::vector<double> out;
  for (const json& r : runs) {
    const json v = ChoiceAt(r, path);
    if (v.is_number()) out.push_back(v.get<double>());
  }
  return out;
}

// Shares as percentages.
std::vector<double> Percent(std::vector<double> shares) {
  for (double& v : shares) v *= 100;
  return shares;
}

// "64 MiB" for a whole number of MiB, else the bytes.
std::string QuotaText(const json& v) {
  if (!v.is_number_integer()) return ChoiceValue(v) + " B";
  const int64_t b = v.get<int64_t>();
  if (b > 0 && b % (int64_t{1} << 30) == 0) return fmt::format("{} GiB", b >> 30);
  if (b > 0 && b % (int64_t{1} << 20) == 0) return fmt::format("{} MiB", b >> 20);
  return fmt::format("{} B", b);
}

bool FillMvccEtcd(const json& doc, ChoiceRow* row, std::string* figure) {
  std::vector<json> runs;
  for (json& r : CompleteRuns(doc)) {
    if (ChoiceAt(r, {key::kEtcd}).is_object()) runs.push_back(std::move(r));
  }
  const json quota = ChoiceAt(doc, {key::kProfile, key::kQuotaBytes});
  if (runs.empty() || !quota.is_number_integer()) return false;
  const std::string q = QuotaText(quota);
  row->system = fmt::format("etcd with a quota of {} (the scenario's --quota; etcd's own default is 2 GiB)", q);
  row->faster = "every write a new MVCC revision: history, watches and linearizable reads";
  const std::vector<double> failed = RunValues(runs, {key::kEtcd, key::kFirstFailedWrite});
  const std::string keys = ChoiceValue(ChoiceAt(doc, {key::kProfile, key::kKeys}));
  if (failed.empty()) {
    row->pay = fmt::format("with {} hot keys overwritten, no write failed in {} run(s): the {} quota was not reached",
                           keys, runs.size(), q);
    *figure = fmt::format("etcd at {}: no failed write in {} run(s)", q, runs.size());
    return true;
  }
  std::string error;
  for (const json& r : runs) {
    const json e = ChoiceAt(r, {key::kEtcd, key::kError});
    if (error.empty() && e.is_string()) error = e.get<std::string>();
  }
  row->pay = fmt::format(
      "with {} hot keys overwritten, writes fail from write {} ('{}') in {} of {} runs, at a database of {} B "
      "against the {} quota; back to {} B only after compact, defragment and disarm",
      keys, RangeTextOf(failed, "{:.0f}"), error.empty() ? "?" : error, failed.size(), runs.size(),
      RangeTextOf(RunValues(runs, {key::kEtcd, key::kDbSizeAtFailure}), "{:.0f}"), q,
      RangeTextOf(RunValues(runs, {key::kEtcd, key::kDbSizeAfterRecovery}), "{:.0f}"));
  *figure = fmt::format("etcd at {}: first failed write {}", q, RangeTextOf(failed, "{:.0f}"));
  return true;
}

bool FillMvccRedis(const json& doc, ChoiceRow* row, std::string* figure) {
  std::vector<json> runs;
  for (json& r : CompleteRuns(doc)) {
    if (ChoiceAt(r, {key::kRedis, key::kSuccessful}).is_number()) runs.push_back(std::move(r));
  }
  if (runs.empty()) return false;
  const std::string delta = RangeTextOf(RunValues(runs, {key::kRedis, key::kUsedMemoryDelta}), "{:.0f}", "B");
  row->faster = "overwrites in place: no history to compact";
  row->pay = fmt::format(
      "no history or watch of past revisions; the same {} writes: {} errors, used memory + {} (etcd's database "
      "grew {} as much)",
      RangeTextOf(RunValues(runs, {key::kRedis, key::kAttempted}), "{:.0f}"),
      RangeTextOf(RunValues(runs, {key::kRedis, key::kErrors}), "{:.0f}"), delta,
      RangeTextOf(RunValues(runs, {key::kRatio}), "{:.1f}x"));
  *figure = "redis used_memory_delta " + delta;
  return true;
}

// The intended profile (the positive control): etcd as it is meant to be used, from
// every complete run that ran it.
bool FillMvccIntended(const json& doc, ChoiceRow* row, std::string* figure) {
  std::vector<json> runs;
  for (json& r : CompleteRuns(doc)) {
    if (ChoiceAt(r, {key::kIntended, key::kDbSizePeak}).is_number()) runs.push_back(std::move(r));
  }
  const json quota = ChoiceAt(doc, {key::kProfile, key::kQuotaBytes});
  if (runs.empty() || !quota.is_number_integer()) return false;
  const json settings = ChoiceAt(doc, {key::kProfile, key::kIntended});
  const std::string retention = ChoiceValue(ChoiceAt(settings, {key::kCompactionRetention}));
  row->system = fmt::format("etcd as designed: small metadata written rarely, auto-compaction every {}", retention);
  row->faster = "linearizable reads and writes with watches, through Raft; compaction keeps the history short";
  size_t compacted = 0;
  for (const json& r : runs) compacted += ChoiceAt(r, {key::kIntended, key::kCompacted}) == true ? 1 : 0;
  const std::string peak = RangeTextOf(RunValues(runs, {key::kIntended, key::kDbSizePeak}), "{:.0f}", "B");
  row->pay = fmt::format(
      "every write goes through a quorum and an fsync; {} writes of {} B over {} keys at {}/s: {} failed, a "
      "database of at most {} ({} of the {} quota), compaction seen in {} of {} runs",
      ChoiceValue(ChoiceAt(settings, {"writes"})), ChoiceValue(ChoiceAt(settings, {key::kValueSize})),
      ChoiceValue(ChoiceAt(settings, {key::kKeys})), [&] {
        const json rate = ChoiceAt(settings, {"rate_per_s"});
        return rate.is_number() ? fmt::format("{:g}", rate.get<double>()) : std::string("?");
      }(),
      RangeTextOf(RunValues(runs, {key::kIntended, "failed"}), "{:.0f}"), peak,
      RangeTextOf(Percent(RunValues(runs, {key::kIntended, key::kPeakShareOfQuota})), "{:.2f}", "%"), QuotaText(quota),
      compacted,
      runs.size());
  *figure = "intended profile: db size peak " + peak;
  return true;
}

}  // namespace

std::vector<MeasuredChoiceRow> MvccQuotaChoiceRows() {
  std::vector<MeasuredChoiceRow> rows;
  const char* mq = "a hot set of keys overwritten all the time";
  rows.push_back({"mvcc-quota", mq, kEtcdSystem, "MVCC history against the quota", FillMvccEtcd});
  rows.push_back({"mvcc-quota", mq, "Redis", "overwrites in place", FillMvccRedis});
  rows.push_back({"mvcc-quota", "configuration, leader election, service discovery",
                  "etcd as designed: small metadata written rarely, auto-compaction on",
                  "linearizable reads and writes with watches, through Raft (mvcc-quota --profile intended)",
                  FillMvccIntended});
  return rows;
}

}  // namespace memstand
