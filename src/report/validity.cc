#include "report/validity.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "report/consistency.h"
#include "report/run_report.h"
#include "stats/encoded_histogram.h"
#include "stats/validity_math.h"

namespace memstand {

namespace {

using Json = nlohmann::ordered_json;

std::string Us(double ns) { return fmt::format("{:.1f} µs", ns / 1000); }

std::string PercentLabel(double p) { return fmt::format("p{:g}", p); }

// Every block of every thread, as doubles.
std::vector<std::vector<double>> Blocks(const RunResult& r, BlockSample ThreadStats::*which) {
  std::vector<std::vector<double>> out;
  for (const ThreadStats& t : r.threads) {
    for (std::span<const int64_t> b : (t.*which).blocks()) out.emplace_back(b.begin(), b.end());
  }
  return out;
}

// ---- The schedule.

ValidityCheck CheckRate(const LoadOptions& o, const RunResult& r) {
  const char* kThreshold = "achieved at least 99% of --rate";
  if (o.rate <= 0) return NotJudgedCheck("rate", kThreshold, "closed loop: no rate was asked");
  const double achieved = AchievedRate(o, r);
  const double share = achieved / o.rate;
  return JudgedCheck("rate", fmt::format("achieved {:.1f}/s of {:.10g}/s ({:.2f}%)", achieved, o.rate, share * 100),
                kThreshold, !RateFellShort(o, r),
                "the schedule was not kept: the client or the server could not send at the rate asked");
}

ValidityCheck CheckSendLag(const LoadOptions& o, const CommandStats& all) {
  const char* kThreshold = "send lag p99 at most the latency's p50";
  if (o.rate <= 0) return NotJudgedCheck("send lag", kThreshold, "closed loop: requests leave on replies");
  if (all.latency_ns.total_count() == 0) return NotJudgedCheck("send lag", kThreshold, "no measured reply");
  const double lag = static_cast<double>(all.send_lag_ns.ValueAtPercentile(99));
  const double p50 = static_cast<double>(all.latency_ns.ValueAtPercentile(50));
  return JudgedCheck("send lag", fmt::format("send lag p99 {} against latency p50 {}", Us(lag), Us(p50)),
                kThreshold, lag <= kValidLagToP50 * p50,
                "the client's own delay in sending is as large as a typical operation: the upper "
                "percentiles may be the client's, not the server's");
}

// ---- Stationarity: the first third of the full seconds against the last.

struct Third {
  double ops_per_s = 0;
  HdrHistogram latency;
};

Third MergeThird(const RunResult& r, size_t commands, int from, int to) {
  Third t;
  int seconds = 0;
  for (const SeriesPoint& p : r.series.back()) {
    if (p.second < from || p.second >= to) continue;
    t.ops_per_s += static_cast<double>(p.ops);
    ++seconds;
  }
  if (seconds > 0) t.ops_per_s /= seconds;
  for (size_t c = 0; c < commands && c < r.series.size(); ++c) {
    for (const SeriesPoint& p : r.series[c]) {
      if (p.second < from || p.second >= to || p.latency.v2_base64.empty()) continue;
      auto h = DecodeHistogram(p.latency);
      if (h.ok()) t.latency.Add(*h);
    }
  }
  return t;
}

struct Interval {
  int64_t value = 0, low = 0, high = 0;
  bool clamped = false;
};

int64_t ValueAtRank(const HdrHistogram& h, double rank) {
  const double n = static_cast<double>(h.total_count());
  return h.ValueAtPercentile(std::clamp(100.0 * rank / n, 0.0, 100.0));
}

// The percentile's interval: the ranks for `effective_ratio` x n independent samples,
// scaled back to the n recorded (a correlated sample is worth fewer, so its interval
// spans more of its ranks).
Interval IntervalOf(const HdrHistogram& h, double p, double effective_ratio, double confidence) {
  Interval out;
  const uint64_t n = static_cast<uint64_t>(h.total_count());
  out.value = out.low = out.high = h.ValueAtPercentile(p);
  if (n == 0) return out;
  const uint64_t m = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(static_cast<double>(n) * effective_ratio)));
  auto ranks = PercentileRankInterval(m, p, confidence);
  if (!ranks) return out;
  const double scale = static_cast<double>(n) / static_cast<double>(m);
  out.clamped = ranks->clamped;
  out.low = ranks->lower <= 1 ? h.min() : ValueAtRank(h, std::max(1.0, std::floor(ranks->lower * scale)));
  out.high = ranks->upper >= m ? h.max()
                               : ValueAtRank(h, std::min(static_cast<double>(n), std::ceil(ranks->upper * scale)));
  return out;
}

