// RunReportJson: docs/json-format.md is its specification; change both together.
#include <unistd.h>

#include <fmt/format.h>

#include "report/json_parts.h"
#include "report/histogram_json.h"
#include "report/run_report.h"
#include "report/shard_report.h"
#include "stats/modality.h"

namespace memstand {

namespace {

using Json = nlohmann::ordered_json;

// The latency object of docs/json-format.md plus the whole histogram (every bucket:
// `memstand merge` adds them).
Json RunLatencyJson(const HdrHistogram& h, const std::vector<double>& percentiles) {
  Json j = LatencyJson(h, percentiles);
  j["histogram"] = HistogramJson(h);
  return j;
}

// DetectModes of a latency histogram (src/stats/modality.h documents the method).
Json ModalityJson(const HdrHistogram& h) {
  ModalityResult m = DetectModes(h);
  Json modes = Json::array();
  for (double v : m.mode_values) modes.push_back(v / 1000.0);
  return {{"multimodal", m.multimodal}, {"modes", m.modes}, {"mode_values_us", modes},
          {"valley_depth", m.dip_or_score}, {"samples", m.samples}, {"method", m.method}};
}

Json SamplesJson(const RunReport& rep) {
  const RunResult& r = *rep.result;
  return {{"path", rep.samples_path}, {"written", r.samples.size()}, {"seen", r.samples_seen},
          {"cap", rep.options->samples_cap}, {"reservoir", r.samples.size() < r.samples_seen}};
}

Json CommandJson(const std::string& name, const CommandStats& s, double secs,
                 const std::vector<double>& percentiles, bool hits, bool open_loop) {
  Json j;
  j["command"] = name;
  j["ops"] = s.ops;
  j["ops_per_sec"] = secs > 0 ? s.ops / secs : 0;
  j["errors"] = s.errors;
  if (hits) {
    j["hits"] = s.hits;
    j["misses"] = s.misses;
  }
  j["bytes_out"] = s.bytes_out;
  j["bytes_in"] = s.bytes_in;
  j["zero_latency"] = s.zero_latency;
  j["outcomes"] = {{"ok", s.ops - s.errors}, {"fail", s.failed}, {"unknown", s.unknown}, {"lost", s.lost}};
  Json errors = Json::object();
  for (const auto& [prefix, kind] : s.errors_by_prefix) {
    errors[prefix] = {{"count", kind.count}, {"example", kind.example}};
  }
  j["errors_by_kind"] = errors;
  j["latency"] = RunLatencyJson(s.latency_ns, percentiles);
  if (open_loop) {
    j["service_time"] = RunLatencyJson(s.service_ns, percentiles);
    j["send_lag"] = RunLatencyJson(s.send_lag_ns, percentiles);
  }
  j["modality"] = ModalityJson(s.latency_ns);
  return j;
}

Json SeriesJson(const std::vector<SeriesPoint>& points) {
  Json a = Json::array();
  for (const auto& p : points) {
    auto us = [&p](int64_t ns) { return p.percentiles_known ? Json(ns / 1000.0) : Json(nullptr); };
    Json j = {{"second", p.second},     {"ops", p.ops},           {"errors", p.errors},
              {"ok", p.ok},             {"fail", p.failed},       {"unknown", p.unknown},
              {"p50_us", us(p.p50_ns)}, {"p90_us", us(p.p90_ns)}, {"p99_us", us(p.p99_ns)},
              {"p99_9_us", us(p.p999_ns)}, {"max_us", p.max_ns / 1000.0}};
    if (p.send_lag_p99_ns >= 0) {
      j["send_lag_p99_us"] = p.send_lag_p99_ns / 1000.0;
      j["send_lag_max_us"] = p.send_lag_max_ns / 1000.0;
    }
    if (!p.latency.v2_base64.empty()) j["histogram"] = IntervalHistogramJson(p.latency);
    a.push_back(std::move(j));
  }
  return a;
}

Json OptionsJson(const LoadOptions& o) {
  Json j;
  j["threads"] = o.threads;
  j["clients_per_thread"] = o.clients;
  j["connections"] = o.connections();
  j["pipeline"] = o.pipeline;
  j["io"] = o.io == IoMode::kUring ? "uring" : "epoll";
  j["reconnect"] = o.reconnect.enabled
                       ? Json{{"backoff_min_ms", o.reconnect.backoff_min_ms},
                              {"backoff_max_ms", o.reconnect.backoff_max_ms},
                              {"max_attempts", o.reconnect.max_attempts}}
                       : Json(nullptr);
  if (!o.io_fallback.empty()) j["io_fallback"] = o.io_fallback;
  j["wait_replicas"] = o.wait.replicas > 0
                           ? Json{{"replicas", o.wait.replicas}, {"timeout_ms", o.wait.timeout_ms}}
                           : Json(nullptr);
  j["resp"] = o.resp;
  j["cluster"] = o.cluster;
  j["read_from_replicas"] = o.read_from_replicas;
  j["requests"] = o.requests;
  j["duration_s"] = o.duration_s;
  j["warmup_s"] = o.warmup_s;
  j["loop"] = o.rate > 0 ? "open" : "closed";
  j["rate_per_s"] = o.rate;
  j["arrival"] = o.rate > 0 ? Json(o.poisson ? "poisson" : "constant") : Json(nullptr);
  j["schedule"] = o.rate > 0 ? Json(o.schedule_per_thread ? "per-thread" : "per-connection") : Json(nullptr);
  j["spin_us"] = o.rate > 0 ? Json(o.spin_ns / 1e3) : Json(nullptr);
  j["realtime_priority"] = o.realtime_priority;
  j["cpus"] = o.cpus;
  j["key_prefix"] = o.key_prefix;
  j["key_min"] = o.key_min;
  j["key_max"] = o.key_max;
  j["value_min_size"] = o.value.min_size;
  j["value_max_size"] = o.value.max_size;
  const char* content[] = {"pattern", "random", "compressible"};
  j["value_content"] = content[static_cast<int>(o.value.content)];
  if (o.value.content == ValueSpec::Content::kCompressible) j["compress_ratio"] = o.value.compress_ratio;
  j["seed"] = o.seed;
  Json cmds = Json::array();
  for (const auto& c : o.commands) {
    const char* pattern[] = {"R", "S", "G", "Z", "P"};
    cmds.push_back({{"label", c.label}, {"name", c.tmpl.name}, {"weight", c.weight},
                    {"key_pattern", pattern[static_cast<int>(c.key_pattern.kind)]}});
  }
  j["commands"] = cmds;
  if (o.protocol == Protocol::kIproto) j["call_errors"] = iproto::CallErrorsName(o.call_errors);
  return j;
}

Json ClientJson(const RunResult& r) {
  Json j;
  uint64_t ops = r.measured_ops();
  j["cpu_user_s"] = r.totals.cpu_user_s;
  j["cpu_sys_s"] = r.totals.cpu_sys_s;
  j["cpu_us_per_request"] = ops > 0 ? r.client_cpu_s() * 1e6 / ops : 0;
  j["process_cpu_s"] = r.process_cpu_user_s + r.process_cpu_sys_s;
  j["read_calls"] = r.totals.read_calls;
  j["write_calls"] = r.totals.write_calls;
  j["wait_calls"] = r.totals.wait_calls;
  j["receive_buffer_waits"] = r.totals.receive_buffer_waits;
  j["socket_bytes_read"] = r.totals.socket_bytes_read;
  j["socket_bytes_written"] = r.totals.socket_bytes_written;
  j["cpus"] = r.totals.cpus;
  j["other_threads_cpus"] = r.other_threads_cpus;
  Json threads = Json::array();
  for (const auto& t : r.threads) {
    threads.push_back({{"cpu_user_s", t.cpu_user_s}, {"cpu_sys_s", t.cpu_sys_s},
                       {"core_share", r.measured_s > 0 ? (t.cpu_user_s + t.cpu_sys_s) / r.measured_s : 0},
                       {"spin_s", t.spin_s}, {"spin_share", r.measured_s > 0 ? t.spin_s / r.measured_s : 0},
                       {"spin_polls", t.spin_polls},
                       {"realtime_priority", t.realtime_priority}, {"cpus", t.cpus}});
  }
  j["threads"] = threads;
  return j;
}

Json ServerJson(const RunReport& rep) {
  const RunResult& r = *rep.result;
  Json j;
  j["url"] = rep.options->target.Display();
  j["transport"] = rep.options->target.unix_path.empty() ? "tcp" : "unix";
  j["tls"] = rep.options->tls.enabled;
  if (!r.tls_session.empty()) j["tls_session"] = r.tls_session;
  j["protocol"] = ProtocolName(rep.options->protocol);
  j["started_by_memstand"] = rep.server_started;
  if (rep.server_started) j["pid"] = rep.server_pid;
  j["note"] = rep.server_note;
  j["redis_version"] = rep.options->protocol == Protocol::kResp ? r.server_version : "";
  j["version"] = r.server_version;
  if (r.server_cpu_known) {
    uint64_t ops = r.measured_ops();
    double cpu = r.server_cpu_user_s + r.server_cpu_sys_s;
    j["cpu_user_s"] = r.server_cpu_user_s;
    j["cpu_sys_s"] = r.server_cpu_sys_s;
    j["cpu_us_per_request"] = ops > 0 ? cpu * 1e6 / ops : 0;
  }
  if (rep.server_proc_known) {
    j["proc_cpu_s"] = rep.server_proc_cpu_s;
    j["proc_cpu_us_per_request"] =
        r.measured_ops() > 0 ? rep.server_proc_cpu_s * 1e6 / r.measured_ops() : 0;
  }
  return j;
}

Json PoolJson(const LoadOptions& o, const RunResult& r) {
  Json targets = Json::array();
  for (const PoolMemberResult& m : r.pool) {
    Json counts = Json::object();
    for (const auto& [name, n] : m.server_counts) counts[name] = n;
    targets.push_back({{"url", m.url}, {"connections", m.connections}, {"server_counts", counts}});
  }
  return {{"balance", BalanceName(o.balance)}, {"targets", targets}};
}

Json CrossCheckJson(const CrossCheck& cc) {
  Json j;
  j["available"] = cc.available;
  if (!cc.available) j["reason"] = cc.unavailable_reason;
  j["mismatch"] = cc.mismatch;
  j["enforced"] = cc.enforced;
  Json rows = Json::array();
  for (const auto& row : cc.rows) {
    Json one = {{"command", row.command}, {"memstand", row.memstand}, {"server", row.server}};
    if (row.unknown > 0) one["unknown"] = row.unknown;
    rows.push_back(std::move(one));
  }
  j["commands"] = rows;
  if (cc.server_restarted) j["server_restarted"] = true;
  return j;
}

// --reconnect, or a run with outages: what the faults cost (docs/faults.md).
Json AvailabilityJson(const LoadOptions& o, const Availability& a) {
  Json j;
  j["connections_lost"] = a.connections_lost;
  j["reconnects"] = a.reconnects;
  j["reconnect_failures"] = a.reconnect_failures;
  if (!a.first_loss.empty()) j["first_loss"] = a.first_loss;
  Json commands = Json::object();
  for (size_t i = 0; i < a.commands.size() && i < o.commands.size(); ++i) {
    const CommandAvailability& c = a.commands[i];
    Json longest = Json::array();
    for (const CommandOutage& x : c.longest) {
      longest.push_back({{"start_s", x.start_s}, {"length_s", x.length_s}, {"recovered", x.recovered},
                         {"fail", x.failed}, {"unknown", x.unknown}});
    }
    commands[o.commands[i].label] = {
        {"outages", c.outages}, {"unavailable_s", c.unavailable_s}, {"longest", longest}};
    if (!c.exact) commands[o.commands[i].label]["exact"] = false;  // memstand merge: upper bounds
  }
  j["commands"] = commands;
  Json seconds = Json::array();
  for (const SecondsOutage& s : a.seconds) {
    seconds.push_back({{"first_second", s.first_second}, {"seconds", s.seconds}, {"fail", s.failed},
                       {"unknown", s.unknown}, {"recovered", s.recovered}});
  }
  j["seconds_without_ok"] = seconds;
  return j;
}

Json ResourcesJson(const std::vector<ResourceSeries>& resources) {
  Json a = Json::array();
  for (const ResourceSeries& s : resources) {
    const ResourceSummary sum = Summarize(s);
    Json points = Json::array();
    for (const ResourcePoint& p : s.points) {
      points.push_back({{"t_s", p.t_s}, {"cpu_user_s", p.cpu_user_s}, {"cpu_sys_s", p.cpu_sys_s},
                        {"rss_bytes", p.rss_bytes}, {"read_bytes", p.read_bytes},
                        {"write_bytes", p.write_bytes}});
    }
    a.push_back({{"label", s.process.label},
                 {"pid", s.process.pid == 0 ? getpid() : s.process.pid},
                 {"ended", s.ended.empty() ? Json(nullptr) : Json(s.ended)},
                 {"summary", {{"seconds", sum.seconds}, {"cpu_s", sum.cpu_s},
                              {"cpu_share_mean", sum.cpu_share_mean},
                              {"cpu_share_max", sum.cpu_share_max}, {"rss_mean_bytes", sum.rss_mean},
                              {"rss_max_bytes", sum.rss_max}, {"read_bytes", sum.read_bytes},
                              {"write_bytes", sum.write_bytes}}},
                 {"points", points}});
  }
  return a;
}

}  // namespace

nlohmann::ordered_json RunReportJson(const RunReport& rep) {
  const RunResult& r = *rep.result;
  const LoadOptions& o = *rep.options;
  Json j;
  j["schema"] = "memstand.run";
  j["version"] = kRunJsonVersion;
  j["memstand_version"] = MEMSTAND_VERSION;
  j["started_at"] = r.started_at;
  j["verdict"] = rep.verdict;
  j["exit_code"] = rep.exit_code;
  j["interrupted"] = r.interrupted;
  j["failure"] = r.failure.ok() ? Json(nullptr) : Json(r.failure.message());
  j["warnings"] = rep.warnings;
  j["platform"] = PlatformJson(rep.platform);
  j["server"] = ServerJson(rep);
  j["options"] = OptionsJson(o);
  if (o.shard) j["shard"] = ShardJson(o);
  if (o.start_at_unix_s > 0) j["start_at"] = StartAtJson(o, r);
  if (o.fleet_check_grace_s >= 0) j["fleet_check"] = FleetCheckJson(o, r);
  j["measured_s"] = r.measured_s;
  Json cmds = Json::array();
  bool any_hits = false;
  for (size_t i = 0; i < o.commands.size(); ++i) {
    cmds.push_back(CommandJson(o.commands[i].label, r.totals.commands[i], r.measured_s,
                               o.percentiles, o.commands[i].counts_hits, o.rate > 0));
    any_hits |= o.commands[i].counts_hits;
  }
  j["commands"] = cmds;
  j["totals"] = CommandJson("Total", r.AllCommands(), r.measured_s, o.percentiles, any_hits,
                            o.rate > 0);
  j["latency_from"] = o.rate > 0 ? "intended_send" : "actual_send";
  if (o.rate > 0) {
    j["schedule"] = {{"requested_per_s", o.rate},
                     {"achieved_per_s", AchievedRate(o, r)},
                     {"below_99pct_of_requested", RateFellShort(o, r)},
                     {"unsent_intended", r.totals.unsent_intended},
                     {"measured_sent", r.totals.measured_sent},
                     {"send_span_s", r.send_span_s}};
  }
  Json series = Json::object();
  for (size_t i = 0; i < r.series.size(); ++i) {
    series[i < o.commands.size() ? o.commands[i].label : "Total"] = SeriesJson(r.series[i]);
  }
  j["series"] = series;
  // Second i of every series covers [series_start_unix_s + i, + 1): with --start-at a
  // whole wall-clock second (the threads started within start_at.measured_start_unix_s).
  j["series_start_unix_s"] = o.start_at_unix_s > 0 ? r.series_start_unix_s : r.measured_start_unix_s;
  j["validity"] = ValidityJson(rep.validity);
  j["unanswered"] = r.unanswered;
  j["connection_errors"] = r.totals.connection_errors;
  j["protocol_errors"] = r.totals.protocol_errors;
  if (o.cluster) {
    j["cluster"] = {{"masters", r.cluster_masters},
                    {"replicas_read", r.cluster_replicas},
                    {"moved", r.totals.cluster_moved},
                    {"ask", r.totals.cluster_ask},
                    {"tryagain", r.totals.cluster_tryagain},
                    {"map_reads", r.cluster_map_reads},
                    {"map_reads_moved", r.cluster_map_reads_moved},
                    {"connections_opened", r.totals.cluster_connections_opened}};
  }
  if (o.target.sentinel()) {
    const SentinelResult& st = r.sentinel;
    Json changes = Json::array();
    for (const SentinelResult::Change& c : st.changes) changes.push_back({{"unix_s", c.unix_s}, {"primary", c.primary}});
    j["sentinel"] = {{"master_name", st.master_name},
                     {"sentinels", st.sentinels},
                     {"primary_at_start", st.primary_at_start},
                     {"changes", changes},
                     {"queries", st.queries},
                     {"failed_queries", st.failed_queries}};
    if (!st.last_failure.empty()) j["sentinel"]["last_failure"] = st.last_failure;
  }
  if (!r.pool.empty()) j["pool"] = PoolJson(o, r);
  j["client"] = ClientJson(r);
  j["cross_check"] = CrossCheckJson(r.cross_check);
  if (o.reconnect.enabled || r.availability.any()) j["availability"] = AvailabilityJson(o, r.availability);
  j["resources"] = ResourcesJson(rep.resources);
  if (!rep.samples_path.empty()) j["samples"] = SamplesJson(rep);
  if (!rep.options->history_path.empty()) {
    j["history"] = {{"path", rep.options->history_path}, {"records", rep.result->history_records}};
  }
  return j;
}

}  // namespace memstand
