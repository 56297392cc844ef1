#include "report/slo_search.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace memstand {

namespace {

using Json = nlohmann::ordered_json;

// The checks that judge the instrument: when one is suspect, the figure may be the
// client's, so the run says nothing about the server's rate.
bool IsInstrumentCheck(const std::string& name) {
  return name == "send lag" || name == "inter-arrival" || name == "client saturation" || name == "clock" ||
         name == "cross-check" || name == "unanswered";
}

std::string LimitText(int64_t ns) {
  if (ns % 1000000000 == 0) return fmt::format("{} s", ns / 1000000000);
  if (ns >= 1000000) return fmt::format("{:g} ms", ns / 1e6);
  if (ns >= 1000) return fmt::format("{:g} µs", ns / 1e3);
  return fmt::format("{} ns", ns);
}

std::string RateText(double r) { return fmt::format("{:.10g}/s", r); }

}  // namespace

Result<Slo> ParseSlo(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(fmt::format("--slo '{}': {} (expected e.g. p99<=2ms, p99.9<=500us)", text, why));
  };
  Slo slo;
  slo.text = std::string(text);
  const size_t op = text.find("<=");
  if (text.empty() || text[0] != 'p' || op == std::string_view::npos) return bad("not pP<=LIMIT");
  const std::string p(text.substr(1, op - 1));
  std::string limit(text.substr(op + 2));
  char* end = nullptr;
  slo.percentile = std::strtod(p.c_str(), &end);
  if (p.empty() || *end != '\0' || !(slo.percentile > 0 && slo.percentile < 100)) {
    return bad("the percentile must be a number above 0 and below 100");
  }
  size_t unit_at = 0;
  while (unit_at < limit.size() && (std::isdigit(static_cast<unsigned char>(limit[unit_at])) || limit[unit_at] == '.')) {
    ++unit_at;
  }
  const std::string number = limit.substr(0, unit_at), unit = limit.substr(unit_at);
  const double v = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(v > 0)) return bad("the limit must be a number above 0");
  double scale = 0;
  if (unit.empty() || unit == "ms") scale = 1e6;
  if (unit == "ns") scale = 1;
  if (unit == "us" || unit == "µs") scale = 1e3;
  if (unit == "s") scale = 1e9;
  if (scale == 0) return bad("unknown unit '" + unit + "' (ns, us, ms, s)");
  if (v * scale > 3.6e12) return bad("the limit is above an hour");
  slo.limit_ns = std::max<int64_t>(1, std::llround(v * scale));
  return slo;
}

const char* SloOutcomeName(SloOutcome o) {
  switch (o) {
    case SloOutcome::kPass: return "pass";
    case SloOutcome::kFail: return "fail";
    case SloOutcome::kUndecided: return "undecided";
  }
  return "?";
}

double RoundRate(double rate) {
  if (!(rate > 0)) return 0;
  const double magnitude = std::pow(10.0, std::floor(std::log10(rate)) - 2);
  return std::max(1.0, std::round(rate / magnitude) * magnitude);
}

SloRun DecideSloRun(const Slo& slo, double rate, const Validity& v, double achieved, int64_t send_lag_p99_ns) {
  SloRun run;
  run.rate = rate;
  run.achieved = achieved;
  run.validity = v.Verdict();
  bool found = false;
  for (const CommandIntervals& ci : v.intervals) {
    if (ci.command != "Total") continue;
    for (const PercentileCi& p : ci.percentiles) {
      if (p.percentile != slo.percentile) continue;
      run.value_ns = p.value_ns;
      run.low_ns = p.low_ns;
      run.high_ns = p.high_ns;
      found = ci.n > 0;
    }
  }
  std::vector<std::string> instrument, system;
  bool rate_kept = true;
  for (const ValidityCheck& c : v.checks) {
    if (c.status != CheckStatus::kSuspect) continue;
    if (c.name == "rate") rate_kept = false;
    // The correlation is in the interval already (its effective samples): not a veto.
    if (c.name == "independence") continue;
    if (c.name == "send lag" && send_lag_p99_ns >= 0 &&
        static_cast<double>(send_lag_p99_ns) <= kSloLagShare * static_cast<double>(slo.limit_ns)) {
      continue;
    }
    (IsInstrumentCheck(c.name) ? instrument : system).push_back(c.name);
  }
  auto join = [](const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  };
  if (!instrument.empty()) {
    run.why = "the instrument's checks are suspect (" + join(instrument) + "): decides nothing";
    return run;
  }
  if (!rate_kept) {
    run.outcome = SloOutcome::kFail;
    run.sure = true;
    run.why = "the schedule was not kept: this rate is not served";
    return run;
  }
  if (!found) {
    run.why = "no measured reply";
    return run;
  }
  const bool under = run.value_ns <= slo.limit_ns;
  if (!system.empty()) {
    if (run.low_ns > slo.limit_ns) {
      run.outcome = SloOutcome::kFail;
      run.sure = true;
      run.why = "over the limit with its whole interval, and not a steady state (" + join(system) + ")";
    } else {
      run.why = "not a steady state (" + join(system) + "): decides nothing";
    }
    return run;
  }
  run.outcome = under ? SloOutcome::kPass : SloOutcome::kFail;
  run.sure = under ? run.high_ns <= slo.limit_ns : run.low_ns > slo.limit_ns;
  run.why = fmt::format("{} the limit{}", under ? "under" : "over",
                        run.sure ? " with its whole interval" : ", its interval across it");
  return run;
}

