// The consistency checks of a run's own figures (report/validity.h): apart from the
// rest of the validity, so that the readers of JSON files (compare, and the fuzz targets
// that build them without the library) need only these, validity_math, fmt and nlohmann.
#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "report/consistency.h"
#include "stats/validity_math.h"

namespace memstand {

namespace {

std::string ConsistencyUs(double ns) { return fmt::format("{:.1f} µs", ns / 1000); }

}  // namespace

ValidityCheck JudgedCheck(std::string name, std::string figure, std::string threshold, bool pass,
                          std::string reason) {
  ValidityCheck c{std::move(name), std::move(figure), std::move(threshold),
                  pass ? CheckStatus::kPass : CheckStatus::kSuspect, ""};
  if (!pass) c.reason = std::move(reason);
  return c;
}

ValidityCheck NotJudgedCheck(std::string name, std::string threshold, std::string why) {
  return {std::move(name), "-", std::move(threshold), CheckStatus::kNotJudged, std::move(why)};
}

const char* CheckStatusName(CheckStatus s) {
  switch (s) {
    case CheckStatus::kPass: return "pass";
    case CheckStatus::kSuspect: return "suspect";
    case CheckStatus::kNotJudged: return "not judged";
  }
  return "?";
}

ValidityCheck CheckMeanInBounds(const LatencyFigures& f) {
  const std::string name = "mean in bounds (" + f.label + ")";
  const char* kThreshold = "the mean between the least and the most the percentiles, min and max allow";
  if (f.ops <= 0) return NotJudgedCheck(name, kThreshold, "no sample");
  auto b = MeanBoundsFromPercentiles(f.percentiles, f.min_ns, f.max_ns);
  if (!b) return JudgedCheck(name, "percentiles not ascending, or outside min..max", kThreshold, false,
                        "the figures contradict each other");
  const bool pass = f.mean_ns >= b->low * (1 - kValidMeanSlack) && f.mean_ns <= b->high * (1 + kValidMeanSlack);
  return JudgedCheck(name, fmt::format("mean {} within [{} .. {}]", ConsistencyUs(f.mean_ns), ConsistencyUs(b->low), ConsistencyUs(b->high)), kThreshold,
                pass, "no distribution has these percentiles and this mean: a figure is wrong, or they come "
                      "from different samples");
}

ValidityCheck CheckLittlesLaw(const LatencyFigures& f) {
  const std::string threshold = fmt::format("requests in flight within {:g}% of throughput x mean latency", kValidLittleGap * 100);
  if (f.in_flight <= 0) return NotJudgedCheck("Little's law", threshold, "not a closed loop with a known window");
  auto gap = LittlesLawGap(f.in_flight, f.throughput_per_s, f.mean_ns / 1e9);
  if (!gap) return NotJudgedCheck("Little's law", threshold, "no throughput or no latency");
  return JudgedCheck("Little's law",
                fmt::format("in flight {:g}; throughput {:.1f}/s x mean {} = {:.2f} ({:.1f}% apart)", f.in_flight,
                            f.throughput_per_s, ConsistencyUs(f.mean_ns), f.throughput_per_s * f.mean_ns / 1e9, *gap * 100),
                threshold, *gap <= kValidLittleGap,
                "the window the client keeps and the figures disagree: time outside the measured latency "
                "(the client busy between a reply and the next send), or a miscounted figure");
}

std::vector<ValidityCheck> CheckReportJson(const nlohmann::json& run) {
  std::vector<ValidityCheck> out;
  auto figures = [&](const nlohmann::json& row) -> std::optional<LatencyFigures> {
    if (!row.is_object() || !row.contains("latency") || !row["latency"].is_object()) return std::nullopt;
    const auto& l = row["latency"];
    LatencyFigures f;
    f.label = row.value("command", "?");
    f.mean_ns = l.value("mean_us", 0.0) * 1000;
    f.min_ns = l.value("min_us", 0.0) * 1000;
    f.max_ns = l.value("max_us", 0.0) * 1000;
    f.ops = l.value("count", 0.0);
    f.throughput_per_s = row.value("ops_per_sec", 0.0);
    if (l.contains("percentiles_us") && l["percentiles_us"].is_object()) {
      for (const auto& [key, value] : l["percentiles_us"].items()) {
        if (!value.is_number()) continue;
        f.percentiles.emplace_back(std::atof(key.c_str()), value.get<double>() * 1000);
      }
    }
    std::sort(f.percentiles.begin(), f.percentiles.end());
    return f;
  };
  if (!run.is_object()) return out;
  auto total = run.contains("totals") ? figures(run["totals"]) : std::nullopt;
  if (!total) return out;
  const auto& opt = run.contains("options") && run["options"].is_object() ? run["options"] : nlohmann::json::object();
  if (opt.value("loop", "") == "closed" && !opt.value("cluster", false)) {
    total->in_flight = opt.value("connections", 0.0) * opt.value("pipeline", 0.0);
  }
  out.push_back(CheckMeanInBounds(*total));
  out.push_back(CheckLittlesLaw(*total));
  return out;
}

}  // namespace memstand
