// mvcc-quota's JSON contract: the keys its writer (report.cc) writes and its readers
// (charts.cc, choices.cc) read, each spelt once here (docs/scenarios/mvcc-quota.md).
// contract_test.cc feeds a report made of a fabricated run to both.
#pragma once

namespace memstand::mvcc_quota_json {

// Top level: the first complete run's figures, and the profile.
inline constexpr char kEtcd[] = "etcd";
inline constexpr char kRedis[] = "redis";
inline constexpr char kRatio[] = "ratio";  // etcd's db size at failure / Redis's used_memory delta
inline constexpr char kProfile[] = "profile";
inline constexpr char kRunsDetail[] = "runs_detail";  // every run: kRunOk, kEtcd, kRedis, kRatio, kIntended
inline constexpr char kProfiles[] = "profiles";        // ["misuse", "intended"]: those that ran
/// The intended profile's etcd (first complete run; runs_detail[] each), and under
/// kProfile its settings. Absent unless it ran; kEtcd and kRedis absent unless the misuse ran.
inline constexpr char kIntended[] = "intended";

// runs_detail[].
inline constexpr char kRunOk[] = "ok";

// etcd.
inline constexpr char kFirstFailedWrite[] = "first_failed_write";
inline constexpr char kDetectedIn[] = "detected_in";  // [low, high]: its portion
inline constexpr char kError[] = "error";
inline constexpr char kDbSizeAtFailure[] = "db_size_at_failure";
inline constexpr char kDbSizeAfterRecovery[] = "db_size_after_recovery";
inline constexpr char kCanaryOk[] = "canary_ok";
inline constexpr char kDbSizeByWrite[] = "db_size_by_write";  // [[writes attempted, db size], ...]

// intended (with kAttempted, kSuccessful, kError, kDbSizeByWrite).
inline constexpr char kDbSizePeak[] = "db_size_peak";
inline constexpr char kPeakShareOfQuota[] = "peak_share_of_quota";
inline constexpr char kCompacted[] = "compacted";  // the first write's revision was compacted away

// redis.
inline constexpr char kAttempted[] = "attempted";
inline constexpr char kSuccessful[] = "successful";
inline constexpr char kErrors[] = "errors";
inline constexpr char kUsedMemoryDelta[] = "used_memory_delta";

// profile.
inline constexpr char kQuotaBytes[] = "quota_bytes";
inline constexpr char kKeys[] = "keys";
inline constexpr char kPortion[] = "portion";
inline constexpr char kValueSize[] = "value_size";
inline constexpr char kCompactionRetention[] = "auto_compaction_retention";  // profile.intended

}  // namespace memstand::mvcc_quota_json
