// `memstand compare A.json B.json`: two runs, or two `--runs` series, of the same
// workload side by side (docs/compare.md). Every figure of A and B as min / median / max
// over the runs that ended OK with its N, the ratio of the medians B/A, and, only where
// both sides have N >= 3, whether B lies outside A's range; with fewer runs the reading
// says so and gives no verdict (docs/method.md rules 8 and 16). Differences of workload,
// platform or versions are warnings. Reads `memstand.run` documents; measures nothing.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/repeat.h"
#include "report/report_section.h"
#include "util/status.h"

namespace memstand {

/// One input: a single run's document or a series' (its `runs` array).
struct CompareSide {
  std::string file;
  int runs = 0;     // runs in the document
  int ok = 0;       // runs that ended OK: the ranges are over these
  std::vector<std::string> not_ok;  // "run 2: FAILED: ..." (left out)
  std::vector<RunFigures> figures;  // of the OK runs
  /// Of each OK run: its validity verdict (report/validity.h), "valid" or "suspect (...)",
  /// or "not recorded" (an older memstand); then any consistency check redone from its
  /// own numbers that is suspect ("mean in bounds (Total): ..."). One entry per run.
  std::vector<std::string> validity;
  int suspect = 0;  // OK runs whose verdict or redone checks are suspect
  nlohmann::json options;           // the first OK run's
  nlohmann::json platform;
  std::string protocol, server_version, memstand_version;
};

/// Reads a parsed `memstand.run` document (InvalidArgument naming `file` for another
/// schema, a newer version, a malformed document, or one without a run that ended OK).
Result<CompareSide> ReadCompareSide(const std::string& file, const nlohmann::json& doc);

/// The figures a run document carries, named as the `--runs` summary names them
/// (report/repeat_report.h): per command and "Total" ops/s, mean, each percentile and
/// max (µs); client and server CPU µs per request. Absent or null fields are skipped.
RunFigures FiguresOfRunJson(const nlohmann::json& run);

enum class CompareReading {
  kNoVerdict,      // a side has N < 3
  kWithin,         // B's median inside A's [min, max]
  kOutsideOverlap, // B's median outside A's range, but the ranges overlap
  kOutside,        // B's whole range outside A's
};

struct FigureComparison {
  std::string row, key, label;
  Range a, b;
  bool in_a = false, in_b = false;  // the figure exists on that side
  double ratio = 0;                 // b.median / a.median; 0 when a.median is 0
  CompareReading reading = CompareReading::kNoVerdict;
  bool higher = false;              // B's median above A's
  std::string text;                 // "within the spread of 3 and 3 runs", ...
};

struct Comparison {
  CompareSide a, b;
  std::vector<std::string> warnings;  // workload, platform, version differences
  std::vector<FigureComparison> figures;
};

/// Both sides' figures, in A's order (then those only B has).
Comparison Compare(CompareSide a, CompareSide b);

/// The text report.
std::string CompareText(const Comparison& c);
/// Schema `memstand.compare`, version 1 (docs/compare.md).
nlohmann::ordered_json CompareJson(const Comparison& c);
/// The report page's section of a `memstand.compare` document (`file` names it): the
/// two sides, the warnings, and the figures as a table. Fields of a wrong type read
/// as absent.
ReportSection CompareSection(const std::string& file, const nlohmann::json& doc);

}  // namespace memstand