ValidityCheck CheckStationarity(const LoadOptions& o, const RunResult& r, double effective_ratio,
                                double confidence) {
  const std::string threshold = fmt::format(
      "first third against last: throughput within {:g}%; p50 and p99 not apart by more than {:g}% "
      "with their intervals disjoint; no Mann-Kendall trend (p < {:g}) moving throughput by more than {:g}%",
      kValidThroughputShift * 100, kValidPercentileShift * 100, kValidTrendP, kValidThroughputShift * 100);
  const int full = static_cast<int>(std::floor(r.measured_s + 1e-9));
  if (r.series.empty() || full < 3) {
    return NotJudgedCheck("stationarity", threshold,
                     fmt::format("{} full second(s) measured: a third needs one at least", full));
  }
  const int third = full / 3;
  const Third first = MergeThird(r, o.commands.size(), 0, third);
  const Third last = MergeThird(r, o.commands.size(), full - third, full);
  std::vector<std::string> found;
  std::string figure;
  if (first.ops_per_s > 0) {
    const double shift = last.ops_per_s / first.ops_per_s - 1;
    figure += fmt::format("throughput {:.0f}/s then {:.0f}/s ({:+.1f}%)", first.ops_per_s, last.ops_per_s,
                          shift * 100);
    if (std::fabs(shift) > kValidThroughputShift) found.push_back("throughput");
  } else if (last.ops_per_s > 0) {
    figure += fmt::format("throughput 0/s then {:.0f}/s", last.ops_per_s);
    found.push_back("throughput");
  }
  for (double p : {50.0, 99.0}) {
    if (first.latency.total_count() == 0 || last.latency.total_count() == 0) {
      if (first.latency.total_count() != last.latency.total_count()) found.push_back(PercentLabel(p));
      continue;
    }
    const Interval a = IntervalOf(first.latency, p, effective_ratio, confidence);
    const Interval b = IntervalOf(last.latency, p, effective_ratio, confidence);
    const double shift = static_cast<double>(b.value) / std::max<double>(1, static_cast<double>(a.value)) - 1;
    figure += fmt::format("; {} {} [{} .. {}] then {} [{} .. {}]", PercentLabel(p), Us(a.value), Us(a.low),
                          Us(a.high), Us(b.value), Us(b.low), Us(b.high));
    const bool apart = b.low > a.high || a.low > b.high;
    if (apart && std::fabs(shift) > kValidPercentileShift) found.push_back(PercentLabel(p));
  }
  std::vector<double> ops;
  for (const SeriesPoint& p : r.series.back()) {
    if (p.second < full) ops.push_back(static_cast<double>(p.ops));
  }
  if (auto mk = MannKendall(ops); mk) {
    std::vector<double> sorted = ops;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    const double moved = std::fabs(mk->slope) * static_cast<double>(ops.size() - 1);
    figure += fmt::format("; Mann-Kendall over {} seconds' throughput: z {:.2f}, p {:.3g}, Sen's slope {:+.1f}/s per s",
                          ops.size(), mk->z, mk->p_value, mk->slope);
    if (mk->p_value < kValidTrendP && median > 0 && moved > kValidThroughputShift * median) {
      found.push_back("throughput trend");
    }
  }
  std::string which;
  for (const auto& f : found) which += (which.empty() ? "" : ", ") + f;
  return JudgedCheck("stationarity", figure, threshold, found.empty(),
                "not a steady state (" + which + " changed between the first and the last third): the "
                "figures average over different regimes");
}

// ---- Independence and the intervals.

struct Correlation {
  std::optional<double> rho1;
  size_t vanished_at = 0;  // 0: not within kValidMaxLag
  uint64_t n = 0;          // samples in the blocks
};

Correlation Correlate(const std::vector<std::vector<double>>& blocks) {
  Correlation c;
  for (const auto& b : blocks) c.n += b.size();
  c.rho1 = SpearmanAtLagInBlocks(blocks, 1);
  for (size_t lag = 1; lag <= kValidMaxLag; lag *= 2) {
    auto rho = lag == 1 ? c.rho1 : SpearmanAtLagInBlocks(blocks, lag);
    if (!rho) break;
    if (std::fabs(*rho) < kValidRhoVanished) {
      c.vanished_at = lag;
      break;
    }
  }
  return c;
}

