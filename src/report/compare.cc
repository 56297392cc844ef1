#include "report/compare.h"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "report/json_fields.h"
#include "report/validity.h"

namespace memstand {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr int kMinRunsForVerdict = 3;  // docs/method.md rule 8: no verdict from single runs

Status Bad(const std::string& file, const std::string& what) {
  return Status::InvalidArgument(file + ": " + what);
}

// A number at j[key], if it is one.
bool NumberAt(const json& j, const char* key, double* out) {
  if (!j.is_object()) return false;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return false;
  *out = it->get<double>();
  return true;
}

void AddCommandFigures(const std::string& row, const json& c, std::vector<Figure>* out) {
  double v = 0;
  if (NumberAt(c, "ops_per_sec", &v)) out->push_back({row, "ops_per_sec", "ops/s", v});
  const json* lat = c.contains("latency") && c["latency"].is_object() ? &c["latency"] : nullptr;
  if (lat == nullptr) return;
  if (NumberAt(*lat, "mean_us", &v)) out->push_back({row, "mean_us", "mean µs", v});
  if (lat->contains("percentiles_us") && (*lat)["percentiles_us"].is_object()) {
    // The keys are the percentiles as --percentiles printed them ("50", "99.9"): in
    // numeric order, as the run's own report.
    std::vector<std::pair<double, std::string>> keys;
    for (const auto& [k, value] : (*lat)["percentiles_us"].items()) {
      char* end = nullptr;
      const double q = std::strtod(k.c_str(), &end);
      if (end != k.c_str() && *end == '\0' && value.is_number()) keys.emplace_back(q, k);
    }
    std::sort(keys.begin(), keys.end());
    for (const auto& [q, k] : keys) {
      out->push_back({row, "p" + k + "_us", "p" + k + " µs", (*lat)["percentiles_us"][k].get<double>()});
    }
  }
  if (NumberAt(*lat, "max_us", &v)) out->push_back({row, "max_us", "max µs", v});
}

bool LowerIsBetter(const std::string& key) { return key != "ops_per_sec"; }

// The run's workload as compared: what changes the load, not its seed or its files.
const char* const kWorkloadKeys[] = {"threads", "clients_per_thread", "connections", "pipeline", "resp", "cluster",
                                     "read_from_replicas", "requests", "duration_s", "warmup_s", "io", "loop",
                                     "rate_per_s", "arrival", "schedule", "key_prefix", "key_min", "key_max",
                                     "value_min_size", "value_max_size", "value_content", "compress_ratio",
                                     "commands", "wait_replicas"};
const char* const kPlatformKeys[] = {"kernel", "arch", "cpu_model", "cpus", "hypervisor", "memory_bytes"};

std::string Short(const json& v) {
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

void Differences(const char* what, const json& a, const json& b, const char* const* keys, size_t n,
                 std::vector<std::string>* out) {
  std::string diff;
  for (size_t i = 0; i < n; ++i) {
    const json va = a.is_object() && a.contains(keys[i]) ? a[keys[i]] : json();
    const json vb = b.is_object() && b.contains(keys[i]) ? b[keys[i]] : json();
    if (va != vb) diff += fmt::format("{}{} {} (A) vs {} (B)", diff.empty() ? "" : "; ", keys[i], Short(va), Short(vb));
  }
  if (!diff.empty()) out->push_back(fmt::format("the {} differ: {}", what, diff));
}

std::string RangeText(const Range& r) {
  if (r.n == 1) return fmt::format("{:.1f}", r.median);
  return fmt::format("{:.1f} [{:.1f}..{:.1f}]", r.median, r.min, r.max);
}

const char* ReadingName(CompareReading r) {
  switch (r) {
    case CompareReading::kNoVerdict: return "no_verdict";
    case CompareReading::kWithin: return "within";
    case CompareReading::kOutsideOverlap: return "outside_overlapping";
    case CompareReading::kOutside: return "outside";
  }
  return "no_verdict";
}

void Judge(FigureComparison* f) {
  f->ratio = f->a.median != 0 ? f->b.median / f->a.median : 0;
  f->higher = f->b.median > f->a.median;
  if (f->a.n < kMinRunsForVerdict || f->b.n < kMinRunsForVerdict) {
    f->reading = CompareReading::kNoVerdict;
    f->text = fmt::format("no verdict: N={} and N={} (at least {} runs each)", f->a.n, f->b.n, kMinRunsForVerdict);
    return;
  }
  const bool better = f->higher != LowerIsBetter(f->key);
  const std::string side = fmt::format("{} ({})", f->higher ? "higher" : "lower", better ? "better" : "worse");
  if (f->b.median >= f->a.min && f->b.median <= f->a.max) {
    f->reading = CompareReading::kWithin;
    f->text = fmt::format("within the spread of {} runs of A", f->a.n);
  } else if (f->b.min > f->a.max || f->b.max < f->a.min) {
    f->reading = CompareReading::kOutside;
    f->text = "B " + side + ": all " + std::to_string(f->b.n) + " runs outside A's range";
  } else {
    f->reading = CompareReading::kOutsideOverlap;
    f->text = "B's median " + side + " outside A's range; the ranges overlap";
  }
}

// min / median / max of every figure over the side's OK runs, in first-seen order.
std::vector<FigureRange> RangesOf(const CompareSide& s) {
  return Summarize(s.figures, static_cast<int>(s.figures.size())).ranges;
}

}  // namespace

RunFigures FiguresOfRunJson(const json& run) {
  RunFigures f;
  if (run.contains("commands") && run["commands"].is_array()) {
    for (const json& c : run["commands"]) {
      if (c.is_object() && c.contains("command") && c["command"].is_string()) {
        AddCommandFigures(c["command"].get<std::string>(), c, &f.figures);
      }
    }
  }
  if (run.contains("totals")) AddCommandFigures("Total", run["totals"], &f.figures);
  double v = 0;
  if (run.contains("client") && NumberAt(run["client"], "cpu_us_per_request", &v)) {
    f.figures.push_back({"client", "cpu_us_per_request", "CPU µs/request", v});
  }
  if (run.contains("server")) {
    if (NumberAt(run["server"], "cpu_us_per_request", &v)) {
      f.figures.push_back({"server", "cpu_us_per_request", "CPU µs/request (INFO)", v});
    }
    if (NumberAt(run["server"], "proc_cpu_us_per_request", &v)) {
      f.figures.push_back({"server", "proc_cpu_us_per_request", "CPU µs/request (/proc)", v});
    }
  }
  return f;
}

Result<CompareSide> ReadCompareSide(const std::string& file, const json& doc) {
  if (!doc.is_object()) return Bad(file, "not a JSON object");
  const std::string schema = doc.contains("schema") && doc["schema"].is_string() ? doc["schema"].get<std::string>() : "";
  if (schema != "memstand.run") {
    return Bad(file, schema.empty() ? "not a memstand run document (no \"schema\")"
                                    : "schema '" + Short(schema) + "': compare takes memstand.run documents "
                                      "(memstand run --json, also with --runs)");
  }
  if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"].get<int64_t>() != 1) {
    return Bad(file, "memstand.run version " + (doc.contains("version") ? Short(doc["version"]) : "missing") +
                         ": this memstand reads version 1");
  }
  std::vector<const json*> runs;
  if (doc.contains("runs")) {
    if (!doc["runs"].is_array()) return Bad(file, "\"runs\" is not an array");
    for (const json& r : doc["runs"]) {
      if (!r.is_object()) return Bad(file, "a run of \"runs\" is not an object");
      runs.push_back(&r);
    }
  } else {
    runs.push_back(&doc);
  }
  CompareSide s;
  s.file = file;
  s.runs = static_cast<int>(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    const json& r = *runs[i];
    const bool ok = r.contains("exit_code") && r["exit_code"].is_number_integer() && r["exit_code"].get<int>() == 0;
    if (!ok) {
      const std::string verdict = r.contains("verdict") ? Short(r["verdict"]) : "no verdict";
      s.not_ok.push_back(runs.size() > 1 ? fmt::format("run {}: {}", i + 1, verdict) : verdict);
      continue;
    }
    RunFigures f = FiguresOfRunJson(r);
    if (f.figures.empty()) return Bad(file, fmt::format("run {} carries no figures (\"commands\", \"totals\")", i + 1));
    if (s.ok == 0) {
      s.options = r.value("options", json::object());
      s.platform = r.value("platform", json::object());
      const json server = r.value("server", json::object());
      s.protocol = server.is_object() && server.contains("protocol") ? Short(server["protocol"]) : "";
      s.server_version = server.is_object() && server.contains("version") ? Short(server["version"]) : "";
    }
    ++s.ok;
    s.figures.push_back(std::move(f));
    std::string v = "not recorded";
    bool suspect = false;
    if (r.contains("validity") && r["validity"].is_object() && r["validity"].contains("verdict") &&
        r["validity"]["verdict"].is_string()) {
      v = r["validity"]["verdict"].get<std::string>();
      suspect = v != "valid";
      if (suspect && r["validity"].contains("reasons") && r["validity"]["reasons"].is_array()) {
        std::string names;
        for (const json& reason : r["validity"]["reasons"]) {
          const std::string t = reason.is_string() ? reason.get<std::string>() : "";
          names += (names.empty() ? "" : ", ") + t.substr(0, t.find(':'));
        }
        v += " (" + names + ")";
      }
    }
    for (const ValidityCheck& c : CheckReportJson(r)) {
      if (c.status != CheckStatus::kSuspect) continue;
      v += "; redone from its figures: " + c.name + " suspect, " + c.figure;
      suspect = true;
    }
    s.validity.push_back(runs.size() > 1 ? fmt::format("run {}: {}", i + 1, v) : v);
    s.suspect += suspect ? 1 : 0;
  }
  s.memstand_version = doc.contains("memstand_version") ? Short(doc["memstand_version"]) : "";
  if (s.ok == 0) {
    std::string why;
    for (const std::string& n : s.not_ok) why += (why.empty() ? "" : "; ") + n;
    return Bad(file, "no run ended OK (" + why + "): failed runs are never compared");
  }
  return s;
}

