#include "report/merge.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "report/histogram_json.h"
#include "report/merge_availability.h"
#include "report/merge_check.h"
#include "report/merge_series.h"

namespace memstand {

static_assert(merge_internal::kMergeableVersion == kRunJsonVersion, "merge reads the version run writes");

namespace {

using Json = nlohmann::ordered_json;

double Num(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0;
}
uint64_t Count(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<uint64_t>() : 0;
}

Status AddHistogram(const Json& latency, HdrHistogram* into) {
  auto h = HistogramFromJson(latency["histogram"]);
  if (!h.ok()) return h.status();
  into->Add(*h);
  return Status::OK();
}

Status AddCommand(const Json& c, CommandStats* s) {
  s->ops += Count(c, "ops");
  s->errors += Count(c, "errors");
  s->hits += Count(c, "hits");
  s->misses += Count(c, "misses");
  s->bytes_out += Count(c, "bytes_out");
  s->bytes_in += Count(c, "bytes_in");
  s->zero_latency += Count(c, "zero_latency");
  if (c.contains("outcomes") && c["outcomes"].is_object()) {
    s->failed += Count(c["outcomes"], "fail");
    s->unknown += Count(c["outcomes"], "unknown");
    s->lost += Count(c["outcomes"], "lost");
  }
  const Json kinds = c.value("errors_by_kind", Json::object());
  for (const auto& [prefix, kind] : kinds.items()) {
    ErrorKind& mine = s->errors_by_prefix[prefix];
    if (mine.count == 0) mine.example = kind.value("example", "");
    mine.count += Count(kind, "count");
  }
  Status st = AddHistogram(c["latency"], &s->latency_ns);
  if (st.ok() && c.contains("service_time")) st = AddHistogram(c["service_time"], &s->service_ns);
  if (st.ok() && c.contains("send_lag")) st = AddHistogram(c["send_lag"], &s->send_lag_ns);
  return st;
}

// The fleet's options: the first input's, with the fleet's key range, seed, rate and
// requests, and every shard's threads.
void FleetOptions(const std::vector<MergeInput>& inputs, LoadOptions* o) {
  const Json& d = inputs.front().doc;
  const Json& j = d["options"];
  o->clients = j.value("clients_per_thread", 1);
  o->pipeline = j.value("pipeline", 1);
  o->resp = j.value("resp", 2);
  o->threads = 0;
  double rate = 0;
  uint64_t requests = 0;
  for (const MergeInput& in : inputs) {
    o->threads += in.doc["options"].value("threads", 1);
    rate += Num(in.doc["options"], "rate_per_s");
    requests += Count(in.doc["options"], "requests");
  }
  o->rate = rate;
  o->requests = requests;
  o->duration_s = Num(j, "duration_s");
  o->warmup_s = Num(j, "warmup_s");
  o->poisson = j.value("arrival", Json()) == "poisson";
  o->schedule_per_thread = j.value("schedule", Json()) == "per-thread";
  o->key_prefix = j.value("key_prefix", "");
  o->key_min = Count(j, "key_min");
  o->key_max = Count(j, "key_max");
  o->seed = Count(j, "seed");
  if (d.contains("shard")) {
    const Json& s = d["shard"];
    o->key_min = Count(s, "whole_key_min");
    o->key_max = Count(s, "whole_key_max");
    o->seed = Count(s, "whole_seed");
  }
  o->value.min_size = Count(j, "value_min_size");
  o->value.max_size = Count(j, "value_max_size");
  const std::string content = j.value("value_content", "pattern");
  o->value.content = content == "random"         ? ValueSpec::Content::kRandom
                     : content == "compressible" ? ValueSpec::Content::kCompressible
                                                 : ValueSpec::Content::kPattern;
  o->value.compress_ratio = j.value("compress_ratio", 1.0);
  o->cluster = j.value("cluster", false);
  if (j.contains("reconnect") && j["reconnect"].is_object()) {  // every input's (WorkloadOf)
    const Json& r = j["reconnect"];
    o->reconnect.enabled = true;
    o->reconnect.backoff_min_ms = r.value("backoff_min_ms", o->reconnect.backoff_min_ms);
    o->reconnect.backoff_max_ms = r.value("backoff_max_ms", o->reconnect.backoff_max_ms);
    o->reconnect.max_attempts = r.value("max_attempts", o->reconnect.max_attempts);
  }
  if (auto p = ParseProtocol(d["server"].value("protocol", "resp")); p.ok()) o->protocol = *p;
  if (auto t = ParseTargetUrl(d["server"].value("url", "")); t.ok()) o->target = *t;
  o->percentiles.clear();
  for (const auto& [key, v] : d["totals"]["latency"]["percentiles_us"].items()) {
    o->percentiles.push_back(std::strtod(key.c_str(), nullptr));  // numbers (CheckMergeable)
  }
  const Json& cmds = d["commands"];
  for (size_t i = 0; i < j["commands"].size(); ++i) {
    const Json& c = j["commands"][i];
    CommandSpec spec;
    spec.label = c.value("label", "");
    spec.tmpl.name = c.value("name", "");
    spec.weight = c.value("weight", 1u);
    const std::string pattern = c.value("key_pattern", "R");
    if (auto k = ParseKeyPattern(pattern); k.ok()) spec.key_pattern = *k;
    spec.counts_hits = i < cmds.size() && cmds[i].contains("hits");
    o->commands.push_back(spec);
  }
}

ShardFigures Figures(const MergeInput& in) {
  const Json& d = in.doc;
  ShardFigures f;
  f.path = in.path;
  f.hostname = d.value("platform", Json::object()).value("hostname", "");
  if (d.contains("shard")) f.index = d["shard"].value("index", int64_t{-1});
  f.ops = Count(d["totals"], "ops");
  f.ops_per_s = Num(d["totals"], "ops_per_sec");
  f.p99_us = Num(d["totals"]["latency"]["percentiles_us"], "99");
  const Json& client = d["client"];
  f.client_cpu_s = Num(client, "cpu_user_s") + Num(client, "cpu_sys_s");
  for (const Json& t : client.value("threads", Json::array())) {
    // Less --spin's polls (absent before it: 0): CPU spent on purpose, not work.
    f.max_core_share = std::max(f.max_core_share, Num(t, "core_share") - Num(t, "spin_share"));
  }
  if (d.contains("start_at")) f.late_s = Num(d["start_at"], "late_s");
  f.verdict = d.value("verdict", "");
  return f;
}

// The fleet window, CPU and counts of every input.
Status MergeResult(const std::vector<MergeInput>& inputs, const LoadOptions& o, RunResult* r) {
  r->totals = ThreadStats(o.commands.size());
  double start = 1e300, end = 0, last_send = 0;
  for (const MergeInput& in : inputs) {
    const Json& d = in.doc;
    for (size_t i = 0; i < o.commands.size(); ++i) {
      Status s = AddCommand(d["commands"][i], &r->totals.commands[i]);
      if (!s.ok()) return s.WithContext(in.path);
    }
    const double s0 = merge_internal::MeasuredStart(d);
    start = std::min(start, s0);
    end = std::max(end, s0 + Num(d, "measured_s"));
    if (d.contains("schedule")) {
      r->totals.measured_sent += Count(d["schedule"], "measured_sent");
      r->totals.unsent_intended += Count(d["schedule"], "unsent_intended");
      last_send = std::max(last_send, s0 + Num(d["schedule"], "send_span_s"));
    }
    r->unanswered += Count(d, "unanswered");
    r->totals.connection_errors += Count(d, "connection_errors");
    r->totals.protocol_errors += Count(d, "protocol_errors");
    const Json& c = d["client"];
    r->totals.cpu_user_s += Num(c, "cpu_user_s");
    r->totals.cpu_sys_s += Num(c, "cpu_sys_s");
    r->totals.read_calls += Count(c, "read_calls");
    r->totals.write_calls += Count(c, "write_calls");
    r->totals.wait_calls += Count(c, "wait_calls");
    r->totals.socket_bytes_read += Count(c, "socket_bytes_read");
    r->totals.socket_bytes_written += Count(c, "socket_bytes_written");
    r->process_cpu_user_s += Num(c, "process_cpu_s");
    for (const Json& t : c.value("threads", Json::array())) {
      ThreadStats ts;
      ts.cpu_user_s = Num(t, "cpu_user_s");
      ts.cpu_sys_s = Num(t, "cpu_sys_s");
      r->threads.push_back(ts);
    }
    r->interrupted |= d.value("interrupted", false);
    if (r->failure.ok() && d.contains("failure") && d["failure"].is_string()) {
      r->failure = Status::Failed(in.path + ": " + d["failure"].get<std::string>());
    }
    if (r->started_at.empty() || d.value("started_at", "") < r->started_at) {
      r->started_at = d.value("started_at", "");
    }
  }
  r->measured_start_unix_s = start;
  r->measured_s = end > start ? end - start : 0;
  r->send_span_s = last_send > start ? last_send - start : 0;
  r->server_version = inputs.front().doc["server"].value("version", "");
  Status s = merge_internal::MergeSeries(inputs, o, r);
  if (s.ok()) merge_internal::MergeAvailability(inputs, o, r);
  return s;
}

}  // namespace

namespace merge_internal {

double MeasuredStart(const Json& d) {
  if (d.contains("start_at")) return Num(d["start_at"], "measured_start_unix_s");
  return Num(d, "series_start_unix_s");
}

void FleetCheckOf(const std::vector<MergeInput>& inputs, FleetCheck* fc);
void Judge(MergedRun* m, const std::vector<MergeInput>& inputs);
}  // namespace merge_internal

Result<std::unique_ptr<MergedRun>> MergeRuns(const std::vector<MergeInput>& inputs) {
  Status s = merge_internal::CheckMergeable(inputs);
  if (!s.ok()) return s;
  auto m = std::make_unique<MergedRun>();
  FleetOptions(inputs, &m->options);
  s = MergeResult(inputs, m->options, &m->result);
  if (!s.ok()) return Status::InvalidArgument(s.message());
  for (const MergeInput& in : inputs) {
    m->shards.push_back(Figures(in));
    m->inputs.push_back(in.path);
  }
  std::sort(m->shards.begin(), m->shards.end(),
            [](const ShardFigures& a, const ShardFigures& b) { return a.index < b.index; });
  merge_internal::FleetCheckOf(inputs, &m->fleet);
  merge_internal::Judge(m.get(), inputs);
  return m;
}

}  // namespace memstand
