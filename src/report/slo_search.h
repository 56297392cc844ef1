// `memstand sweep --slo "p99<=2ms"`: the highest open-loop rate whose percentile stays
// under a limit, with an interval, from runs the caller makes (docs/method.md, "SLO
// search"). The search is pure: it says which rate to run next and reads each run's
// outcome; the CLI makes the runs. Each run is decided by its percentile's interval and
// its validity: a run whose instrument checks are suspect decides nothing and is run
// again; a rate the schedule could not keep is a failure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/validity.h"
#include "util/status.h"

namespace memstand {

struct Slo {
  double percentile = 99;  // 0 < p < 100
  int64_t limit_ns = 0;    // > 0
  std::string text;        // as given, e.g. "p99<=2ms"
};
/// "pP<=N[unit]" with unit ns, us, µs, ms or s (no unit: ms), P in (0, 100), N > 0.
/// Errors are InvalidArgument naming --slo.
Result<Slo> ParseSlo(std::string_view text);

enum class SloOutcome { kPass, kFail, kUndecided };
const char* SloOutcomeName(SloOutcome o);  // "pass", "fail", "undecided"

/// One run of the search.
struct SloRun {
  double rate = 0;
  double achieved = 0;  // the send rate achieved
  int64_t value_ns = 0;  // the SLO's percentile and its interval
  int64_t low_ns = 0;
  int64_t high_ns = 0;
  std::string validity;  // Validity::Verdict()
  SloOutcome outcome = SloOutcome::kUndecided;
  /// Decided and the interval lies wholly on its side of the limit (or the rate was not
  /// kept): a bound of the answer's interval.
  bool sure = false;
  std::string why;  // what decided it
  bool measured = true;  // false: the run failed (no figures); why says why
};

/// Decides a run from its validity and the SLO percentile's interval.
/// Instrument checks (send lag, inter-arrival, client saturation, clock, cross-check,
/// unanswered) suspect: undecided. The rate not kept: fail, sure. Else the percentile
/// against the limit: pass when at or under it (sure when the interval is, and no other
/// check is suspect), fail when over (sure when the interval is). A run suspect for the
/// steady state decides only a failure whose whole interval is over the limit (an
/// overload that keeps growing), else nothing. Independence is no veto: the interval
/// is computed from the effective samples, so the correlation widens it already.
/// The send lag's check is set aside when the lag's p99 (`send_lag_p99_ns`, -1: not
/// known) is at most kSloLagShare of the limit: a client lag that small cannot move the
/// answer.
SloRun DecideSloRun(const Slo& slo, double rate, const Validity& v, double achieved, int64_t send_lag_p99_ns = -1);
inline constexpr double kSloLagShare = 0.1;

struct SloSearchOptions {
  double start_rate = 1000;
  double max_rate = 1e7;
  double precision = 0.05;  // stop when (fail - pass) / fail is at most this
  int repeat = 3;           // decided runs per rate
  int max_runs = 30;        // runs in all, undecided ones included
};

class SloSearch {
 public:
  SloSearch(Slo slo, SloSearchOptions options);

  /// The rate to run next; nullopt when the search is over.
  std::optional<double> Next() const;
  void Add(SloRun run);

  struct Answer {
    bool found = false;  // a rate passed
    double rate = 0;     // the highest rate that passed, below the lowest that failed
    double low = 0;      // the highest rate that surely passed (0: none)
    double high = 0;     // the lowest rate that surely failed (0: none)
    std::string note;    // why the search ended where it did
  };
  Answer Conclude() const;
  const std::vector<SloRun>& runs() const { return runs_; }
  const Slo& slo() const { return slo_; }
  const SloSearchOptions& options() const { return opt_; }

 private:
  struct Level {
    double rate = 0;
    int passes = 0, fails = 0, undecided = 0;
    bool all_sure = true;
    int decided() const { return passes + fails; }
    bool complete(int repeat) const;
    bool passed() const { return passes > fails; }  // a tie fails: the careful side
  };
  const Level* Find(double rate) const;
  /// The highest rate whose level passed, and the lowest that failed (0: none).
  double HighestPass() const;
  double LowestFail() const;
  std::optional<double> NextRate() const;

  Slo slo_;
  SloSearchOptions opt_;
  std::vector<SloRun> runs_;
  std::vector<Level> levels_;
  std::string stop_;  // set when the search cannot go on
};

/// A rate rounded to 3 significant digits (the rates the search tries).
double RoundRate(double rate);

/// The text lines of a run and of the end.
std::string SloRunLine(const Slo& slo, const SloRun& run);
std::string SloAnswerLine(const Slo& slo, const SloSearch::Answer& a, double confidence);
nlohmann::ordered_json SloSearchJson(const SloSearch& search, double confidence);

}  // namespace memstand
