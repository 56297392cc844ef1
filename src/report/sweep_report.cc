#include "report/sweep_report.h"

#include <fmt/format.h>

#include "stats/knee.h"

namespace memstand {

namespace {

using Json = nlohmann::ordered_json;

// The OK steps, as FindKnee's points, and their indexes into outcome.steps.
std::vector<SweepPoint> OkPoints(const SweepOutcome& o, std::vector<size_t>* index) {
  std::vector<SweepPoint> points;
  for (size_t i = 0; i < o.steps.size(); ++i) {
    const SweepStep& s = o.steps[i];
    if (s.exit_code != 0) continue;
    points.push_back({static_cast<double>(s.x), s.ops_per_sec, s.p99_us});
    index->push_back(i);
  }
  return points;
}

size_t StepsExiting(const SweepOutcome& o, int exit_code) {
  size_t n = 0;
  for (const auto& s : o.steps) n += s.exit_code == exit_code;
  return n;
}

size_t OkSteps(const SweepOutcome& o) { return StepsExiting(o, 0); }

std::string Rule() {
  return fmt::format("the knee is the step after which the next step adds less than {:g}% "
                     "throughput while p99 rises, and no later step adds {:g}% over it",
                     kKneeMinGain * 100, kKneeMinGain * 100);
}

}  // namespace

SweepStep StepOf(uint64_t x, const RunReport& rep) {
  const RunResult& r = *rep.result;
  SweepStep s;
  s.x = x;
  s.measured = true;
  s.exit_code = rep.exit_code;
  s.verdict = rep.verdict;
  CommandStats all = r.AllCommands();
  uint64_t ops = r.measured_ops();
  s.ops_per_sec = r.measured_s > 0 ? ops / r.measured_s : 0;
  s.p50_us = all.latency_ns.ValueAtPercentile(50) / 1000.0;
  s.p99_us = all.latency_ns.ValueAtPercentile(99) / 1000.0;
  s.client_cpu_us_per_request = ops > 0 ? r.client_cpu_s() * 1e6 / ops : 0;
  s.client_core_share = r.measured_s > 0 ? r.client_cpu_s() / r.measured_s : 0;
  s.warnings = rep.warnings;
  s.run = RunReportJson(rep);
  return s;
}

SweepStep UnmeasuredStep(uint64_t x, const std::string& failure) {
  SweepStep s;
  s.x = x;
  s.exit_code = 1;
  s.verdict = "FAILED: " + failure;
  return s;
}

void Conclude(SweepOutcome* o) {
  std::vector<size_t> index;
  std::vector<SweepPoint> points = OkPoints(*o, &index);
  auto knee = FindKnee(points, kKneeMinGain);
  o->knee = knee ? std::optional<size_t>(index[*knee]) : std::nullopt;
  // A step a signal stopped (exit 130) is cut short, not failed.
  size_t failed = o->steps.size() - OkSteps(*o) - StepsExiting(*o, 130);
  bool cut = o->interrupted || o->steps.size() < o->values.size() || StepsExiting(*o, 130) > 0;
  if (failed > 0) {
    o->exit_code = 1;
    o->verdict = fmt::format("FAILED: {} of {} steps failed", failed, o->steps.size());
  } else if (cut) {
    o->exit_code = 130;
    o->verdict = fmt::format("INTERRUPTED: {} of {} steps made", o->steps.size(), o->values.size());
  } else {
    o->exit_code = 0;
    o->verdict = "OK";
  }
}

std::string KneeText(const SweepOutcome& o) {
  if (o.knee) {
    const SweepStep& k = o.steps[*o.knee];
    size_t next = *o.knee + 1;
    while (o.steps[next].exit_code != 0) ++next;  // a knee has an OK step after it
    const SweepStep& n = o.steps[next];
    return fmt::format("knee at {}={} (step {} of {}): to {}={} throughput goes {:.1f} -> {:.1f} "
                       "ops/s while p99 goes {:.1f} -> {:.1f} µs; rule: {}",
                       o.knob, k.x, *o.knee + 1, o.steps.size(), o.knob, n.x, k.ops_per_sec,
                       n.ops_per_sec, k.p99_us, n.p99_us, Rule());
  }
  size_t ok = OkSteps(o);
  if (ok < 3) {
    return fmt::format("no knee within the range: {} step(s) ended OK, a knee needs 3 (a rise "
                       "before it and a step after)", ok);
  }
  return "no knee within the range: throughput kept rising by at least " +
         fmt::format("{:g}%", kKneeMinGain * 100) + ", or p99 did not rise where it stopped";
}

void PrintSweepHeader(std::FILE* out, const std::string& knob) {
  fmt::print(out, "\n    {:>10} {:>12} {:>10} {:>10} {:>12} {:>11}  {}\n", knob, "ops/s",
             "p50 µs", "p99 µs", "CPU µs/req", "client core", "verdict");
  std::fflush(out);
}

void PrintSweepRow(std::FILE* out, const SweepStep& s) {
  if (!s.measured) {
    fmt::print(out, "    {:>10} {:>12} {:>10} {:>10} {:>12} {:>11}  {}\n", s.x, "-", "-", "-",
               "-", "-", s.verdict);
  } else {
    fmt::print(out, "    {:>10} {:>12.1f} {:>10.1f} {:>10.1f} {:>12.2f} {:>11.2f}  {}\n", s.x,
               s.ops_per_sec, s.p50_us, s.p99_us, s.client_cpu_us_per_request,
               s.client_core_share, s.verdict);
  }
  std::fflush(out);
}

void PrintSweepEnd(std::FILE* out, const SweepOutcome& o) {
  fmt::print(out, "\n    {}\n", KneeText(o));
  if (OkSteps(o) < o.steps.size()) {
    fmt::print(out, "    failed and interrupted steps are left out of the knee (their rows say "
                    "why)\n");
  }
  for (const SweepStep& s : o.steps) {
    for (const auto& w : s.warnings) fmt::print(out, "    {}={}: warning: {}\n", o.knob, s.x, w);
  }
  fmt::print(out, "    {} (exit {})\n", o.verdict, o.exit_code);
  std::fflush(out);
}

Json SweepJson(const SweepOutcome& o) {
  Json j;
  j["schema"] = "memstand.sweep";
  j["version"] = 1;
  j["memstand_version"] = MEMSTAND_VERSION;
  j["knob"] = o.knob;
  j["values"] = o.values;
  j["verdict"] = o.verdict;
  j["exit_code"] = o.exit_code;
  j["interrupted"] = o.interrupted;
  Json steps = Json::array();
  for (const SweepStep& s : o.steps) {
    steps.push_back({{"x", s.x}, {"verdict", s.verdict}, {"exit_code", s.exit_code},
                     {"ops_per_sec", s.ops_per_sec}, {"p50_us", s.p50_us}, {"p99_us", s.p99_us},
                     {"client_cpu_us_per_request", s.client_cpu_us_per_request},
                     {"client_core_share", s.client_core_share}, {"run", s.run}});
  }
  j["steps"] = steps;
  Json knee;
  knee["found"] = o.knee.has_value();
  knee["index"] = o.knee ? Json(*o.knee) : Json(nullptr);
  knee["x"] = o.knee ? Json(o.steps[*o.knee].x) : Json(nullptr);
  knee["min_gain"] = kKneeMinGain;
  knee["text"] = KneeText(o);
  j["knee"] = knee;
  return j;
}

}  // namespace memstand
