#include "scenario/mvcc_quota/report.h"

#include <fmt/format.h>

#include "report/repeat.h"
#include "scenario/kit/ranges.h"
#include "scenario/mvcc_quota/json.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = mvcc_quota_json;

json EtcdJson(const MvccEtcdRun& e) {
  json sizes = json::array();
  for (const auto& [w, size] : e.db_size_by_write) sizes.push_back({w, size});
  return {{key::kAttempted, e.attempted},
          {key::kSuccessful, e.successful},
          {"failed", e.failed},
          {key::kFirstFailedWrite, e.first_failed_write == 0 ? json(nullptr) : json(e.first_failed_write)},
          {key::kDetectedIn,
           e.first_failed_write == 0 ? json(nullptr) : json::array({e.detected_in.low, e.detected_in.high})},
          {key::kError, e.error.empty() ? json(nullptr) : json(e.error)},
          {"alarm", e.alarms.empty() ? json(nullptr) : json(e.alarms.front())},
          {"alarms", e.alarms},
          {"db_size_before", e.db_size_before},
          {key::kDbSizeAtFailure, e.db_size_at_failure},
          {key::kDbSizeAfterRecovery, e.db_size_after_recovery},
          {"recovery", e.recovery},
          {key::kCanaryOk, e.canary_ok},
          {"canary_error", e.canary_error},
          {"revision_before", e.revision_before},
          {"revision_end", e.revision_end},
          {"failed_but_applied", e.revision_end - e.revision_before - e.successful},
          {key::kDbSizeByWrite, sizes}};
}

json RedisJson(const MvccRedisRun& r) {
  return {{key::kAttempted, r.attempted},
          {key::kSuccessful, r.successful},
          {key::kErrors, r.errors},
          {"keys", r.keys},
          {"used_memory_before", r.used_memory_before},
          {"used_memory_after", r.used_memory_after},
          {key::kUsedMemoryDelta, r.delta()}};
}

json IntendedJson(const MvccIntendedRun& in, int64_t quota) {
  json sizes = json::array();
  for (const auto& [w, size] : in.db_size_by_write) sizes.push_back({w, size});
  return {{key::kAttempted, in.attempted},
          {key::kSuccessful, in.successful},
          {"failed", in.failed},
          {key::kError, in.first_error.empty() ? json(nullptr) : json(in.first_error)},
          {"db_size_before", in.db_size_before},
          {key::kDbSizePeak, in.db_size_peak},
          {"db_size_end", in.db_size_end},
          {"db_size_in_use_end", in.db_size_in_use_end},
          {key::kPeakShareOfQuota, quota > 0 ? double(in.db_size_peak) / double(quota) : 0.0},
          {"revision_before", in.revision_before},
          {"revision_end", in.revision_end},
          {"load_s", in.load_s},
          {key::kCompacted, in.compacted},
          {"compaction_probe", in.compaction_probe},
          {key::kDbSizeByWrite, sizes}};
}

std::string IntendedText(const MvccQuotaOptions& o, const MvccIntendedRun& in, const std::string& tag) {
  if (!in.failure.empty()) return fmt::format("    {}etcd, intended profile, FAILED: {}\n", tag, in.failure);
  std::string out = fmt::format(
      "    {}etcd, intended profile: {} of {} writes succeeded, {} failed{}; db size peak {} bytes ({:.2f}% of the "
      "{} quota), {} at the end ({} in use), over {:.1f} s\n",
      tag, in.successful, in.attempted, in.failed, in.first_error.empty() ? "" : " (first: " + in.first_error + ")",
      in.db_size_peak, o.quota_bytes > 0 ? 100.0 * double(in.db_size_peak) / double(o.quota_bytes) : 0.0,
      o.quota_bytes, in.db_size_end, in.db_size_in_use_end, in.load_s);
  out += fmt::format("      auto-compaction (retention {}): {}: {}\n", o.intended_profile.compaction_retention,
                     in.compacted ? "ran" : "not seen", in.compaction_probe);
  return out;
}

