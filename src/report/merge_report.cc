// `memstand merge`: the fleet check, the verdict and the outputs (merge.h).
#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/merge.h"
#include "report/merge_check.h"

namespace memstand {

namespace {

using Json = nlohmann::ordered_json;

constexpr double kSaturatedCoreShare = 0.9;  // as `memstand run`'s client warning

std::string ShardName(const ShardFigures& f, size_t count) {
  return f.index < 0 ? f.path : fmt::format("shard {}/{}", f.index, count);
}

int64_t CounterDelta(const Json& fleet, const std::string& name) {
  auto value = [&](const char* which) -> int64_t {
    const Json& m = fleet.value(which, Json::object());
    return m.contains(name) ? m[name].get<int64_t>() : 0;
  };
  return value("after") - value("before");
}

// The counters the fleet check compares: RESP, the mix's commands (each shard's control
// INFO/HELLO may fall on either side of the recording shard's first read); other
// protocols, the counters the shards' own cross-checks compared, but AUTH (set-up).
std::set<std::string> CheckedCounters(const std::vector<MergeInput>& inputs) {
  std::set<std::string> names;
  if (inputs.front().doc["server"].value("protocol", "resp") == "resp") {
    for (const Json& c : inputs.front().doc["options"]["commands"]) {
      std::string n = c.value("name", "");
      std::transform(n.begin(), n.end(), n.begin(), [](unsigned char ch) { return std::tolower(ch); });
      names.insert(n);
    }
    return names;
  }
  for (const MergeInput& in : inputs) {
    for (const Json& r : in.doc["cross_check"].value("commands", Json::array())) {
      if (r.value("command", "") != "AUTH") names.insert(r.value("command", ""));
    }
  }
  return names;
}

// The target each input named, when they differ. Refusing would be wrong: the run JSON
// records no identity of the server, and a shard on another host may rightly reach the
// same server by another address, or a cluster through another node; so a warning, and
// block [1] says which targets were named rather than "shared".
void WarnTargets(const std::vector<MergeInput>& inputs, RunReport* rep) {
  std::vector<std::string> named;
  std::set<std::string> distinct;
  for (const MergeInput& in : inputs) {
    const std::string url = in.doc["server"].value("url", "");
    distinct.insert(url);
    named.push_back(fmt::format("{} ({})", url, in.path));
  }
  if (distinct.size() < 2) return;
  rep->server_note = fmt::format("the {} merged runs named {} different targets: {}", inputs.size(),
                                 distinct.size(), fmt::join(named, ", "));
  rep->warnings.push_back(fmt::format(
      "the runs named {} different targets ({}): merge cannot tell one server reached by "
      "other addresses from different servers; if they were different, the fleet's figures "
      "and its cross-check are not one server's",
      distinct.size(), fmt::join(distinct, ", ")));
}

// Runs whose measured windows do not overlap (or hardly): the fleet's ops/s divides the
// sum of the counts by a window in which not every run was sending.
constexpr double kMinOverlapShare = 0.9;

void WarnWindows(const std::vector<MergeInput>& inputs, RunReport* rep) {
  if (inputs.size() < 2) return;
  double first_start = 1e300, last_start = -1e300, first_end = 1e300, last_end = -1e300;
  for (const MergeInput& in : inputs) {
    const double start = merge_internal::MeasuredStart(in.doc);
    const double end = start + in.doc.value("measured_s", 0.0);
    first_start = std::min(first_start, start);
    last_start = std::max(last_start, start);
    first_end = std::min(first_end, end);
    last_end = std::max(last_end, end);
  }
  const double common = first_end - last_start, whole = last_end - first_start;
  if (common <= 0) {
    rep->warnings.push_back(fmt::format(
        "the runs' measured windows do not overlap (the last started {:.1f} s after the first "
        "ended): they did not load the server together, and the fleet's ops/s is over {:.1f} s "
        "in which not every run was sending (use one --start-at)",
        -common, whole));
  } else if (whole > 0 && common < kMinOverlapShare * whole) {
    rep->warnings.push_back(fmt::format(
        "the runs' measured windows overlap for {:.1f} s of the merged {:.1f} s: the fleet's "
        "ops/s is over a window in which not every run was sending (use one --start-at)",
        common, whole));
  }
}

}  // namespace

namespace merge_internal {

// The server's counters over the fleet's window, from the input that recorded them
// (--fleet-check), against every shard's sends of the mix's commands.
void FleetCheckOf(const std::vector<MergeInput>& inputs, FleetCheck* fc) {
  const Json* fleet = nullptr;
  for (const MergeInput& in : inputs) {
    if (in.doc.contains("fleet_check")) fleet = &in.doc["fleet_check"];
  }
  if (fleet == nullptr) {
    fc->reason = "no input recorded the server's counters over the fleet's window "
                 "(run one shard with --fleet-check)";
    return;
  }
  if (!fleet->value("recorded", false)) {
    fc->reason = fleet->value("reason", "the recording shard could not read the counters");
    return;
  }
  fc->available = true;
  fc->enforced = fleet->value("exclusive", false);
  std::set<std::string> names = CheckedCounters(inputs);
  for (const std::string& name : names) {
    CrossCheckRow row{name, 0, CounterDelta(*fleet, name)};
    for (const MergeInput& in : inputs) {
      for (const Json& r : in.doc["cross_check"].value("commands", Json::array())) {
        if (r.value("command", "") == name) row.memstand += r.value("memstand", int64_t{0});
      }
    }
    fc->mismatch |= row.memstand != row.server;
    fc->rows.push_back(row);
  }
}

void Judge(MergedRun* m, const std::vector<MergeInput>& inputs) {
  RunReport& rep = m->report;
  rep.options = &m->options;
  rep.result = &m->result;
  const Json& p = inputs.front().doc.value("platform", Json::object());
  rep.platform.hostname = p.value("hostname", "");
  rep.platform.kernel = p.value("kernel", "");
  rep.platform.arch = p.value("arch", "");
  rep.platform.cpu_model = p.value("cpu_model", "");
  rep.platform.cpus = p.value("cpus", 0);
  rep.platform.hypervisor = p.value("hypervisor", false);
  rep.platform.memory_bytes = p.value("memory_bytes", int64_t{0});
  rep.platform.clock_resolution_ns = p.value("clock_resolution_ns", int64_t{0});
  rep.server_note = fmt::format("shared by the {} merged runs", inputs.size());
  m->result.cross_check.available = m->fleet.available;
  m->result.cross_check.unavailable_reason = m->fleet.reason;
  m->result.cross_check.rows = m->fleet.rows;
  m->result.cross_check.mismatch = m->fleet.mismatch;
  m->result.cross_check.enforced = m->fleet.enforced;
  const uint64_t count = inputs.front().doc.contains("shard")
                             ? inputs.front().doc["shard"].value("count", uint64_t{0})
                             : 0;
  std::vector<std::string> not_ok;
  for (const ShardFigures& f : m->shards) {
    const std::string name = ShardName(f, count);
    if (f.verdict != "OK") not_ok.push_back(name + ": " + f.verdict);
    if (f.max_core_share >= kSaturatedCoreShare) {
      rep.warnings.push_back(name + ": a load thread used >= 90% of a core: that shard's client "
                             "may be the bottleneck");
    }
  }
  for (const MergeInput& in : inputs) {
    if (!in.doc.contains("start_at")) {
      rep.warnings.push_back(in.path + ": no --start-at; its series is aligned to the second "
                             "nearest its measured start");
    } else if (in.doc["start_at"].value("missed_the_second", false)) {
      rep.warnings.push_back(fmt::format("{}: started late by {:.3f} s (missed the fleet's second)",
                                         in.path, in.doc["start_at"].value("late_s", 0.0)));
    }
  }
  WarnTargets(inputs, &rep);
  WarnWindows(inputs, &rep);
  if (m->fleet.available && m->fleet.mismatch && !m->fleet.enforced) {
    rep.warnings.push_back("the fleet's command counts differ from the server's (another client?)");
  }
  rep.exit_code = 0;
  rep.verdict = "OK";
  if (count > 0 && m->shards.size() < count) {
    rep.exit_code = 1;
    rep.verdict = fmt::format("FAILED: {} of {} shards given: the fleet's result is partial",
                              m->shards.size(), count);
  } else if (!not_ok.empty()) {
    rep.exit_code = 1;
    rep.verdict = fmt::format("FAILED: {} of {} runs did not end OK ({})", not_ok.size(),
                              m->shards.size(), fmt::join(not_ok, "; "));
  } else if (m->fleet.available && m->fleet.mismatch && m->fleet.enforced) {
    rep.exit_code = 1;
    rep.verdict = "FAILED: the server's command counts over the fleet's window differ from the "
                  "shards' (exclusive server)";
  }
}

}  // namespace merge_internal

Json MergedJson(const MergedRun& m) {
  Json j = RunReportJson(m.report);
  j["series_start_unix_s"] = m.result.series_start_unix_s;
  j.erase("resources");
  Json shards = Json::array();
  for (const ShardFigures& f : m.shards) {
    shards.push_back({{"path", f.path}, {"index", f.index}, {"hostname", f.hostname},
                      {"ops", f.ops}, {"ops_per_sec", f.ops_per_s}, {"p99_us", f.p99_us},
                      {"client_cpu_s", f.client_cpu_s}, {"max_core_share", f.max_core_share},
                      {"late_s", f.late_s}, {"verdict", f.verdict}});
  }
  j["merge"] = {{"inputs", m.inputs},
                {"shards", shards},
                {"fleet_check_available", m.fleet.available},
                {"notes",
                 {"histograms are the sums of the inputs' (exact: percentiles are those of one "
                  "histogram of every request)",
                  "series: ops, errors and max_us summed/maxed by wall-clock second; the "
                  "per-second histograms added too, so the per-second percentiles are exact "
                  "(null where an input carried no per-second histogram)",
                  "server CPU is not summed (the shards share the server); client CPU is",
                  "availability: lost connections summed; each command's outages joined on the wall "
                  "clock where they overlap (exact: false where a shard listed only its longest: "
                  "outages and unavailable_s are then upper bounds); seconds_without_ok found again "
                  "in the merged series"}}};
  return j;
}

void PrintMergeReport(std::FILE* out, const MergedRun& m) {
  PrintTextReport(out, m.report, false);
  fmt::print(out, "\n[9] Shards ({} runs merged; histograms added bucket by bucket)\n", m.shards.size());
  fmt::print(out, "    {:<12} {:<16} {:>10} {:>11} {:>9} {:>12} {:>11} {:>8}  {}\n", "shard", "host",
             "ops", "ops/s", "p99 µs", "client CPU s", "busiest thr", "late s", "verdict");
  for (const ShardFigures& f : m.shards) {
    fmt::print(out, "    {:<12} {:<16} {:>10} {:>11.1f} {:>9.1f} {:>12.3f} {:>10.0f}% {:>8.3f}  {}\n",
               f.index < 0 ? std::string("-") : fmt::format("{}", f.index), f.hostname.substr(0, 16),
               f.ops, f.ops_per_s, f.p99_us, f.client_cpu_s, f.max_core_share * 100, f.late_s,
               f.verdict);
  }
  std::fflush(out);
}

}  // namespace memstand
