#include "scenario/mvcc_quota/mvcc_quota.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "scenario/kit/evidence.h"
#include "scenario/kit/runs.h"
#include "scenario/kit/load_step.h"
#include "scenario/kit/scenario_server.h"
#include "scenario/mvcc_quota/report.h"

namespace memstand {
namespace {

using nlohmann::json;

constexpr char kHotKeyPrefix[] = "hot:";
constexpr char kCanaryKey[] = "memstand-canary";

LoadStepOptions StepOptions(const MvccQuotaOptions& o, const ScenarioContext& ctx, int64_t low) {
  LoadStepOptions s;
  s.key_prefix = kHotKeyPrefix;
  s.first_key = static_cast<uint64_t>(low % o.keys);
  s.last_key = s.first_key + o.portion - 1;
  s.requests = o.portion;
  s.value.min_size = s.value.max_size = o.value_size;
  s.value.content = ValueSpec::Content::kRandom;
  s.pipeline = o.pipeline;
  // Each portion its own values, the same on every run with this seed.
  s.seed = ctx.seed + static_cast<uint64_t>(low);
  s.interrupt = ctx.interrupt;
  return s;
}

Result<etcd::Summary> EtcdStatus(ServerUnderTest& etcd) {
  auto s = etcd.control()->EtcdRequest(etcd::AppendStatus);
  if (!s.ok()) return s;
  if (!s->ok) return Status::Server("maintenance/status: " + s->error);
  return s;
}

// Writes the profile to etcd portion by portion; stops at nothing but a lost server.
void LoadEtcd(const MvccQuotaOptions& o, const ScenarioContext& ctx, ServerUnderTest& etcd, MvccEtcdRun* r) {
  auto before = EtcdStatus(etcd);
  if (!before.ok()) {
    r->failure = before.status().message();
    return;
  }
  r->db_size_before = before->db_size;
  r->revision_before = before->revision;
  for (int64_t low = 0; low < o.writes; low += o.portion) {
    if (ctx.interrupted()) {
      r->failure = "interrupted";
      return;
    }
    auto step = RunLoadStep(etcd, StepOptions(o, ctx, low));
    if (!step.ok() || !step->failure.ok()) {
      r->failure = step.ok() ? step->failure.message() : step.status().message();
      return;
    }
    r->attempted += step->attempted;
    r->successful += step->successful;
    r->failed += step->rejected;
    auto status = EtcdStatus(etcd);
    if (!status.ok()) {
      r->failure = status.status().message();
      return;
    }
    r->db_size_by_write.emplace_back(r->attempted, status->db_size);
    r->revision_end = status->revision;
    if (step->rejected > 0 && r->first_failed_write == 0) {
      r->first_failed_write = low + static_cast<int64_t>(step->first_rejected);
      r->error = step->first_error;
      r->detected_in = Interval{low, low + o.portion};
      r->db_size_at_failure = status->db_size;
      ctx.Progress("mvcc-quota", fmt::format("first failed write {}: {}", r->first_failed_write, r->error));
    }
  }
}

// The documented recovery: compact to the current revision (physical), defragment,
// disarm the alarm; then the size after it and a canary put.
void RecoverEtcd(ServerUnderTest& etcd, MvccEtcdRun* r) {
  ProtoControl* c = etcd.control();
  auto alarms = c->EtcdRequest(etcd::AppendAlarmList);
  uint64_t member = 0;
  if (alarms.ok()) {
    for (const etcd::Alarm& a : alarms->alarms) {
      r->alarms.push_back(a.alarm);
      member = a.member_id;
    }
  }
  auto status = EtcdStatus(etcd);
  if (!status.ok()) {
    r->recovery.push_back("status: " + status.status().message());
    return;
  }
  const int64_t revision = status->revision;
  auto step = [&](const std::string& what, const Result<etcd::Summary>& got) {
    r->recovery.push_back(what + ": " + (!got.ok() ? got.status().message() : got->ok ? "ok" : got->error));
  };
  step(fmt::format("compact to revision {} (physical)", revision),
       c->EtcdRequest([&](Buffer* out, const etcd::Target& t) { etcd::AppendCompaction(out, t, revision, true); }));
  step("defragment", c->EtcdRequest(etcd::AppendDefragment));
  for (const std::string& a : r->alarms) {
    step("disarm " + a, c->EtcdRequest([&](Buffer* out, const etcd::Target& t) {
           etcd::AppendAlarmDisarm(out, t, member, a);
         }));
  }
  auto after = EtcdStatus(etcd);
  if (after.ok()) r->db_size_after_recovery = after->db_size;
  std::string error;
  Status canary = etcd.Write(0, kCanaryKey, "ok", &error);
  r->canary_ok = canary.ok() && error.empty();
  r->canary_error = canary.ok() ? error : canary.message();
}

void LoadRedis(const MvccQuotaOptions& o, const ScenarioContext& ctx, ServerUnderTest& redis, MvccRedisRun* r) {
  auto before = redis.Read();
  if (!before.ok()) {
    r->failure = before.status().message();
    return;
  }
  r->used_memory_before = before->memory;
  for (int64_t low = 0; low < o.writes; low += o.portion) {
    if (ctx.interrupted()) {
      r->failure = "interrupted";
      return;
    }
    auto step = RunLoadStep(redis, StepOptions(o, ctx, low));
    if (!step.ok() || !step->failure.ok()) {
      r->failure = step.ok() ? step->failure.message() : step.status().message();
      return;
    }
    r->attempted += step->attempted;
    r->successful += step->successful;
    r->errors += step->rejected;
  }
  auto after = redis.Read();
  if (!after.ok()) {
    r->failure = after.status().message();
    return;
  }
  r->used_memory_after = after->memory;
  r->keys = after->present;
}

void CheckInvariants(const MvccQuotaOptions& o, MvccQuotaRun* run) {
  const MvccEtcdRun& e = run->etcd;
  run->invariants.push_back(MakeInvariant("etcd successful + failed", e.successful + e.failed, "attempted", e.attempted));
  // Every applied put adds one revision. A put that crosses the quota is applied and
  // still answered "database space exceeded" (etcd checks the quota again when it
  // applies a put proposed before the alarm), so the revisions added may exceed the
  // successes by the puts that were in flight then: at most the pipeline's depth.
  const int64_t applied_anyway = e.revision_end - e.revision_before - e.successful;
  run->invariants.push_back(MakeInvariant(
      "etcd failed puts applied anyway (revision at the end - revision before - successful)", applied_anyway,
      fmt::format("the same, within 0..{} (the puts in flight)", e.first_failed_write > 0 ? o.pipeline : 0),
      std::clamp<int64_t>(applied_anyway, 0, e.first_failed_write > 0 ? o.pipeline : 0)));
  if (e.first_failed_write > 0) {
    run->invariants.push_back(MakeInvariant("etcd successful", e.successful, "first failed write - 1",
                                            e.first_failed_write - 1));
  }
  const MvccRedisRun& r = run->redis;
  run->invariants.push_back(MakeInvariant("redis successful + errors", r.successful + r.errors, "attempted", r.attempted));
  run->invariants.push_back(MakeInvariant("redis keys", r.keys, "hot keys written",
                                          std::min<int64_t>(o.keys, r.successful)));
}

MvccQuotaRun RunOnce(const MvccQuotaOptions& o, const ScenarioContext& ctx, int index, ScenarioReport* report) {
  MvccQuotaRun run;
  ServerConfig etcd_config{"etcd", SystemKind::kEtcd, {{"quota-backend-bytes", std::to_string(o.quota_bytes)}}, ""};
  ServerConfig redis_config{"redis", SystemKind::kRedis, {}, ""};
  auto etcd = ServerUnderTest::Start(etcd_config, ctx.interrupt);
  auto redis = ServerUnderTest::Start(redis_config, ctx.interrupt);
  // A start the signal cut short is "interrupted", which the verdict leaves out of the failures.
  const std::string label = fmt::format("run {}: ", index);
  if (!etcd.ok()) {
    run.etcd.failure = StartFailure(ctx, "mvcc-quota", label + "etcd", "etcd did not start: ", etcd.status());
  }
  if (!redis.ok()) {
    run.redis.failure = StartFailure(ctx, "mvcc-quota", label + "redis", "redis did not start: ", redis.status());
  }
  if (etcd.ok()) {
    if (index == 1) {
      report->configuration_lines.push_back("etcd: " + (*etcd)->Describe());
      report->files["servers/etcd.conf"] = (*etcd)->ConfigText();
    }
    ctx.Progress("mvcc-quota", fmt::format("run {}: etcd, {} writes over {} keys", index, o.writes, o.keys));
    LoadEtcd(o, ctx, **etcd, &run.etcd);
    if (run.etcd.failure.empty() && run.etcd.first_failed_write > 0) RecoverEtcd(**etcd, &run.etcd);
    if (!run.etcd.failure.empty()) run.etcd.failure = (*etcd)->ExplainFailure(run.etcd.failure);
    KeepLogTail("etcd", index, (*etcd)->log_path(), &report->files);
  }
  if (redis.ok()) {
    if (index == 1) {
      report->configuration_lines.push_back("redis: " + (*redis)->Describe());
      report->files["servers/redis.conf"] = (*redis)->ConfigText();
    }
    ctx.Progress("mvcc-quota", fmt::format("run {}: redis, the same profile", index));
    LoadRedis(o, ctx, **redis, &run.redis);
    if (!run.redis.failure.empty()) run.redis.failure = (*redis)->ExplainFailure(run.redis.failure);
    KeepLogTail("redis", index, (*redis)->log_path(), &report->files);
  }
  if (run.etcd.failure.empty() && run.redis.failure.empty()) {
    CheckInvariants(o, &run);
    if (run.redis.delta() > 0) run.ratio = double(run.etcd.db_size_at_failure) / double(run.redis.delta());
  }
  return run;
}

}  // namespace

Status ValidateMvccQuota(const MvccQuotaOptions& o) {
  if (o.quota_bytes < (int64_t{1} << 20) || o.quota_bytes > (int64_t{8} << 30)) {
    return Status::InvalidArgument(fmt::format("--quota must be 1 MiB .. 8 GiB, got {}", o.quota_bytes));
  }
  if (o.keys < 1) return Status::InvalidArgument("--keys must be at least 1");
  if (o.writes < 1) return Status::InvalidArgument("--writes must be at least 1");
  if (o.value_size < 1 || o.value_size > (1u << 20)) {
    return Status::InvalidArgument(fmt::format("--value-size must be 1 .. 1 MiB (etcd's request limit is "
                                               "1.5 MiB), got {}", o.value_size));
  }
  if (o.portion < 1 || o.keys % o.portion != 0 || o.writes % o.portion != 0) {
    return Status::InvalidArgument(fmt::format("--portion ({}) must divide --keys ({}) and --writes ({})",
                                               o.portion, o.keys, o.writes));
  }
  if (o.pipeline < 1 || o.pipeline > 1024) {
    return Status::InvalidArgument(fmt::format("--pipeline must be 1..1024, got {}", o.pipeline));
  }
  return Status::OK();
}

Result<ScenarioReport> RunMvccQuota(const MvccQuotaOptions& o, const ScenarioContext& ctx) {
  Status valid = ValidateMvccQuota(o);
  if (!valid.ok()) return valid;
  ScenarioReport report;
  report.scenario = "mvcc-quota";
  report.runs_requested = ctx.runs;
  for (SystemKind s : {SystemKind::kEtcd, SystemKind::kRedis}) {
    if (std::string missing = NotInstalledLine(s); !missing.empty()) report.Mark(ScenarioVerdict::kPartial, missing);
  }
  if (report.verdict == ScenarioVerdict::kPartial) {
    report.configuration_lines = report.verdict_lines;
    report.blocks.push_back({"Results", "    nothing ran: the comparison needs both servers\n"});
    return report;
  }
  std::vector<MvccQuotaRun> runs;
  ForEachRun(ctx, &report, [&](int run) { runs.push_back(RunOnce(o, ctx, run, &report)); });
  report.procedure = {
      fmt::format("a fresh etcd (--quota-backend-bytes={}, new data directory) and a fresh Redis (no maxmemory) "
                  "each run, both up at the same time", o.quota_bytes),
      fmt::format("{} writes, write i to key hot:<i mod {}>, {} B random values (seeded), one connection per "
                  "server, pipeline {}, in portions of {}; etcd status (dbSize, revision) after every portion",
                  o.writes, o.keys, o.value_size, o.pipeline, o.portion),
      "the first failed write is exact: one connection answers in request order",
      "after the failure: alarm list; compact to the current revision (physical), defragment, disarm each "
      "alarm; status; a canary put",
      "Redis: the same writes; used_memory before and after (INFO), DBSIZE"};
  report.limits = {
      "the ratio is specific to this profile (value size, hot set, overwrite count) and this quota",
      "db size at failure is read after the failing portion, at the portion's resolution",
      "no compaction policy was configured: etcd's auto-compaction would change the outcome (--set on a "
      "real deployment); this shows the default",
      "one member, on loopback: nothing about raft replication cost"};
  FillMvccQuotaReport(o, runs, ctx.interrupted(), &report);
  return report;
}

}  // namespace memstand