namespace {

// A report from before --schedule has no "schedule": its open loop was per connection.
json WithSchedule(json options) {
  if (options.is_object() && !options.contains("schedule") && options.value("loop", "") == "open") {
    options["schedule"] = "per-connection";
  }
  return options;
}

}  // namespace

Comparison Compare(CompareSide a, CompareSide b) {
  Comparison c;
  Differences("workloads", WithSchedule(a.options), WithSchedule(b.options), kWorkloadKeys, std::size(kWorkloadKeys),
              &c.warnings);
  if (a.protocol != b.protocol) c.warnings.push_back("the protocols differ: " + a.protocol + " (A) vs " + b.protocol + " (B)");
  Differences("platforms", a.platform, b.platform, kPlatformKeys, std::size(kPlatformKeys), &c.warnings);
  if (a.server_version != b.server_version) {
    c.warnings.push_back("the server versions differ: " + a.server_version + " (A) vs " + b.server_version + " (B)");
  }
  if (a.memstand_version != b.memstand_version) {
    c.warnings.push_back("memstand's versions differ: " + a.memstand_version + " (A) vs " + b.memstand_version + " (B)");
  }
  for (const CompareSide* s : {&a, &b}) {
    if (!s->not_ok.empty()) {
      c.warnings.push_back(fmt::format("{}: {} of {} runs did not end OK and are left out", s->file,
                                       s->not_ok.size(), s->runs));
    }
  }
  const std::vector<FigureRange> ra = RangesOf(a), rb = RangesOf(b);
  std::map<std::pair<std::string, std::string>, const FigureRange*> in_b;
  for (const FigureRange& f : rb) in_b[{f.row, f.key}] = &f;
  for (const FigureRange& f : ra) {
    FigureComparison fc{f.row, f.key, f.label, f.range, {}, true, false, 0, CompareReading::kNoVerdict, false, ""};
    auto it = in_b.find({f.row, f.key});
    if (it != in_b.end()) {
      fc.in_b = true;
      fc.b = it->second->range;
      Judge(&fc);
      in_b.erase(it);
    } else {
      fc.text = "only in A";
    }
    c.figures.push_back(std::move(fc));
  }
  for (const FigureRange& f : rb) {
    if (in_b.count({f.row, f.key}) == 0) continue;
    c.figures.push_back({f.row, f.key, f.label, {}, f.range, false, true, 0, CompareReading::kNoVerdict, false,
                         "only in B"});
  }
  c.a = std::move(a);
  c.b = std::move(b);
  return c;
}