// The two profiles of one run in one table: what each wrote and what etcd kept.
std::string SideBySide(const MvccQuotaOptions& o, const MvccQuotaRun& run) {
  const MvccEtcdRun& e = run.etcd;
  const MvccIntendedRun& in = run.intended;
  const MvccIntendedOptions& p = o.intended_profile;
  const int64_t misuse_peak = e.db_size_by_write.empty() ? 0 : std::max_element(
      e.db_size_by_write.begin(), e.db_size_by_write.end(),
      [](const auto& a, const auto& b) { return a.second < b.second; })->second;
  auto share = [&](int64_t bytes) {
    return fmt::format("{:.2f}%", o.quota_bytes > 0 ? 100.0 * double(bytes) / double(o.quota_bytes) : 0.0);
  };
  std::string out = fmt::format("    {:<34} {:>24} {:>24}\n", "", "misuse", "intended");
  auto row = [&](const std::string& name, const std::string& a, const std::string& b) {
    out += fmt::format("    {:<34} {:>24} {:>24}\n", name, a, b);
  };
  row("keys", std::to_string(o.keys), std::to_string(p.keys));
  row("writes (attempted)", std::to_string(e.attempted), std::to_string(in.attempted));
  row("value bytes", std::to_string(o.value_size), std::to_string(p.value_size));
  row("rate", "as fast as it answers", fmt::format("{}/s", p.rate));
  row("auto-compaction", "none", "periodic, " + p.compaction_retention);
  row("writes failed", std::to_string(e.failed), std::to_string(in.failed));
  row("db size peak (bytes)", std::to_string(misuse_peak), std::to_string(in.db_size_peak));
  row("db size peak / quota", share(misuse_peak), share(in.db_size_peak));
  row("revisions kept at the end", e.first_failed_write > 0 ? "1 (recovery compacted)"
                                                            : std::to_string(e.revision_end - e.revision_before),
      in.compacted ? "the last " + p.compaction_retention + "'s" : std::to_string(in.revision_end - in.revision_before));
  return out;
}

std::string RunText(const MvccQuotaOptions& o, const MvccQuotaRun& run, const std::string& tag) {
  std::string out;
  if (run.intended_ran) out += IntendedText(o, run.intended, tag);
  if (!run.misuse_ran) return out;
  const MvccEtcdRun& e = run.etcd;
  if (!e.failure.empty()) {
    out += fmt::format("    {}etcd FAILED: {}\n", tag, e.failure);
  } else if (e.first_failed_write == 0) {
    out += fmt::format("    {}etcd: all {} writes succeeded; db size {} bytes: the quota of {} was not reached\n",
                       tag, e.successful, e.db_size_by_write.empty() ? 0 : e.db_size_by_write.back().second,
                       o.quota_bytes);
  } else {
    out += fmt::format("    {}etcd: first failed write {} (detected in portion {}), error: {}\n", tag,
                       e.first_failed_write, e.detected_in.Describe(), e.error);
    out += fmt::format("      alarm: {}; db size at failure {} bytes (status after that portion); "
                       "successful {}, failed {} of {}\n",
                       e.alarms.empty() ? "none listed" : fmt::format("{}", fmt::join(e.alarms, ", ")),
                       e.db_size_at_failure, e.successful, e.failed, e.attempted);
    const int64_t applied_anyway = e.revision_end - e.revision_before - e.successful;
    if (applied_anyway > 0) {
      out += fmt::format("      {} of the failed puts were applied all the same (revisions added {} = {} "
                         "successful + {}): the put that crosses the quota is applied and answered with "
                         "the error\n", applied_anyway, e.revision_end - e.revision_before, e.successful,
                         applied_anyway);
    }
    for (const std::string& step : e.recovery) out += "      recovery: " + step + "\n";
    out += fmt::format("      db size after recovery {} bytes; canary put: {}\n", e.db_size_after_recovery,
                       e.canary_ok ? "succeeded" : "FAILED: " + e.canary_error);
  }
  const MvccRedisRun& r = run.redis;
  if (!r.failure.empty()) {
    out += fmt::format("    {}redis FAILED: {}\n", tag, r.failure);
  } else {
    out += fmt::format("    {}redis: successful {}, errors {}; used_memory {} -> {} bytes (Δ {}), keys {}\n",
                       tag, r.successful, r.errors, r.used_memory_before, r.used_memory_after, r.delta(), r.keys);
  }
  if (run.ratio > 0) {
    out += fmt::format("    {}etcd db size at failure / Redis Δused_memory = {:.1f} (specific to this profile "
                       "and quota)\n", tag, run.ratio);
  }
  return out;
}