ValidityCheck CheckIndependence(const Correlation& c, uint64_t measured, double ratio) {
  const std::string threshold =
      fmt::format("the correlation of consecutive latencies vanishes (|rho| < {:g}) by lag {}", kValidRhoVanished,
                  kValidMaxLag);
  if (!c.rho1) return NotJudgedCheck("independence", threshold, fmt::format("{} latency samples in runs: too few", c.n));
  const std::string figure = fmt::format(
      "Spearman lag 1 {:.3f} over {} consecutive samples; {}; effective samples {:.0f} of {} (the intervals use them)",
      *c.rho1, c.n,
      c.vanished_at > 0 ? fmt::format("vanished by lag {}", c.vanished_at)
                        : fmt::format("still there at lag {}", kValidMaxLag),
      static_cast<double>(measured) * ratio, measured);
  return JudgedCheck("independence", figure, threshold, c.vanished_at > 0,
                "latencies stay correlated over long spans (a drift, a slow oscillation, a neighbour's bursts): "
                "the samples are not a random sample of one distribution");
}

// ---- The instrument's own checks, gathered.

ValidityCheck CheckSaturation(const RunResult& r) {
  const char* kThreshold = "every load thread below 90% of a core";
  if (r.measured_s <= 0 || r.threads.empty()) return NotJudgedCheck("client saturation", kThreshold, "no measured time");
  double busiest = 0;
  for (const ThreadStats& t : r.threads) busiest = std::max(busiest, (t.cpu_user_s + t.cpu_sys_s) / r.measured_s);
  return JudgedCheck("client saturation", fmt::format("busiest load thread {:.0f}% of a core", busiest * 100), kThreshold,
                busiest < kValidBusyThread, "the client may be the bottleneck: the figures may be memstand's");
}

ValidityCheck CheckClock(const RunResult& r) {
  const char* kThreshold = "at most 1% of durations measured 0 ns";
  const uint64_t ops = r.measured_ops();
  if (ops == 0) return NotJudgedCheck("clock", kThreshold, "no measured reply");
  uint64_t zero = 0;
  for (const auto& c : r.totals.commands) zero += c.zero_latency;
  const double share = static_cast<double>(zero) / static_cast<double>(ops);
  return JudgedCheck("clock", fmt::format("{} of {} durations 0 ns ({:.3f}%)", zero, ops, share * 100), kThreshold,
                share <= kValidZeroShare, "the clock is too coarse for these latencies");
}

ValidityCheck CheckCrossCheck(const RunResult& r) {
  const char* kThreshold = "the server's counts equal memstand's (within the requests lost in flight)";
  const CrossCheck& cc = r.cross_check;
  if (!cc.available) return NotJudgedCheck("cross-check", kThreshold, cc.unavailable_reason);
  std::string differ;
  int shown = 0;
  for (const CrossCheckRow& row : cc.rows) {
    if (row.server <= row.memstand && row.server >= row.memstand - row.unknown) continue;
    if (shown++ == 3) {
      differ += ", ...";
      break;
    }
    differ += fmt::format("{} {} memstand {} server {}", shown == 1 ? ":" : ",", row.command, row.memstand, row.server);
  }
  return JudgedCheck("cross-check", fmt::format("{} command(s) compared{}{}", cc.rows.size(), cc.mismatch ? ", counts differ" : ", equal", differ),
                kThreshold, !cc.mismatch,
                "the server executed another count than memstand sent: another client, or a miscount");
}

ValidityCheck CheckUnanswered(const LoadOptions& o, const RunResult& r) {
  const char* kThreshold = "every request answered (with --reconnect: each one without a reply counted fail or unknown)";
  uint64_t accounted = 0;
  for (const auto& c : r.totals.commands) accounted += c.lost;
  const bool pass = r.unanswered == 0 || (o.reconnect.enabled && accounted >= r.unanswered);
  return JudgedCheck("unanswered", fmt::format("{} request(s) without a reply", r.unanswered), kThreshold, pass,
                "requests went unanswered and are in no histogram: the percentiles leave them out");
}

LatencyFigures FiguresOf(const std::string& label, const HdrHistogram& h, const std::vector<double>& percentiles,
                         double measured_s) {
  LatencyFigures f;
  f.label = label;
  f.mean_ns = h.mean();
  f.min_ns = static_cast<double>(h.min());
  f.max_ns = static_cast<double>(h.max());
  for (double p : percentiles) f.percentiles.emplace_back(p, static_cast<double>(h.ValueAtPercentile(p)));
  f.ops = static_cast<double>(h.total_count());
  f.throughput_per_s = measured_s > 0 ? f.ops / measured_s : 0;
  return f;
}

}  // namespace