std::string CompareText(const Comparison& c) {
  std::string out = "memstand compare: B against A, each figure min / median / max over the runs that ended OK\n";
  for (const auto& [name, s] : {std::pair<const char*, const CompareSide*>{"A", &c.a}, {"B", &c.b}}) {
    out += fmt::format("  {}: {} — {} of {} run(s) OK (N={}); {} {}, memstand {}\n", name, s->file, s->ok, s->runs,
                       s->ok, s->protocol, s->server_version, s->memstand_version);
    for (const std::string& v : s->validity) out += "     statistics: " + v + "\n";
    if (s->suspect > 0) {
      out += fmt::format("     ({} of {} OK run(s) suspect: their figures are in the ranges; read them with that)\n",
                         s->suspect, s->ok);
    }
  }
  if (!c.warnings.empty()) {
    out += "warnings (a ratio across them measures the difference too):\n";
    for (const std::string& w : c.warnings) out += "  - " + w + "\n";
  }
  out += fmt::format("\n  {:<10} {:<24} {:>30} {:>30} {:>8}  {}\n", "", "figure", "A median [min..max]",
                     "B median [min..max]", "B/A", "reading");
  for (const FigureComparison& f : c.figures) {
    out += fmt::format("  {:<10} {:<24} {:>30} {:>30} {:>8}  {}\n", f.row, f.label,
                       f.in_a ? RangeText(f.a) : "-", f.in_b ? RangeText(f.b) : "-",
                       f.in_a && f.in_b && f.a.median != 0 ? fmt::format("{:.3f}x", f.ratio) : "-", f.text);
  }
  out += fmt::format("\n  A verdict needs N >= {} on both sides; 'within the spread' means the runs cannot tell A "
                     "and B apart, not that they are equal.\n",
                     kMinRunsForVerdict);
  return out;
}

