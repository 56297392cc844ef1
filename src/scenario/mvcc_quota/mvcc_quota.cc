#include "scenario/mvcc_quota/mvcc_quota.h"

#include <algorithm>
#include <functional>
#include <memory>

#include <fmt/format.h>

#include "core/clock.h"
#include "scenario/kit/evidence.h"
#include "scenario/kit/runs.h"
#include "scenario/kit/load_step.h"
#include "scenario/kit/scenario_server.h"
#include "scenario/mvcc_quota/report.h"

namespace memstand {
namespace {

using nlohmann::json;

constexpr char kHotKeyPrefix[] = "hot:";
constexpr char kMetaKeyPrefix[] = "meta:";
constexpr char kCanaryKey[] = "memstand-canary";

// What a profile writes: write i to key <prefix><i mod keys>, random values of
// value_size bytes, in portions (a portion divides keys or keys divides it).
struct WriteProfile {
  const char* prefix;
  uint32_t keys, portion, value_size;
  double rate;  // 0: as fast as etcd answers
};

WriteProfile MisuseProfile(const MvccQuotaOptions& o) { return {kHotKeyPrefix, o.keys, o.portion, o.value_size, 0}; }

LoadStepOptions StepOptions(const WriteProfile& p, int pipeline, const ScenarioContext& ctx, int64_t low) {
  LoadStepOptions s;
  s.key_prefix = p.prefix;
  s.first_key = static_cast<uint64_t>(low % p.keys);
  s.last_key = s.first_key + std::min(p.portion, p.keys) - 1;  // keys dividing the portion: the set again
  s.requests = p.portion;
  s.value.min_size = s.value.max_size = p.value_size;
  s.value.content = ValueSpec::Content::kRandom;
  s.pipeline = pipeline;
  s.rate = p.rate;
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

// One portion of a profile and etcd's status after it; the failure's text when the
// load lost the server or the status could not be read.
struct PortionResult {
  LoadStepResult step;
  etcd::Summary status;
};
Result<PortionResult> WritePortion(const WriteProfile& p, int pipeline, const ScenarioContext& ctx,
                                   ServerUnderTest& etcd, int64_t low) {
  auto step = RunLoadStep(etcd, StepOptions(p, pipeline, ctx, low));
  if (!step.ok()) return step.status();
  if (!step->failure.ok()) return step->failure;
  auto status = EtcdStatus(etcd);
  if (!status.ok()) return status.status();
  return PortionResult{*step, *status};
}

// Writes `writes` of the profile portion by portion, calling `each` after every one;
// the failure's text ("interrupted", a lost server, a status not read), "" when all ran.
std::string WritePortions(const WriteProfile& p, int64_t writes, int pipeline, const ScenarioContext& ctx,
                          ServerUnderTest& etcd, const std::function<void(int64_t, const PortionResult&)>& each) {
  for (int64_t low = 0; low < writes; low += p.portion) {
    if (ctx.interrupted()) return "interrupted";
    auto portion = WritePortion(p, pipeline, ctx, etcd, low);
    if (!portion.ok()) return portion.status().message();
    each(low, *portion);
  }
  return "";
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
  auto each = [&](int64_t low, const PortionResult& p) {
    const LoadStepResult* step = &p.step;
    const etcd::Summary* status = &p.status;
    r->attempted += step->attempted;
    r->successful += step->successful;
    r->failed += step->rejected;
    r->db_size_by_write.emplace_back(r->attempted, status->db_size);
    r->revision_end = status->revision;
    if (step->rejected > 0 && r->first_failed_write == 0) {
      r->first_failed_write = low + static_cast<int64_t>(step->first_rejected);
      r->error = step->first_error;
      r->detected_in = Interval{low, low + o.portion};
      r->db_size_at_failure = status->db_size;
      ctx.Progress("mvcc-quota", fmt::format("first failed write {}: {}", r->first_failed_write, r->error));
    }
  };
  r->failure = WritePortions(MisuseProfile(o), o.writes, o.pipeline, ctx, etcd, each);
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
    auto step = RunLoadStep(redis, StepOptions(MisuseProfile(o), o.pipeline, ctx, low));
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

// The intended profile: few keys, written at a low rate, auto-compaction on; etcd's
// status after every portion, then a read of the first write's revision, which the
// compaction has removed once it ran.
void LoadIntended(const MvccQuotaOptions& o, const ScenarioContext& ctx, ServerUnderTest& etcd,
                  MvccIntendedRun* r) {
  const MvccIntendedOptions& in = o.intended_profile;
  auto before = EtcdStatus(etcd);
  if (!before.ok()) {
    r->failure = before.status().message();
    return;
  }
  r->db_size_before = r->db_size_peak = before->db_size;
  r->revision_before = r->revision_end = before->revision;
  const int64_t start = NowNs();
  auto each = [&](int64_t, const PortionResult& p) {
    const LoadStepResult* step = &p.step;
    const etcd::Summary* status = &p.status;
    r->attempted += step->attempted;
    r->successful += step->successful;
    r->failed += step->rejected;
    if (r->first_error.empty()) r->first_error = step->first_error;
    r->db_size_by_write.emplace_back(r->attempted, status->db_size);
    r->db_size_peak = std::max(r->db_size_peak, status->db_size);
    r->db_size_end = status->db_size;
    r->db_size_in_use_end = status->db_size_in_use;
    r->revision_end = status->revision;
  };
  r->failure =
      WritePortions({kMetaKeyPrefix, in.keys, in.portion, in.value_size, in.rate}, in.writes, o.pipeline, ctx, etcd, each);
  if (!r->failure.empty()) return;
  r->load_s = double(NowNs() - start) / 1e9;
  const int64_t first = r->revision_before + 1;
  etcd::RangeOptions at_first;
  at_first.revision = first;
  auto probe = etcd.control()->EtcdRequest([&](Buffer* out, const etcd::Target& t) {
    etcd::AppendRange(out, t, std::string(kMetaKeyPrefix) + "0", at_first);
  });
  if (!probe.ok()) {
    r->compaction_probe = probe.status().message();
  } else if (probe->ok) {
    r->compaction_probe = fmt::format("revision {} still readable", first);
  } else {
    r->compaction_probe = probe->error;
    r->compacted = probe->error.find("compacted") != std::string::npos;
  }
}

void CheckInvariants(const MvccQuotaOptions& o, MvccQuotaRun* run) {
  if (run->intended_ran) {
    const MvccIntendedRun& in = run->intended;
    run->invariants.push_back(MakeInvariant("intended etcd successful + failed", in.successful + in.failed,
                                            "attempted", in.attempted));
    if (in.failed == 0) {
      // One revision per put; compaction removes old revisions, never the counter.
      run->invariants.push_back(MakeInvariant("intended etcd revisions added", in.revision_end - in.revision_before,
                                              "successful", in.successful));
    }
  }
  if (!run->misuse_ran) return;
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

void RunMisuse(const MvccQuotaOptions& o, const ScenarioContext& ctx, int index, ScenarioReport* report,
               MvccQuotaRun* run) {
  run->misuse_ran = true;
  ServerConfig etcd_config{"etcd", SystemKind::kEtcd, {{"quota-backend-bytes", std::to_string(o.quota_bytes)}}, ""};
  ServerConfig redis_config{"redis", SystemKind::kRedis, {}, ""};
  auto etcd = ServerUnderTest::Start(etcd_config, ctx.interrupt);
  auto redis = ServerUnderTest::Start(redis_config, ctx.interrupt);
  // A start the signal cut short is "interrupted", which the verdict leaves out of the failures.
  const std::string label = fmt::format("run {}: ", index);
  if (!etcd.ok()) {
    run->etcd.failure = StartFailure(ctx, "mvcc-quota", label + "etcd", "etcd did not start: ", etcd.status());
  }
  if (!redis.ok()) {
    run->redis.failure = StartFailure(ctx, "mvcc-quota", label + "redis", "redis did not start: ", redis.status());
  }
  if (etcd.ok()) {
    if (index == 1) {
      report->configuration_lines.push_back("etcd: " + (*etcd)->Describe());
      report->files["servers/etcd.conf"] = (*etcd)->ConfigText();
    }
    ctx.Progress("mvcc-quota", fmt::format("run {}: etcd, {} writes over {} keys", index, o.writes, o.keys));
    LoadEtcd(o, ctx, **etcd, &run->etcd);
    if (run->etcd.failure.empty() && run->etcd.first_failed_write > 0) RecoverEtcd(**etcd, &run->etcd);
    if (!run->etcd.failure.empty()) run->etcd.failure = (*etcd)->ExplainFailure(run->etcd.failure);
    KeepLogTail("etcd", index, (*etcd)->log_path(), &report->files);
  }
  if (redis.ok()) {
    if (index == 1) {
      report->configuration_lines.push_back("redis: " + (*redis)->Describe());
      report->files["servers/redis.conf"] = (*redis)->ConfigText();
    }
    ctx.Progress("mvcc-quota", fmt::format("run {}: redis, the same profile", index));
    LoadRedis(o, ctx, **redis, &run->redis);
    if (!run->redis.failure.empty()) run->redis.failure = (*redis)->ExplainFailure(run->redis.failure);
    KeepLogTail("redis", index, (*redis)->log_path(), &report->files);
  }
}

void RunIntended(const MvccQuotaOptions& o, const ScenarioContext& ctx, int index, ScenarioReport* report,
                 MvccQuotaRun* run) {
  run->intended_ran = true;
  const MvccIntendedOptions& in = o.intended_profile;
  ServerConfig config{"etcd-intended",
                      SystemKind::kEtcd,
                      {{"quota-backend-bytes", std::to_string(o.quota_bytes)},
                       {"auto-compaction-mode", "periodic"},
                       {"auto-compaction-retention", in.compaction_retention}},
                      ""};
  auto etcd = ServerUnderTest::Start(config, ctx.interrupt);
  if (!etcd.ok()) {
    run->intended.failure = StartFailure(ctx, "mvcc-quota", fmt::format("run {}: etcd (intended)", index),
                                         "etcd (intended profile) did not start: ", etcd.status());
    return;
  }
  if (index == 1) {
    report->configuration_lines.push_back("etcd, intended profile: " + (*etcd)->Describe());
    report->files["servers/etcd-intended.conf"] = (*etcd)->ConfigText();
  }
  ctx.Progress("mvcc-quota", fmt::format("run {}: etcd, intended profile: {} writes over {} keys at {}/s", index,
                                         in.writes, in.keys, in.rate));
  LoadIntended(o, ctx, **etcd, &run->intended);
  if (!run->intended.failure.empty()) run->intended.failure = (*etcd)->ExplainFailure(run->intended.failure);
  KeepLogTail("etcd-intended", index, (*etcd)->log_path(), &report->files);
}

MvccQuotaRun RunOnce(const MvccQuotaOptions& o, const ScenarioContext& ctx, int index, ScenarioReport* report) {
  MvccQuotaRun run;
  if (o.misuse) RunMisuse(o, ctx, index, report, &run);
  if (o.intended && !ctx.interrupted()) RunIntended(o, ctx, index, report, &run);
  if (run.ok()) {
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
  if (!o.misuse && !o.intended) return Status::InvalidArgument("--profile: no profile to run");
  if (o.intended) {
    const MvccIntendedOptions& in = o.intended_profile;
    if (in.keys < 1) return Status::InvalidArgument("--intended-keys must be at least 1");
    if (in.value_size < 1 || in.value_size > (1u << 20)) {
      return Status::InvalidArgument(fmt::format("--intended-value-size must be 1 .. 1 MiB, got {}", in.value_size));
    }
    if (!(in.rate > 0 && in.rate <= 100000)) {
      return Status::InvalidArgument(fmt::format("--intended-rate must be > 0 and at most 100000, got {}", in.rate));
    }
    if (in.portion < 1 || in.writes < 1 || in.writes % in.portion != 0) {
      return Status::InvalidArgument(fmt::format("--intended-writes ({}) must be a positive multiple of {} (the "
                                                 "writes between two status reads)", in.writes, in.portion));
    }
    if (in.keys % in.portion != 0 && in.portion % in.keys != 0) {
      return Status::InvalidArgument(fmt::format("--intended-keys ({}) must divide {} (the writes between two "
                                                 "status reads) or be a multiple of it", in.keys, in.portion));
    }
    // What etcd's periodic mode reads (a Go duration); whole units only, at least 1s.
    const std::string& r = in.compaction_retention;
    const size_t digits = r.find_first_not_of("0123456789");
    const bool shaped = digits != 0 && digits != std::string::npos && digits + 1 == r.size() &&
                        (r.back() == 's' || r.back() == 'm' || r.back() == 'h');
    if (!shaped || r.find_first_not_of('0') == digits || digits > 6) {
      return Status::InvalidArgument("--auto-compaction-retention must be a whole number of s, m or h (2s, 5m, "
                                     "1h), at least 1s, got '" + r + "'");
    }
  }
  return Status::OK();
}

Result<ScenarioReport> RunMvccQuota(const MvccQuotaOptions& o, const ScenarioContext& ctx) {
  Status valid = ValidateMvccQuota(o);
  if (!valid.ok()) return valid;
  ScenarioReport report;
  report.scenario = "mvcc-quota";
  report.runs_requested = ctx.runs;
  std::vector<SystemKind> needed{SystemKind::kEtcd};
  if (o.misuse) needed.push_back(SystemKind::kRedis);
  for (SystemKind s : needed) {
    if (std::string missing = NotInstalledLine(s); !missing.empty()) report.Mark(ScenarioVerdict::kPartial, missing);
  }
  if (report.verdict == ScenarioVerdict::kPartial) {
    report.configuration_lines = report.verdict_lines;
    report.blocks.push_back({"Results", o.misuse ? "    nothing ran: the comparison needs both servers\n"
                                                 : "    nothing ran: the profile needs etcd\n"});
    return report;
  }
  std::vector<MvccQuotaRun> runs;
  ForEachRun(ctx, &report, [&](int run) { runs.push_back(RunOnce(o, ctx, run, &report)); });
  if (o.misuse) {
    report.procedure = {
        fmt::format("misuse profile: a fresh etcd (--quota-backend-bytes={}, new data directory, no "
                    "auto-compaction) and a fresh Redis (no maxmemory) each run, both up at the same time",
                    o.quota_bytes),
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
        "the misuse profile runs without a compaction policy, as etcd's default does; the intended profile "
        "(--profile intended or both) runs with one",
        "one member, on loopback: nothing about raft replication cost"};
  }
  if (o.intended) {
    const MvccIntendedOptions& in = o.intended_profile;
    report.procedure.push_back(fmt::format(
        "intended profile: a fresh etcd (--quota-backend-bytes={}, --auto-compaction-mode=periodic "
        "--auto-compaction-retention={}) each run; {} writes of {} B random values (seeded), write i to key "
        "meta:<i mod {}>, open loop at {}/s on one connection (pipeline {}); status (dbSize, dbSizeInUse, "
        "revision) after every {} writes; at the end a read of the first write's revision (meta:0 at the "
        "revision before the load + 1): 'required revision has been compacted' once auto-compaction ran",
        o.quota_bytes, in.compaction_retention, in.writes, in.value_size, in.keys, in.rate, o.pipeline,
        in.portion));
    report.limits.push_back(
        "the intended profile is short (seconds, not the hours a deployment runs): its backend size is the "
        "start of a plateau, whose height depends on the retention window and the write rate");
    if (!o.misuse) report.limits.push_back("one member, on loopback: nothing about raft replication cost");
  }
  FillMvccQuotaReport(o, runs, ctx.interrupted(), &report);
  return report;
}

}  // namespace memstand