bool Validity::suspect() const {
  return std::any_of(checks.begin(), checks.end(), [](const auto& c) { return c.status == CheckStatus::kSuspect; });
}

std::vector<std::string> Validity::Reasons() const {
  std::vector<std::string> out;
  for (const auto& c : checks) {
    if (c.status == CheckStatus::kSuspect) out.push_back(c.name + ": " + c.reason);
  }
  return out;
}

std::string Validity::Verdict() const {
  if (!suspect()) return "valid";
  std::string names;
  for (const auto& c : checks) {
    if (c.status == CheckStatus::kSuspect) names += (names.empty() ? "" : ", ") + c.name;
  }
  return "suspect (" + names + ")";
}

std::vector<std::vector<std::vector<double>>> SentGaps(const RunResult& r) {
  std::vector<std::vector<std::vector<double>>> gaps;
  for (const ThreadStats& t : r.threads) {
    std::vector<std::vector<double>> blocks;
    for (std::span<const int64_t> b : t.send_gaps.blocks()) blocks.emplace_back(b.begin(), b.end());
    gaps.push_back(std::move(blocks));
  }
  return gaps;
}

ValidityCheck CheckInterArrival(bool poisson, const std::vector<std::vector<std::vector<double>>>& gaps) {
  const std::string threshold =
      poisson ? fmt::format("Anderson-Darling against the exponential under {:g} x its 1% critical value ({:.3f}), "
                            "over at most {} gaps",
                            kValidAdFactor, kValidAdFactor * kAdExponential1Pct, kValidAdSamples)
              : fmt::format("coefficient of variation of the gaps at most {:g}", kValidConstantCv);
  std::vector<double> all;
  for (const auto& thread : gaps) {
    double sum = 0;
    size_t n = 0;
    for (const auto& b : thread) {
      sum = std::accumulate(b.begin(), b.end(), sum);
      n += b.size();
    }
    if (n == 0 || sum <= 0) continue;
    const double mean = sum / static_cast<double>(n);
    for (const auto& b : thread) {
      for (double g : b) all.push_back(g / mean);
    }
  }
  if (all.size() < 8) {
    return NotJudgedCheck("inter-arrival", threshold, fmt::format("{} gaps between sends: too few", all.size()));
  }
  // Evenly spaced picks: the blocks are spread over the run already.
  std::vector<double> picked;
  const size_t step = (all.size() + kValidAdSamples - 1) / kValidAdSamples;
  for (size_t i = 0; i < all.size(); i += step) picked.push_back(all[i]);
  if (poisson) {
    auto a2 = AndersonDarlingExponential(picked);
    if (!a2) return NotJudgedCheck("inter-arrival", threshold, "the gaps' mean is 0");
    return JudgedCheck("inter-arrival", fmt::format("Anderson-Darling A² {:.3f} over {} gaps (of {})", *a2, picked.size(), all.size()),
                  threshold, *a2 < kValidAdFactor * kAdExponential1Pct,
                  "the sends were not a Poisson process: the load is not the one asked for");
  }
  auto cv = CoefficientOfVariation(picked);
  if (!cv) return NotJudgedCheck("inter-arrival", threshold, "the gaps' mean is 0");
  return JudgedCheck("inter-arrival", fmt::format("coefficient of variation {:.3f} over {} gaps (of {})", *cv, picked.size(), all.size()),
                threshold, *cv <= kValidConstantCv,
                "the sends wandered off their constant schedule: the load is not the one asked for");
}

