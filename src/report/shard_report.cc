#include "report/shard_report.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace memstand {

std::string UtcSecond(double unix_s) {
  const std::time_t t = static_cast<std::time_t>(std::floor(unix_s));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string ShardNote(const LoadOptions& o) {
  if (!o.shard) return "";
  const ShardTaken& t = *o.shard;
  std::string s = fmt::format("shard {}/{}: ", t.shard.index, t.shard.count);
  s += t.key_sliced ? fmt::format("keys {}..{} (a slice of {}..{})", o.key_min, o.key_max,
                                  t.whole_key_min, t.whole_key_max)
                    : fmt::format("keys {}..{} (whole range, own seed)", o.key_min, o.key_max);
  s += fmt::format("; seed {} (from {})", o.seed, t.whole_seed);
  if (t.whole_rate > 0) s += fmt::format("; rate {:.10g}/s of {:.10g}/s", o.rate, t.whole_rate);
  if (t.whole_requests > 0) s += fmt::format("; {} of {} requests", o.requests, t.whole_requests);
  if (t.whole_pool > 0) {
    s += fmt::format("; pool members {} of {}", fmt::join(t.members, ","), t.whole_pool);
  }
  return s;
}

std::string StartNote(const LoadOptions& o, const RunResult& r) {
  if (o.start_at_unix_s <= 0) return "";
  std::string s = fmt::format("--start-at {}: measured from {} (+{:.6f} s), warm-up {:.3f} s",
                              UtcSecond(o.start_at_unix_s), UtcSecond(r.series_start_unix_s),
                              r.measured_start_unix_s - r.series_start_unix_s, r.start_warmup_s);
  if (r.series_start_unix_s > o.start_at_unix_s) {
    s += fmt::format("; LATE by {:.3f} s (its series start {:g} s after the fleet's)",
                     r.measured_start_unix_s - o.start_at_unix_s,
                     r.series_start_unix_s - o.start_at_unix_s);
  }
  return s;
}

nlohmann::ordered_json ShardJson(const LoadOptions& o) {
  if (!o.shard) return nullptr;
  const ShardTaken& t = *o.shard;
  nlohmann::ordered_json members = nlohmann::ordered_json::array();
  for (size_t i = 0; i < t.members.size(); ++i) {
    members.push_back({{"index", t.members[i]}, {"url", o.pool_target(static_cast<int>(i)).Display()}});
  }
  return {{"index", t.shard.index},          {"count", t.shard.count},
          {"key_sliced", t.key_sliced},      {"key_min", o.key_min},
          {"key_max", o.key_max},            {"whole_key_min", t.whole_key_min},
          {"whole_key_max", t.whole_key_max}, {"seed", o.seed},
          {"whole_seed", t.whole_seed},      {"rate", o.rate},
          {"whole_rate", t.whole_rate},      {"requests", o.requests},
          {"whole_requests", t.whole_requests}, {"whole_pool", t.whole_pool},
          {"members", members}};
}

nlohmann::ordered_json StartAtJson(const LoadOptions& o, const RunResult& r) {
  if (o.start_at_unix_s <= 0) return nullptr;
  return {{"requested_unix_s", o.start_at_unix_s},
          {"requested_utc", UtcSecond(o.start_at_unix_s)},
          {"series_start_unix_s", r.series_start_unix_s},
          {"measured_start_unix_s", r.measured_start_unix_s},
          {"late_s", std::max(0.0, r.measured_start_unix_s - o.start_at_unix_s)},
          {"missed_the_second", r.series_start_unix_s > o.start_at_unix_s},
          {"warmup_s", r.start_warmup_s}};
}

nlohmann::ordered_json FleetCheckJson(const LoadOptions& o, const RunResult& r) {
  if (o.fleet_check_grace_s < 0) return nullptr;
  const FleetCounts& f = r.fleet;
  nlohmann::ordered_json j = {{"recorded", f.recorded}};
  if (!f.recorded) j["reason"] = f.reason;
  j["exclusive"] = o.exclusive_server;
  j["grace_s"] = f.grace_s;
  j["before_unix_s"] = f.before_unix_s;
  j["after_unix_s"] = f.after_unix_s;
  j["before"] = f.before;
  j["after"] = f.after;
  return j;
}

}  // namespace memstand