RepeatSummary SummaryOf(const std::vector<MvccQuotaRun>& runs) {
  std::vector<RunFigures> figures;
  for (const MvccQuotaRun& run : runs) {
    RunFigures f;
    if (!run.ok()) {
      f.outcome = run.etcd.failure == "interrupted" || run.redis.failure == "interrupted" ||
                          run.intended.failure == "interrupted"
                      ? RunOutcome::kInterrupted
                      : RunOutcome::kFailed;
      f.reason = !run.etcd.failure.empty()       ? run.etcd.failure
                 : !run.redis.failure.empty()    ? run.redis.failure
                 : !run.intended.failure.empty() ? run.intended.failure
                                                 : "an invariant broke";
    }
    auto add = [&](const char* row, const char* key, double v) { f.figures.push_back({row, key, key, v}); };
    if (run.misuse_ran) {
      if (run.etcd.first_failed_write > 0) add("etcd", "first_failed_write", double(run.etcd.first_failed_write));
      add("etcd", "db_size_at_failure", double(run.etcd.db_size_at_failure));
      add("etcd", "db_size_after_recovery", double(run.etcd.db_size_after_recovery));
      add("redis", "used_memory_delta", double(run.redis.delta()));
      if (run.ratio > 0) add("ratio", "ratio", run.ratio);
    }
    if (run.intended_ran) {
      add("intended", "db_size_peak", double(run.intended.db_size_peak));
      add("intended", "failed", double(run.intended.failed));
    }
    figures.push_back(std::move(f));
  }
  return Summarize(figures, static_cast<int>(figures.size()));
}

}  // namespace