Validity AssessRun(const LoadOptions& o, const RunResult& r, double confidence) {
  Validity v;
  v.confidence = confidence;
  const Correlation corr = Correlate(Blocks(r, &ThreadStats::latency_runs));
  const double ratio = corr.rho1 ? EffectiveSampleSize(corr.n, *corr.rho1) / static_cast<double>(corr.n) : 1.0;
  const uint64_t measured = r.measured_ops();
  const CommandStats all = r.AllCommands();
  v.checks.push_back(CheckRate(o, r));
  v.checks.push_back(CheckSendLag(o, all));
  if (o.rate > 0 && o.schedule_per_thread) {
    v.checks.push_back(NotJudgedCheck("inter-arrival", "per-connection schedule only",
                                      "--schedule per-thread: the requests due at a wake-up leave together, so the "
                                      "gaps between sends are the loop's, not the schedule's; the send lag check "
                                      "bounds how far each left from its intended time"));
  } else if (o.rate > 0) {
    v.checks.push_back(CheckInterArrival(o.poisson, SentGaps(r)));
  } else {
    v.checks.push_back(NotJudgedCheck("inter-arrival", "open loop only", "closed loop: requests leave on replies"));
  }
  v.checks.push_back(CheckStationarity(o, r, ratio, confidence));
  v.checks.push_back(CheckIndependence(corr, measured, ratio));
  LatencyFigures total = FiguresOf("Total", all.latency_ns, o.percentiles, r.measured_s);
  if (o.rate <= 0 && !o.cluster) total.in_flight = static_cast<double>(o.connections()) * o.pipeline;
  v.checks.push_back(CheckLittlesLaw(total));
  v.checks.push_back(CheckMeanInBounds(total));
  v.checks.push_back(CheckSaturation(r));
  v.checks.push_back(CheckClock(r));
  v.checks.push_back(CheckCrossCheck(r));
  v.checks.push_back(CheckUnanswered(o, r));
  auto intervals = [&](const std::string& label, const HdrHistogram& h) {
    CommandIntervals ci;
    ci.command = label;
    ci.n = static_cast<uint64_t>(h.total_count());
    ci.effective_n = static_cast<double>(ci.n) * ratio;
    for (double p : o.percentiles) {
      const Interval in = IntervalOf(h, p, ratio, confidence);
      ci.percentiles.push_back({p, in.value, in.low, in.high, in.clamped});
    }
    v.intervals.push_back(std::move(ci));
  };
  if (o.commands.size() > 1) {
    for (size_t i = 0; i < o.commands.size(); ++i) intervals(o.commands[i].label, r.totals.commands[i].latency_ns);
  }
  intervals("Total", all.latency_ns);
  return v;
}

nlohmann::ordered_json ValidityJson(const Validity& v) {
  Json checks = Json::array();
  for (const auto& c : v.checks) {
    checks.push_back({{"name", c.name}, {"status", CheckStatusName(c.status)}, {"figure", c.figure},
                      {"threshold", c.threshold}, {"reason", c.reason.empty() ? Json(nullptr) : Json(c.reason)}});
  }
  Json intervals = Json::array();
  for (const auto& ci : v.intervals) {
    Json ps = Json::array();
    for (const auto& p : ci.percentiles) {
      ps.push_back({{"percentile", p.percentile}, {"value_us", p.value_ns / 1000.0}, {"low_us", p.low_ns / 1000.0},
                    {"high_us", p.high_ns / 1000.0}, {"clamped", p.clamped}});
    }
    intervals.push_back({{"command", ci.command}, {"samples", ci.n}, {"effective_samples", ci.effective_n},
                         {"percentiles", ps}});
  }
  return {{"verdict", v.suspect() ? "suspect" : "valid"}, {"reasons", v.Reasons()}, {"confidence", v.confidence},
          {"checks", checks}, {"intervals", intervals}};
}

void PrintValidity(std::FILE* out, const Validity& v) {
  for (const auto& c : v.checks) {
    fmt::print(out, "    {:<10} {:<26} {}\n", CheckStatusName(c.status), c.name, c.figure);
    if (c.status != CheckStatus::kPass) {
      fmt::print(out, "    {:<10} {:<26} {}{}\n", "", "", c.status == CheckStatus::kSuspect ? "" : "(",
                 c.reason + (c.status == CheckStatus::kSuspect ? "" : ")"));
    }
  }
  fmt::print(out, "    percentiles with their {:g}% intervals (order statistics of the effective samples), µs:\n",
             v.confidence * 100);
  for (const auto& ci : v.intervals) {
    std::string row;
    for (const auto& p : ci.percentiles) {
      row += fmt::format("  {} {:.1f} [{:.1f} .. {:.1f}{}]", PercentLabel(p.percentile), p.value_ns / 1000.0,
                         p.low_ns / 1000.0, p.high_ns / 1000.0, p.clamped ? "*" : "");
    }
    fmt::print(out, "    {:<8}{}\n", ci.command, row);
  }
  if (std::any_of(v.intervals.begin(), v.intervals.end(), [](const auto& ci) {
        return std::any_of(ci.percentiles.begin(), ci.percentiles.end(), [](const auto& p) { return p.clamped; });
      })) {
    fmt::print(out, "    (*: too few effective samples beyond it: the bound is the recorded extreme)\n");
  }
  fmt::print(out, "    statistics: {}\n", v.Verdict());
}

}  // namespace memstand