bool SloSearch::Level::complete(int repeat) const {
  // A clear majority ends a level early: the rest could not turn it.
  return decided() >= repeat || passes > repeat / 2 || fails > repeat / 2;
}

SloSearch::SloSearch(Slo slo, SloSearchOptions options) : slo_(std::move(slo)), opt_(options) {}

const SloSearch::Level* SloSearch::Find(double rate) const {
  for (const Level& l : levels_) {
    if (l.rate == rate) return &l;
  }
  return nullptr;
}

void SloSearch::Add(SloRun run) {
  Level* level = nullptr;
  for (Level& l : levels_) {
    if (l.rate == run.rate) level = &l;
  }
  if (level == nullptr) {
    levels_.push_back({run.rate});
    level = &levels_.back();
  }
  if (run.outcome == SloOutcome::kUndecided) {
    ++level->undecided;
  } else {
    ++(run.outcome == SloOutcome::kPass ? level->passes : level->fails);
    level->all_sure &= run.sure;
  }
  // Undecided runs are retried: up to twice the decided ones asked for, and at least 3.
  if (level->undecided >= std::max(3, 2 * opt_.repeat) && level->decided() == 0 && stop_.empty()) {
    stop_ = fmt::format("{} runs at {} decided nothing (their checks were suspect): the search stops there",
                        level->undecided, RateText(level->rate));
  }
  runs_.push_back(std::move(run));
}

double SloSearch::HighestPass() const {
  double best = 0;
  for (const Level& l : levels_) {
    if (l.complete(opt_.repeat) && l.passed()) best = std::max(best, l.rate);
  }
  return best;
}

double SloSearch::LowestFail() const {
  double best = 0;
  for (const Level& l : levels_) {
    if (l.complete(opt_.repeat) && !l.passed() && (best == 0 || l.rate < best)) best = l.rate;
  }
  return best;
}

std::optional<double> SloSearch::NextRate() const {
  // The level under way, if any, runs again.
  for (const Level& l : levels_) {
    if (!l.complete(opt_.repeat)) return l.rate;
  }
  const double pass = HighestPass(), fail = LowestFail();
  if (fail == 0) {
    // Growing: double from the start until a rate fails.
    const double next = pass == 0 ? RoundRate(opt_.start_rate) : RoundRate(pass * 2);
    if (pass >= opt_.max_rate) return std::nullopt;
    return std::min(next, RoundRate(opt_.max_rate));
  }
  if (pass == 0) {
    // The first rate failed: halve until one passes (down to 1/s).
    const double next = RoundRate(fail / 2);
    if (next < 1 || fail <= 1) return std::nullopt;
    return next;
  }
  if (fail <= pass) return std::nullopt;  // a lower rate failed where a higher passed: stop
  if ((fail - pass) / fail <= opt_.precision) return std::nullopt;
  const double mid = RoundRate((pass + fail) / 2);
  if (mid <= pass || mid >= fail || Find(mid) != nullptr) return std::nullopt;  // 3 digits: no room left
  return mid;
}