ordered_json CompareJson(const Comparison& c) {
  ordered_json j;
  j["schema"] = "memstand.compare";
  j["version"] = 1;
  for (const auto& [name, s] : {std::pair<const char*, const CompareSide*>{"a", &c.a}, {"b", &c.b}}) {
    j[name] = {{"file", s->file},           {"runs", s->runs}, {"n", s->ok}, {"not_ok", s->not_ok},
               {"protocol", s->protocol}, {"server_version", s->server_version},
               {"memstand_version", s->memstand_version}, {"validity", s->validity},
               {"suspect", s->suspect}};
  }
  j["warnings"] = c.warnings;
  j["min_runs_for_verdict"] = kMinRunsForVerdict;
  ordered_json figures = ordered_json::array();
  for (const FigureComparison& f : c.figures) {
    auto range = [](const Range& r) { return ordered_json{{"min", r.min}, {"median", r.median}, {"max", r.max}, {"n", r.n}}; };
    ordered_json e{{"row", f.row}, {"key", f.key}, {"label", f.label}};
    e["a"] = f.in_a ? range(f.a) : ordered_json(nullptr);
    e["b"] = f.in_b ? range(f.b) : ordered_json(nullptr);
    e["ratio"] = f.in_a && f.in_b && f.a.median != 0 ? ordered_json(f.ratio) : ordered_json(nullptr);
    e["reading"] = f.in_a && f.in_b ? ReadingName(f.reading) : (f.in_a ? "only_a" : "only_b");
    e["b_higher"] = f.higher;
    e["text"] = f.text;
    figures.push_back(std::move(e));
  }
  j["figures"] = figures;
  return j;
}

ReportSection CompareSection(const std::string& file, const json& doc) {
  ReportSection s;
  s.title = "compare: " + file;
  s.source = file;
  auto side = [](const json& j) {
    return fmt::format("{} — N={} of {} run(s); {} {}, memstand {}", Text(j, "file"), Text(j, "n"), Text(j, "runs"),
                       Text(j, "protocol"), Text(j, "server_version"), Text(j, "memstand_version"));
  };
  TextBlock sides{"B against A", {"A: " + side(Field(doc, "a")), "B: " + side(Field(doc, "b"))}};
  sides.lines.push_back(fmt::format("a verdict needs N >= {} on both sides; 'within the spread' means the runs "
                                    "cannot tell A and B apart, not that they are equal",
                                    Text(doc, "min_runs_for_verdict")));
  s.blocks.push_back(std::move(sides));
  TextBlock warnings{"Warnings", {}};
  for (const json& w : Array(doc, "warnings")) warnings.lines.push_back(w.is_string() ? w.get<std::string>() : w.dump());
  if (warnings.lines.empty()) warnings.lines.push_back("none: the same workload, platform and versions");
  s.blocks.push_back(std::move(warnings));
  auto range = [](const json& r) {
    if (!r.is_object()) return std::string("-");
    return fmt::format("{} [{}..{}] N={}", Cell(Number(r, "median")), Cell(Number(r, "min")), Cell(Number(r, "max")),
                       Cell(Number(r, "n")));
  };
  ReportTable t{"Every figure, B / A", "compare", {"row", "figure", "A median [min..max]", "B median [min..max]",
                                                   "B/A", "reading"}, {}};
  for (const json& f : Array(doc, "figures")) {
    const auto ratio = Number(f, "ratio");
    t.rows.push_back({Text(f, "row"), Text(f, "label"), range(Field(f, "a")), range(Field(f, "b")),
                      ratio ? fmt::format("{:.3f}x", *ratio) : "-", Text(f, "text")});
  }
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace memstand
