#include "report/point_sweep.h"

#include <fmt/format.h>

namespace memstand {

namespace {

using Json = nlohmann::ordered_json;

// repeat.h's range over the runs with a knee; an empty range when none had one.
Range RangeOfKnees(const std::vector<double>& v) { return v.empty() ? Range{} : RangeOf(v); }

bool RunFailed(const PointRun& run) { return !run.failure.empty() || run.sweep.exit_code == 1; }

std::string Label(const PointSweepOutcome& o, const std::string& value) { return o.key + "=" + value; }

// decimals < 0: as short as the value allows ({:g}: a median of knees 1 and 2 is 1.5).
std::string RangeText(const Range& r, int decimals) {
  if (decimals < 0) {
    if (r.min == r.max) return fmt::format("{:g}", r.median);
    return fmt::format("{:g} [{:g} .. {:g}]", r.median, r.min, r.max);
  }
  if (r.min == r.max) return fmt::format("{:.{}f}", r.median, decimals);
  return fmt::format("{:.{}f} [{:.{}f} .. {:.{}f}]", r.median, decimals, r.min, decimals, r.max, decimals);
}

Json RangeJson(const Range& r, size_t n) {
  if (n == 0) return nullptr;
  return {{"min", r.min}, {"median", r.median}, {"max", r.max}, {"n", n}};
}

}  // namespace

PointSummary SummarizePoint(const PointOutcome& point) {
  PointSummary s;
  s.runs = point.runs.size();
  std::vector<double> x, ops, p99;
  for (const PointRun& run : point.runs) {
    if (RunFailed(run)) ++s.failed;
    if (!run.failure.empty() || !run.sweep.knee) continue;
    const SweepStep& k = run.sweep.steps[*run.sweep.knee];
    x.push_back(static_cast<double>(k.x));
    ops.push_back(k.ops_per_sec);
    p99.push_back(k.p99_us);
  }
  s.knees = x.size();
  s.knee_x = RangeOfKnees(x);
  s.ops_per_sec = RangeOfKnees(ops);
  s.p99_us = RangeOfKnees(p99);
  return s;
}

void ConcludePoints(PointSweepOutcome* o) {
  size_t made = 0, failed = 0, cut = 0;
  for (const PointOutcome& p : o->points) {
    for (const PointRun& run : p.runs) {
      ++made;
      failed += RunFailed(run);
      cut += run.failure.empty() && run.sweep.exit_code == 130;
    }
  }
  const size_t asked = o->values.size() * static_cast<size_t>(o->runs);
  if (failed > 0) {
    o->exit_code = 1;
    o->verdict = fmt::format("FAILED: {} of {} runs failed", failed, made);
  } else if (o->interrupted || cut > 0 || made < asked) {
    o->exit_code = 130;
    o->verdict = fmt::format("INTERRUPTED: {} of {} runs made", made - cut, asked);
  } else {
    o->exit_code = 0;
    o->verdict = "OK";
  }
}

std::optional<BestPoint> FindBestPoint(const PointSweepOutcome& o) {
  std::vector<PointSummary> s;
  for (const PointOutcome& p : o.points) s.push_back(SummarizePoint(p));
  size_t with_knee = 0;
  std::optional<size_t> best;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i].knees == 0) continue;
    ++with_knee;
    if (!best || s[i].ops_per_sec.median > s[*best].ops_per_sec.median) best = i;
  }
  if (with_knee < 2) return std::nullopt;
  BestPoint b;
  b.index = *best;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == *best || s[i].knees == 0) continue;
    if (s[i].ops_per_sec.max >= s[*best].ops_per_sec.min) {
      b.overlaps = true;
      b.overlapping.push_back(o.points[i].value);
    }
  }
  return b;
}