void FillMvccQuotaReport(const MvccQuotaOptions& o, const std::vector<MvccQuotaRun>& runs, bool interrupted,
                         ScenarioReport* report) {
  std::string results, invariants;
  Table writes{"etcd_db_size", {"run", "writes_attempted", "db_size"}, {}};
  Table intended_writes{"etcd_intended_db_size", {"run", "writes_attempted", "db_size"}, {}};
  Table inv{"invariants", {"run", "invariant", "lhs_value", "rhs_value", "ok"}, {}};
  json runs_json = json::array();
  for (size_t k = 0; k < runs.size(); ++k) {
    const MvccQuotaRun& run = runs[k];
    const std::string n = std::to_string(k + 1);
    results += RunText(o, run, runs.size() > 1 ? "run " + n + ": " : "");
    for (const Invariant& i : run.invariants) {
      invariants += fmt::format("    run {}: {}\n", n, i.Describe());
      inv.rows.push_back({n, i.name, std::to_string(i.lhs_value), std::to_string(i.rhs_value), i.ok() ? "true" : "false"});
      if (!i.ok()) report->Mark(ScenarioVerdict::kFailed, fmt::format("run {}: invariant broken: {}", n, i.Describe()));
    }
    for (const auto& [w, size] : run.etcd.db_size_by_write) writes.rows.push_back({n, std::to_string(w), std::to_string(size)});
    for (const auto& [w, size] : run.intended.db_size_by_write) {
      intended_writes.rows.push_back({n, std::to_string(w), std::to_string(size)});
    }
    for (const std::string* f : {&run.etcd.failure, &run.redis.failure, &run.intended.failure}) {
      if (!f->empty() && *f != "interrupted") report->Mark(ScenarioVerdict::kFailed, fmt::format("run {}: {}", n, *f));
    }
    if (run.etcd.failure.empty() && run.etcd.first_failed_write > 0 && !run.etcd.canary_ok) {
      report->Mark(ScenarioVerdict::kFailed, fmt::format("run {}: the canary put failed after the recovery", n));
    }
    json one = {{"run", k + 1}, {key::kRunOk, run.ok()}};
    if (run.misuse_ran) {
      one[key::kEtcd] = EtcdJson(run.etcd);
      one[key::kRedis] = RedisJson(run.redis);
      one[key::kRatio] = run.ratio > 0 ? json(run.ratio) : json(nullptr);
    }
    if (run.intended_ran) one[key::kIntended] = IntendedJson(run.intended, o.quota_bytes);
    one["invariants"] = json::array();
    for (const Invariant& i : run.invariants) one["invariants"].push_back(i.ToJson());
    runs_json.push_back(std::move(one));
  }
  RepeatSummary sum = SummaryOf(runs);
  json summary = json::object();
  if (runs.size() > 1) {
    results += fmt::format("    over the runs: {} ok, {} failed, {} interrupted (of {})\n", sum.ok, sum.failed,
                           sum.interrupted, sum.runs);
    for (const FigureRange& f : sum.ranges) {
      results += fmt::format("    {} {}: {}\n", f.row, f.key, RangeText(f.range, "{:.6g}"));
    }
    for (const std::string& f : sum.failures) results += "      " + f + "\n";
  }
  for (const FigureRange& f : sum.ranges) {
    summary[f.row + "." + f.key] = RangeJson(f.range);
  }
  report->blocks.push_back({"Results", results});
  if (o.misuse && o.intended) {
    for (const MvccQuotaRun& run : runs) {
      if (!run.ok()) continue;
      report->blocks.push_back({"Both profiles side by side (the first complete run)", SideBySide(o, run)});
      break;
    }
  }
  report->blocks.push_back({"Invariants (a broken one fails the run)",
                            invariants.empty() ? "    none checked: no run completed\n" : invariants});
  report->tables = {writes, inv};
  if (o.intended) report->tables.push_back(intended_writes);
  // The first complete run's figures at the top level (the field names).
  for (const MvccQuotaRun& run : runs) {
    if (!run.ok()) continue;
    if (run.misuse_ran) {
      report->json[key::kEtcd] = EtcdJson(run.etcd);
      report->json[key::kRedis] = RedisJson(run.redis);
      report->json[key::kRatio] = run.ratio > 0 ? json(run.ratio) : json(nullptr);
    }
    if (run.intended_ran) report->json[key::kIntended] = IntendedJson(run.intended, o.quota_bytes);
    break;
  }
  report->json[key::kRunsDetail] = runs_json;
  report->json["summary"] = summary;
  report->json[key::kProfile] = {{key::kQuotaBytes, o.quota_bytes}, {key::kKeys, o.keys}, {"writes", o.writes},
                                 {key::kValueSize, o.value_size}, {"payload", "random"}, {key::kPortion, o.portion}};
  report->json[key::kProfiles] = json::array();
  if (o.misuse) report->json[key::kProfiles].push_back("misuse");
  if (o.intended) {
    report->json[key::kProfiles].push_back("intended");
    const MvccIntendedOptions& p = o.intended_profile;
    report->json[key::kProfile][key::kIntended] = {
        {key::kKeys, p.keys}, {"writes", p.writes}, {key::kValueSize, p.value_size}, {"rate_per_s", p.rate},
        {key::kCompactionRetention, p.compaction_retention}, {key::kPortion, p.portion}};
  }
  if (interrupted) report->Mark(ScenarioVerdict::kInterrupted, "interrupted: the figures so far, marked partial");
}

}  // namespace memstand