std::optional<double> SloSearch::Next() const {
  if (!stop_.empty() || static_cast<int>(runs_.size()) >= opt_.max_runs) return std::nullopt;
  return NextRate();
}

SloSearch::Answer SloSearch::Conclude() const {
  Answer a;
  const double pass = HighestPass(), fail = LowestFail();
  a.found = pass > 0 && (fail == 0 || pass < fail);
  a.rate = a.found ? pass : 0;
  for (const Level& l : levels_) {
    if (!l.complete(opt_.repeat) || !l.all_sure) continue;
    if (l.passed() && l.rate <= a.rate) a.low = std::max(a.low, l.rate);
    if (!l.passed() && l.rate > a.rate && (a.high == 0 || l.rate < a.high)) a.high = l.rate;
  }
  if (!stop_.empty()) {
    a.note = stop_;
  } else if (static_cast<int>(runs_.size()) >= opt_.max_runs && NextRate()) {
    a.note = fmt::format("the run budget (--slo-max-runs {}) ran out before the precision was reached", opt_.max_runs);
  } else if (fail == 0) {
    a.note = fmt::format("every rate up to --slo-max-rate {} passed", RateText(opt_.max_rate));
  } else if (pass == 0) {
    a.note = "no rate tried passed";
  } else if (fail <= pass) {
    a.note = fmt::format("{} failed below {}, which passed: the system is not monotonic here (or the runs are too "
                         "short)", RateText(fail), RateText(pass));
  } else {
    a.note = fmt::format("passing and failing rates within {:g}% of each other", opt_.precision * 100);
  }
  return a;
}

std::string SloRunLine(const Slo& slo, const SloRun& run) {
  if (!run.measured) return fmt::format("    {:>12}  not measured: {}", RateText(run.rate), run.why);
  return fmt::format("    {:>12}  achieved {:>12.1f}/s  p{:g} {:>10.1f} µs [{:.1f} .. {:.1f}]  {:<9} {}  ({})",
                     RateText(run.rate), run.achieved, slo.percentile, run.value_ns / 1e3, run.low_ns / 1e3,
                     run.high_ns / 1e3, SloOutcomeName(run.outcome), run.why, run.validity);
}

std::string SloAnswerLine(const Slo& slo, const SloSearch::Answer& a, double confidence) {
  const std::string what = fmt::format("the highest rate whose p{:g} stays under {}", slo.percentile, LimitText(slo.limit_ns));
  if (!a.found) return what + ": none found (" + a.note + ")";
  return fmt::format("{}: {} [{} .. {}] at {:g}% ({})", what, RateText(a.rate), a.low > 0 ? RateText(a.low) : "none sure",
                     a.high > 0 ? RateText(a.high) : "none sure", confidence * 100, a.note);
}

nlohmann::ordered_json SloSearchJson(const SloSearch& search, double confidence) {
  Json runs = Json::array();
  for (const SloRun& r : search.runs()) {
    runs.push_back({{"rate_per_s", r.rate}, {"measured", r.measured}, {"achieved_per_s", r.achieved},
                    {"value_us", r.value_ns / 1e3}, {"low_us", r.low_ns / 1e3}, {"high_us", r.high_ns / 1e3},
                    {"outcome", SloOutcomeName(r.outcome)}, {"sure", r.sure}, {"why", r.why},
                    {"validity", r.validity}});
  }
  const SloSearch::Answer a = search.Conclude();
  const SloSearchOptions& o = search.options();
  return {{"schema", "memstand.slo_search"},
          {"version", 1},
          {"slo", {{"text", search.slo().text}, {"percentile", search.slo().percentile},
                   {"limit_us", search.slo().limit_ns / 1e3}}},
          {"confidence", confidence},
          {"options", {{"start_per_s", o.start_rate}, {"max_per_s", o.max_rate}, {"precision", o.precision},
                       {"repeat", o.repeat}, {"max_runs", o.max_runs}}},
          {"answer", {{"found", a.found}, {"rate_per_s", a.found ? Json(a.rate) : Json(nullptr)},
                      {"low_per_s", a.low > 0 ? Json(a.low) : Json(nullptr)},
                      {"high_per_s", a.high > 0 ? Json(a.high) : Json(nullptr)}, {"note", a.note}}},
          {"runs", runs}};
}

}  // namespace memstand