void PrintPointSummary(std::FILE* out, const PointSweepOutcome& o) {
  fmt::print(out, "\nKnee per point ({} run(s) a point, each on a fresh topology; median [min .. max] "
                  "over the runs with a knee)\n",
             o.runs);
  fmt::print(out, "    {:<32} {:>6} {:>22} {:>28} {:>24}\n", "point", "knees", "knee " + o.knob,
             "ops/s at the knee", "p99 µs at the knee");
  for (const PointOutcome& p : o.points) {
    const PointSummary s = SummarizePoint(p);
    const std::string knees = fmt::format("{}/{}", s.knees, s.runs);
    if (s.knees == 0) {
      fmt::print(out, "    {:<32} {:>6} {:>22} {:>28} {:>24}\n", Label(o, p.value), knees, "-", "-", "-");
      continue;
    }
    fmt::print(out, "    {:<32} {:>6} {:>22} {:>28} {:>24}\n", Label(o, p.value), knees,
               RangeText(s.knee_x, -1), RangeText(s.ops_per_sec, 0),
               RangeText(s.p99_us, 1));
  }
  if (auto best = FindBestPoint(o)) {
    const std::string label = Label(o, o.points[best->index].value);
    if (!best->overlaps) {
      fmt::print(out, "    the most throughput at the knee: {}; its range is clear of every other point's\n",
                 label);
    } else {
      std::string others;
      for (const auto& v : best->overlapping) others += (others.empty() ? "" : ", ") + Label(o, v);
      fmt::print(out, "    the most throughput at the knee (median): {}; its range overlaps {}'s: with "
                      "{} run(s) a point they are not told apart (more --runs narrow the ranges)\n",
                 label, others, o.runs);
    }
  } else {
    fmt::print(out, "    fewer than two points have a knee: no point is named the best\n");
  }
  for (const PointOutcome& p : o.points) {
    for (size_t i = 0; i < p.runs.size(); ++i) {
      if (!p.runs[i].failure.empty()) {
        fmt::print(out, "    {} run {}: {}\n", Label(o, p.value), i + 1, p.runs[i].failure);
      }
    }
  }
  fmt::print(out, "    {} (exit {})\n", o.verdict, o.exit_code);
  std::fflush(out);
}

nlohmann::ordered_json PointSweepJson(const PointSweepOutcome& o) {
  Json j;
  j["schema"] = "memstand.sweep_points";
  j["version"] = 1;
  j["memstand_version"] = MEMSTAND_VERSION;
  j["axis"] = o.axis;
  j["key"] = o.key;
  j["values"] = o.values;
  j["knob"] = o.knob;
  j["knob_values"] = o.knob_values;
  j["runs_per_point"] = o.runs;
  j["verdict"] = o.verdict;
  j["exit_code"] = o.exit_code;
  j["interrupted"] = o.interrupted;
  Json points = Json::array();
  for (const PointOutcome& p : o.points) {
    const PointSummary s = SummarizePoint(p);
    Json runs = Json::array();
    for (const PointRun& r : p.runs) {
      runs.push_back({{"servers", r.servers},
                      {"applied", r.applied.empty() ? Json(nullptr) : Json(r.applied)},
                      {"failure", r.failure.empty() ? Json(nullptr) : Json(r.failure)},
                      {"sweep", r.failure.empty() ? SweepJson(r.sweep) : Json(nullptr)}});
    }
    points.push_back({{"value", p.value},
                      {"runs", runs},
                      {"summary",
                       {{"runs", s.runs},
                        {"knees", s.knees},
                        {"failed", s.failed},
                        {"knee_x", RangeJson(s.knee_x, s.knees)},
                        {"ops_per_sec", RangeJson(s.ops_per_sec, s.knees)},
                        {"p99_us", RangeJson(s.p99_us, s.knees)}}}});
  }
  j["points"] = points;
  Json best = nullptr;
  if (auto b = FindBestPoint(o)) {
    best = {{"value", o.points[b->index].value}, {"overlaps", b->overlapping}};
  }
  j["best"] = best;
  return j;
}

}  // namespace memstand
