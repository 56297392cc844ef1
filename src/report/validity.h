// A verdict on a run's statistics themselves (docs/method.md, "Validity"): did the
// schedule hold, do the sent gaps follow the model asked for, was the run a steady
// state, how correlated are its samples and how wide are its percentiles, do its own
// figures agree with each other (the mean inside what the percentiles allow, Little's
// law), and the instrument's existing checks gathered (client saturation, clock,
// cross-check, unanswered requests). Each check gives its figure, its threshold and
// pass / suspect / not judged; one suspect check makes the run suspect, with the reasons.
// Reads a RunResult (and the numbers of a report's JSON for the consistency checks);
// measures nothing.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/engine.h"
#include "load/load_options.h"

namespace memstand {

enum class CheckStatus { kPass, kSuspect, kNotJudged };
/// "pass", "suspect", "not judged".
const char* CheckStatusName(CheckStatus s);

struct ValidityCheck {
  std::string name;       // e.g. "rate", "stationarity"
  std::string figure;     // what was measured, with its numbers
  std::string threshold;  // what passes
  CheckStatus status = CheckStatus::kNotJudged;
  std::string reason;     // suspect: what it means; not judged: why not
};

/// The interval of one percentile, from the order statistics (validity_math.h) of the
/// effective sample count.
struct PercentileCi {
  double percentile = 0;
  int64_t value_ns = 0;
  int64_t low_ns = 0;
  int64_t high_ns = 0;
  /// Too few effective samples beyond the percentile: the bound on that side is the
  /// recorded extreme itself.
  bool clamped = false;
};

struct CommandIntervals {
  std::string command;  // a command's label, or "Total"
  uint64_t n = 0;       // samples
  double effective_n = 0;
  std::vector<PercentileCi> percentiles;
};

struct Validity {
  double confidence = 0.95;
  std::vector<ValidityCheck> checks;
  std::vector<CommandIntervals> intervals;  // each command, then Total

  bool suspect() const;
  /// "name: reason" of each suspect check.
  std::vector<std::string> Reasons() const;
  /// "valid", or "suspect (reason; reason)".
  std::string Verdict() const;
};

// Thresholds (docs/method.md gives each its source).
/// Open loop: the send lag's p99 at most this multiple of the latency's p50.
inline constexpr double kValidLagToP50 = 1.0;
/// Poisson arrivals: the Anderson-Darling statistic under this multiple of its 1%
/// critical value (Lancet's rule), over at most kValidAdSamples gaps.
inline constexpr double kValidAdFactor = 2.0;
inline constexpr size_t kValidAdSamples = 2000;
/// Constant arrivals: the sent gaps' coefficient of variation at most this.
inline constexpr double kValidConstantCv = 0.25;
/// Stationarity: the last third's throughput within this share of the first third's;
/// a percentile's two thirds differ when their intervals are apart and by more than
/// kValidPercentileShift; a Mann-Kendall trend counts at p < kValidTrendP when its
/// Sen's slope moves the series by more than kValidThroughputShift over the run.
inline constexpr double kValidThroughputShift = 0.10;
inline constexpr double kValidPercentileShift = 0.20;
inline constexpr double kValidTrendP = 0.01;
/// Independence: the lags at which the correlation is looked for, and below which
/// |rho| counts as vanished. (Too few effective samples for a percentile is not a
/// verdict: its interval says so, clamped at the extreme.)
inline constexpr size_t kValidMaxLag = 128;
inline constexpr double kValidRhoVanished = 0.1;
/// Little's law (closed loop): in flight against throughput x mean latency within this.
inline constexpr double kValidLittleGap = 0.05;
/// The mean inside the percentiles' bounds, with this slack for the histogram's
/// 3 significant digits.
inline constexpr double kValidMeanSlack = 0.01;
/// Client saturation: a load thread at this share of a core or more.
inline constexpr double kValidBusyThread = 0.9;
/// Clock: at most this share of zero-length durations.
inline constexpr double kValidZeroShare = 0.01;

/// The figures the consistency checks read: a run's own or those of a report's JSON.
struct LatencyFigures {
  std::string label;  // the command, or "Total"
  double mean_ns = 0;
  double min_ns = 0;
  double max_ns = 0;
  std::vector<std::pair<double, double>> percentiles;  // (percent, ns), ascending
  double ops = 0;                 // replies counted
  double throughput_per_s = 0;
  /// Closed loop: requests kept in flight (connections x pipeline); 0: open loop or
  /// unknown (Little's law not judged).
  double in_flight = 0;
};
ValidityCheck CheckMeanInBounds(const LatencyFigures& f);
ValidityCheck CheckLittlesLaw(const LatencyFigures& f);

/// The gaps between a client's sends, by thread (each thread's blocks of consecutive
/// gaps), against the arrival model: Anderson-Darling against the exponential for
/// Poisson, the coefficient of variation for constant. Each thread's gaps are divided
/// by that thread's mean first (threads' shares of the rate may differ by a remainder).
ValidityCheck CheckInterArrival(bool poisson, const std::vector<std::vector<std::vector<double>>>& gaps);
/// CheckInterArrival's input from a run: each load thread's blocks of sent gaps (ns).
std::vector<std::vector<std::vector<double>>> SentGaps(const RunResult& r);

/// The checks of a finished run and the intervals of its printed percentiles.
Validity AssessRun(const LoadOptions& o, const RunResult& r, double confidence = 0.95);

/// JSON `validity` (docs/json-format.md).
nlohmann::ordered_json ValidityJson(const Validity& v);
/// The text block's body (the caller prints the title).
void PrintValidity(std::FILE* out, const Validity& v);

/// The consistency checks redone from a run JSON's own numbers (its `commands` and
/// `totals` rows): what `memstand compare` applies to any report, its own or another
/// tool's converted to memstand's layout. Empty when the JSON has no latency figures.
std::vector<ValidityCheck> CheckReportJson(const nlohmann::json& run);

}  // namespace memstand
