#include "report/run_sections.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "report/json_fields.h"
#include "report/platform.h"

namespace memstand {
namespace {

using nlohmann::json;
using Column = std::vector<std::optional<double>>;
using Points = std::vector<std::pair<double, std::optional<double>>>;

std::string Stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// A value a log axis can draw: positive, else a gap.
std::optional<double> Positive(std::optional<double> v) { return v && *v > 0 ? v : std::nullopt; }

// The command labels of the per-second series, in the document's order, "Total" last.
std::vector<std::string> SeriesLabels(const json& doc) {
  std::vector<std::string> labels;
  for (const json& c : Array(doc, "commands")) labels.push_back(Text(c, "command"));
  labels.push_back("Total");
  std::vector<std::string> present;
  for (const std::string& l : labels) {
    if (Field(Field(doc, "series"), l).is_array()) present.push_back(l);
  }
  return present;
}

Chart OpsPerSecond(const json& doc) {
  Chart c;
  c.title = "Throughput per second";
  c.caption =
      "Replies to measured requests in each second of the measured phase, per command and in "
      "total (JSON \"series\"; the last second may be partial).";
  c.x = Axis("second of the measured phase", "s");
  c.x.integer = true;
  c.y = Axis("replies in the second", "ops/s");
  std::vector<Points> points;
  for (const std::string& label : SeriesLabels(doc)) {
    c.series.push_back(label);
    Points p;
    for (const json& s : Array(Field(doc, "series"), label)) {
      if (auto x = Number(s, "second")) p.emplace_back(*x, Number(s, "ops"));
    }
    points.push_back(std::move(p));
  }
  c.data = JoinOnX(points);
  return c;
}

Chart LatencyPerSecond(const json& doc, const std::string& label) {
  Chart c;
  c.title = "Latency per second: " + label;
  c.caption = fmt::format(
      "p50, p99 and max latency of {} in each second of the measured phase (JSON "
      "\"series\", latency from the {}).",
      label == "Total" ? "all commands" : label,
      Text(doc, "latency_from") == "intended_send" ? "intended send time (open loop)"
                                                   : "actual send");
  c.x = Axis("second of the measured phase", "s");
  c.x.integer = true;
  c.y = Axis("latency", "µs", true);
  c.series = {"p50", "p99", "max"};
  c.data.resize(4);
  for (const json& s : Array(Field(doc, "series"), label)) {
    auto x = Number(s, "second");
    if (!x) continue;
    c.data[0].push_back(x);
    c.data[1].push_back(Positive(Number(s, "p50_us")));
    c.data[2].push_back(Positive(Number(s, "p99_us")));
    c.data[3].push_back(Positive(Number(s, "max_us")));
  }
  return c;
}

// Percentile q (in percent) at x = 1 / (1 - q/100), HdrHistogram's plot.
std::vector<std::pair<double, std::string>> PercentileKeys(const json& latency) {
  std::vector<std::pair<double, std::string>> keys;
  const json& p = Field(latency, "percentiles_us");
  if (!p.is_object()) return keys;
  for (const auto& [k, v] : p.items()) {
    char* end = nullptr;
    const double q = std::strtod(k.c_str(), &end);
    if (end && *end == '\0' && q > 0 && q < 100 && v.is_number()) keys.emplace_back(q, k);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

Chart PercentilePlot(const std::string& title, const std::string& caption,
                     const std::vector<std::pair<std::string, const json*>>& latencies) {
  Chart c;
  c.title = title;
  c.caption =
      caption +
      " x is 1/(1-q): 10 is p90, 100 is p99, 1000 is p99.9 (HdrHistogram's plot); "
      "the points are the percentiles the run printed (--percentiles), the max is in the table.";
  c.style = "points-line";
  c.x = Axis("1/(1-q), percentile q", "", true);
  c.y = Axis("latency", "µs", true);
  std::vector<Points> points;
  for (const auto& [name, latency] : latencies) {
    c.series.push_back(name);
    Points p;
    for (const auto& [q, key] : PercentileKeys(*latency)) {
      p.emplace_back(1.0 / (1.0 - q / 100.0),
                     Positive(Number(Field(*latency, "percentiles_us"), key)));
    }
    points.push_back(std::move(p));
  }
  c.data = JoinOnX(points);
  return c;
}

std::vector<std::pair<std::string, const json*>> CommandLatencies(const json& doc) {
  std::vector<std::pair<std::string, const json*>> out;
  for (const json& c : Array(doc, "commands"))
    out.emplace_back(Text(c, "command"), &Field(c, "latency"));
  out.emplace_back("Total", &Field(Field(doc, "totals"), "latency"));
  return out;
}

// CPU share of one core per sampling interval, and RSS, of each sampled process.
void ResourceCharts(const json& doc, std::vector<Chart>* charts) {
  const json& resources = Array(doc, "resources");
  if (resources.empty()) return;
  Chart cpu, rss;
  cpu.title = "CPU over time: server and client";
  cpu.caption =
      "CPU time (user + system) of each process sampled from /proc over the run, per sampling "
      "interval, as a share of one core (1 = one core busy); intervals under 0.2 s are left "
      "out (10 ms ticks). JSON \"resources\": the server memstand started, then memstand itself.";
  cpu.x = Axis("time since the run started", "s");
  cpu.y = Axis("CPU share of one core", "cores");
  rss.title = "Resident memory over time";
  rss.caption =
      "RSS of each sampled process at the end of each sampling interval (JSON \"resources\").";
  rss.x = cpu.x;
  rss.y = Axis("resident set size", "MiB");
  std::vector<Points> cpu_points, rss_points;
  for (const json& r : resources) {
    const std::string name = Text(r, "label") + " (pid " + Text(r, "pid") + ")";
    cpu.series.push_back(name);
    rss.series.push_back(name);
    Points cp, rp;
    double prev = 0;
    for (const json& p : Array(r, "points")) {
      auto t = Number(p, "t_s");
      if (!t) continue;
      auto u = Number(p, "cpu_user_s"), s = Number(p, "cpu_sys_s"), m = Number(p, "rss_bytes");
      if (u && s && *t - prev >= 0.2) cp.emplace_back(*t, (*u + *s) / (*t - prev));
      if (m && *m >= 0) rp.emplace_back(*t, *m / (1 << 20));
      prev = *t;
    }
    cpu_points.push_back(std::move(cp));
    rss_points.push_back(std::move(rp));
  }
  cpu.data = JoinOnX(cpu_points);
  rss.data = JoinOnX(rss_points);
  charts->push_back(std::move(cpu));
  charts->push_back(std::move(rss));
}

ReportTable CommandsTable(const json& doc, const std::string& stem) {
  ReportTable t;
  t.title = "Commands";
  t.csv_name = stem + "-commands";
  t.columns = {"command", "ops", "ops/s", "errors", "min µs", "mean µs"};
  const auto keys = PercentileKeys(Field(Field(doc, "totals"), "latency"));
  for (const auto& [q, key] : keys) t.columns.push_back("p" + key + " µs");
  t.columns.push_back("max µs");
  std::vector<json> rows(Array(doc, "commands").begin(), Array(doc, "commands").end());
  rows.push_back(Field(doc, "totals"));
  for (const json& c : rows) {
    const json& l = Field(c, "latency");
    std::vector<std::string> r{
        Text(c, "command"),        Cell(Number(c, "ops")),    Cell(Number(c, "ops_per_sec")),
        Cell(Number(c, "errors")), Cell(Number(l, "min_us")), Cell(Number(l, "mean_us"))};
    for (const auto& [q, key] : keys) r.push_back(Cell(Number(Field(l, "percentiles_us"), key)));
    r.push_back(Cell(Number(l, "max_us")));
    t.rows.push_back(std::move(r));
  }
  return t;
}

TextBlock RunBlock(const json& doc) {
  TextBlock b{"Run", {}};
  const json& server = Field(doc, "server");
  const json& o = Field(doc, "options");
  b.lines.push_back("verdict: " + Text(doc, "verdict") + " (exit code " + Text(doc, "exit_code") +
                    ")");
  b.lines.push_back(fmt::format("started {} by memstand {}; measured {} s", Text(doc, "started_at"),
                                Text(doc, "memstand_version"), Cell(Number(doc, "measured_s"))));
  b.lines.push_back(fmt::format(
      "server {} ({} {}){}", Text(server, "url"), Text(server, "protocol"), Text(server, "version"),
      Field(server, "started_by_memstand") == true ? ", started by memstand" : ""));
  b.lines.push_back(
      fmt::format("{} threads x {} clients, pipeline {}, {} loop{}, io {}", Text(o, "threads"),
                  Text(o, "clients_per_thread"), Text(o, "pipeline"), Text(o, "loop"),
                  Text(o, "loop") == "open" ? " at " + Text(o, "rate_per_s") + " requests/s" : "",
                  Text(o, "io")));
  b.lines.push_back(fmt::format("values {}..{} bytes, {}", Text(o, "value_min_size"),
                                Text(o, "value_max_size"), Text(o, "value_content")));
  if (!Text(doc, "failure").empty()) b.lines.push_back("failure: " + Text(doc, "failure"));
  for (const json& w : Array(doc, "warnings"))
    b.lines.push_back("warning: " + (w.is_string() ? w.get<std::string>() : w.dump()));
  return b;
}

std::string RangeLabel(const char* what, const json& range) {
  return fmt::format("{} {} (N={})", what, Cell(Number(range, what)), Text(range, "n"));
}

// A summary figure's value in one run's <command> object: "ops_per_sec", "max_us", or a
// percentile "pQ_us" (latency.percentiles_us["Q"]).
std::optional<double> RunFigure(const json& command, const std::string& key) {
  if (key == "ops_per_sec") return Number(command, key);
  const json& latency = Field(command, "latency");
  if (key == "max_us") return Number(latency, key);
  if (key.size() > 4 && key.front() == 'p' && key.ends_with("_us")) {
    return Number(Field(latency, "percentiles_us"), key.substr(1, key.size() - 4));
  }
  return std::nullopt;
}

// One figure of every run beside the series' min / median / max.
Chart RunsFigure(const json& doc, const std::string& key, const std::string& what,
                 const std::string& unit) {
  Chart c;
  c.title = what + " of each run (all commands)";
  c.style = "points";
  c.x = Axis("run", "");
  c.x.integer = true;
  c.y = Axis(what, unit);
  c.series = {"run ended OK", "run failed"};
  c.data.resize(3);
  for (const json& r : Array(doc, "runs")) {
    auto k = Number(r, "run");
    if (!k) continue;
    const std::optional<double> v = RunFigure(Field(r, "totals"), key);
    const bool ok = Number(r, "exit_code") == 0.0;
    c.data[0].push_back(k);
    c.data[1].push_back(ok ? v : std::nullopt);
    c.data[2].push_back(ok ? std::nullopt : v);
  }
  const json& range = Field(Field(Field(Field(doc, "summary"), "figures"), "Total"), key);
  for (const char* w : {"min", "median", "max"}) {
    if (auto v = Number(range, w)) c.y_lines.push_back({*v, RangeLabel(w, range)});
  }
  c.caption = fmt::format(
      "{} of every run of the series (JSON \"runs\"), beside the min, median and max over "
      "the runs that ended OK (JSON \"summary\"; N = {} of {} runs). Failed runs are drawn "
      "apart and never enter the range (docs/method.md rules 8, 16).",
      what, Text(Field(doc, "summary"), "n"), Text(Field(doc, "summary"), "runs"));
  return c;
}

}  // namespace

std::string DescribePlatform(const json& p) {
  if (p.is_string()) return p.get<std::string>();
  if (!p.is_object()) return "unknown platform (the file has no platform block)";
  Platform pl;
  pl.kernel = Text(p, "kernel");
  pl.arch = Text(p, "arch");
  pl.hostname = Text(p, "hostname");
  pl.cpu_model = Text(p, "cpu_model");
  pl.cpus = int(Number(p, "cpus").value_or(0));
  pl.hypervisor = Field(p, "hypervisor") == true;
  pl.memory_bytes = int64_t(Number(p, "memory_bytes").value_or(0));
  return pl.Describe();
}

// The run's validity (JSON "validity", docs/method.md): each check, then each
// percentile with its interval. Absent from an older memstand's JSON: no table.
void ValidityTables(const json& doc, const std::string& stem, ReportSection* s) {
  const json& v = Field(doc, "validity");
  if (!v.is_object()) return;
  ReportTable checks{"Validity of the statistics: " + Text(v, "verdict"), stem + "-validity",
                     {"check", "status", "figure", "threshold", "reason"}, {}};
  for (const json& c : Array(v, "checks")) {
    checks.rows.push_back({Text(c, "name"), Text(c, "status"), Text(c, "figure"), Text(c, "threshold"),
                           Field(c, "reason").is_string() ? Text(c, "reason") : ""});
  }
  s->tables.push_back(std::move(checks));
  ReportTable intervals{fmt::format("Percentiles with their {:g}% intervals (µs)",
                                    Number(v, "confidence").value_or(0) * 100),
                        stem + "-intervals", {"command", "percentile", "low", "value", "high", "clamped", "samples",
                                              "effective samples"}, {}};
  for (const json& ci : Array(v, "intervals")) {
    for (const json& p : Array(ci, "percentiles")) {
      intervals.rows.push_back({Text(ci, "command"), Cell(Number(p, "percentile")), Cell(Number(p, "low_us")),
                                Cell(Number(p, "value_us")), Cell(Number(p, "high_us")), Text(p, "clamped"),
                                Cell(Number(ci, "samples")), Cell(Number(ci, "effective_samples"))});
    }
  }
  s->tables.push_back(std::move(intervals));
}

ReportSection RunSection(const ReportInput& in) {
  const json& doc = in.doc;
  ReportSection s{
      "run: " + in.path, in.json_path, DescribePlatform(Field(doc, "platform")), {}, {}, {}};
  s.blocks.push_back(RunBlock(doc));
  s.tables.push_back(CommandsTable(doc, Stem(in.json_path)));
  ValidityTables(doc, Stem(in.json_path), &s);
  s.charts.push_back(OpsPerSecond(doc));
  for (const std::string& label : SeriesLabels(doc))
    s.charts.push_back(LatencyPerSecond(doc, label));
  s.charts.push_back(PercentilePlot("Latency percentiles",
                                    "Latency distribution of each command and of all "
                                    "commands (JSON \"latency\").",
                                    CommandLatencies(doc)));
  if (Text(doc, "latency_from") == "intended_send") {
    const json& t = Field(doc, "totals");
    s.charts.push_back(PercentilePlot("Open loop: latency, service time and send lag",
                                      "All commands: latency from the intended send time, service "
                                      "time from the actual send, and send "
                                      "lag (actual - intended send time) (JSON \"totals\": "
                                      "\"latency\", \"service_time\", \"send_lag\"); "
                                      "a lag of 0 is not drawn on the log axis.",
                                      {{"latency", &Field(t, "latency")},
                                       {"service time", &Field(t, "service_time")},
                                       {"send lag", &Field(t, "send_lag")}}));
  }
  ResourceCharts(doc, &s.charts);
  return s;
}

ReportSection RunsSection(const ReportInput& in) {
  const json& doc = in.doc;
  const json& summary = Field(doc, "summary");
  std::string platform = "unknown platform (no run of the series measured anything)";
  for (const json& r : Array(doc, "runs")) {
    if (Field(r, "platform").is_object()) {
      platform = DescribePlatform(Field(r, "platform"));
      break;
    }
  }
  ReportSection s{"runs: " + in.path, in.json_path, platform, {}, {}, {}};
  TextBlock b{"Series of runs", {}};
  b.lines.push_back("verdict: " + Text(doc, "verdict") + " (exit code " + Text(doc, "exit_code") +
                    ")");
  b.lines.push_back(
      fmt::format("runs requested {}, made {}, ended OK (N) {}, failed {}, interrupted {}",
                  Text(summary, "requested"), Text(summary, "runs"), Text(summary, "n"),
                  Text(summary, "failed"), Text(summary, "interrupted")));
  for (const json& f : Array(summary, "failures"))
    b.lines.push_back(f.is_string() ? f.get<std::string>() : f.dump());
  s.blocks.push_back(std::move(b));
  ReportTable t{"Figures: min / median / max over the runs that ended OK",
                Stem(in.json_path) + "-figures",
                {"row", "figure", "min", "median", "max", "N"},
                {}};
  const json& figures = Field(summary, "figures");
  if (figures.is_object()) {
    for (const auto& [row, keys] : figures.items()) {
      if (!keys.is_object()) continue;
      for (const auto& [key, r] : keys.items()) {
        t.rows.push_back({row, key, Cell(Number(r, "min")), Cell(Number(r, "median")),
                          Cell(Number(r, "max")), Cell(Number(r, "n"))});
      }
    }
  }
  s.tables.push_back(std::move(t));
  s.charts.push_back(RunsFigure(doc, "ops_per_sec", "throughput", "ops/s"));
  s.charts.push_back(RunsFigure(doc, "p50_us", "p50 latency", "µs"));
  s.charts.push_back(RunsFigure(doc, "p99_us", "p99 latency", "µs"));
  return s;
}

ReportSection SweepSection(const ReportInput& in) {
  const json& doc = in.doc;
  const json& knee = Field(doc, "knee");
  const std::string knob = Text(doc, "knob");
  std::string platform = "unknown platform (no step measured anything)";
  for (const json& st : Array(doc, "steps")) {
    if (Field(Field(st, "run"), "platform").is_object()) {
      platform = DescribePlatform(Field(Field(st, "run"), "platform"));
      break;
    }
  }
  ReportSection s{"sweep: " + in.path, in.json_path, platform, {}, {}, {}};
  s.blocks.push_back(
      {"Sweep",
       {"knob: " + knob + ", values " + Field(doc, "values").dump(),
        "verdict: " + Text(doc, "verdict") + " (exit code " + Text(doc, "exit_code") + ")",
        Text(knee, "text")}});
  ReportTable t{
      "Steps",
      Stem(in.json_path) + "-steps",
      {knob, "verdict", "ops/s", "p50 µs", "p99 µs", "client CPU µs/request", "client core share"},
      {}};
  Chart ops, p99;
  ops.title = "Throughput against " + knob;
  p99.title = "p99 latency against " + knob;
  ops.style = p99.style = "points-line";
  const json& steps = Array(doc, "steps");
  double lo = 0, hi = 0;
  for (const json& st : steps) {
    auto x = Number(st, "x");
    t.rows.push_back({Text(st, "x"), Text(st, "verdict"), Cell(Number(st, "ops_per_sec")),
                      Cell(Number(st, "p50_us")), Cell(Number(st, "p99_us")),
                      Cell(Number(st, "client_cpu_us_per_request")),
                      Cell(Number(st, "client_core_share"))});
    if (!x || Number(st, "exit_code") != 0.0) continue;
    lo = ops.data.empty() || ops.data[0].empty() ? *x : std::min(lo, *x);
    hi = std::max(hi, *x);
    ops.data.resize(2);
    p99.data.resize(2);
    ops.data[0].push_back(x);
    ops.data[1].push_back(Number(st, "ops_per_sec"));
    p99.data[0].push_back(x);
    p99.data[1].push_back(Positive(Number(st, "p99_us")));
  }
  s.tables.push_back(std::move(t));
  const bool log_x = lo > 0 && hi / lo >= 16;
  const std::string unit = knob == "rate"      ? "requests/s"
                           : knob == "clients" ? "connections per thread"
                                               : "requests in flight";
  ops.x = p99.x = Axis(knob, unit, log_x);
  ops.y = Axis("throughput, all commands", "ops/s");
  p99.y = Axis("p99 latency, all commands", "µs", true);
  ops.series = {"ops/s"};
  p99.series = {"p99"};
  if (ops.data.empty()) ops.data = p99.data = {{}, {}};
  if (Field(knee, "found") == true) {
    if (auto kx = Number(knee, "x")) {
      ops.x_lines.push_back({*kx, "knee at " + knob + "=" + Cell(kx)});
      p99.x_lines.push_back(ops.x_lines.back());
    }
  }
  const std::string steps_note = fmt::format(
      " One point per step whose run ended OK (JSON \"steps\"); failed steps are in the table "
      "only. Knee: {}",
      Text(knee, "text"));
  ops.caption = "Throughput of all commands at each " + knob + " value." + steps_note;
  p99.caption = "p99 latency of all commands at each " + knob + " value." + steps_note;
  s.charts.push_back(std::move(ops));
  s.charts.push_back(std::move(p99));
  return s;
}

}  // namespace memstand
