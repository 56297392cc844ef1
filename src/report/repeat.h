// The figures of repeated runs (`memstand run --runs N`) as ranges: min, median and max
// over the runs that ended OK, each with its N (docs/method.md rule 8), and the runs that
// failed or were interrupted counted with their reasons (rule 16). Pure arithmetic.
#pragma once

#include <string>
#include <vector>

namespace memstand {

/// One number of one run, e.g. row "GET", key "p99_us".
struct Figure {
  std::string row;    // a command label, "Total", "client" or "server"
  std::string key;    // JSON name, e.g. "ops_per_sec", "p99.9_us", "cpu_us_per_request"
  std::string label;  // text name, e.g. "ops/s", "p99.9 µs"
  double value = 0;
};

enum class RunOutcome { kOk, kFailed, kInterrupted };

/// What a summary takes from one run.
struct RunFigures {
  RunOutcome outcome = RunOutcome::kOk;
  std::string reason;            // why, when not kOk (the run's verdict)
  std::vector<Figure> figures;   // what the run measured; a figure it lacks is absent
};

/// min / median / max over n values. The median of an even n is the mean of the two
/// middle values.
struct Range {
  double min = 0;
  double median = 0;
  double max = 0;
  int n = 0;
  /// The median's interval between runs: the order statistics [X_(k), X_(n+1-k)] with
  /// the largest k whose exact binomial coverage is at least 95%, and that coverage
  /// (1 - 2 P(Binomial(n, 1/2) <= k - 1)). Below 6 runs even [min, max] covers less than
  /// 95%: then it is [min, max] with its smaller coverage (1 run: 0).
  double median_low = 0;
  double median_high = 0;
  double median_coverage = 0;
};

/// REQUIRES: !values.empty().
Range RangeOf(std::vector<double> values);

struct FigureRange {
  std::string row, key, label;
  Range range;
};

struct RepeatSummary {
  int requested = 0;    // runs asked for
  int runs = 0;         // runs that ran (fewer than requested after an interrupt)
  int ok = 0;           // runs whose figures the ranges cover
  int failed = 0;
  int interrupted = 0;  // stopped by a signal: partial figures, left out of the ranges
  std::vector<std::string> failures;  // "run 2: <reason>", in run order
  std::vector<FigureRange> ranges;    // in the order the figures first appear
};

/// Ranges over the kOk runs only; failed and interrupted runs are counted and named.
/// A figure some OK runs lack gets a range over those that have it (its own n).
RepeatSummary Summarize(const std::vector<RunFigures>& runs, int requested);

}  // namespace memstand
