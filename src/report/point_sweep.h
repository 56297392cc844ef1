// The report of `memstand sweep --sweep-set` and `--sweep-topology`: an outer axis of
// server settings or topology sizes (a fresh topology for each point and each run), and
// within each run the load sweep with its knee. The summary gives each point's knee over
// its runs as min / median / max with N, and says whether the best point stands apart
// from the others (docs/method.md, "Sweeps over a setting or a topology").
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/repeat.h"
#include "report/sweep_report.h"

namespace memstand {

/// One run at one point: the topology it stood up and the load sweep against it.
struct PointRun {
  std::string servers;   // what ran, e.g. "redis-cluster: 3 masters, pids 11 12 13"
  std::string applied;   // the setting as the server reports it ("" when not readable)
  std::string failure;   // non-empty: the topology failed to start, or a node died
  SweepOutcome sweep;    // the inner sweep (no steps when the topology did not start)
};

struct PointOutcome {
  std::string value;          // the point's value, as given ("allkeys-lru", "3")
  std::vector<PointRun> runs;  // those made
};

struct PointSweepOutcome {
  std::string axis;                 // "set" or "topology"
  std::string key;                  // "maxmemory-policy", "masters"
  std::vector<std::string> values;  // as given
  std::string knob;                 // the inner load axis: "clients", "pipeline" or "rate"
  std::vector<uint64_t> knob_values;
  int runs = 1;                     // runs per point, as asked
  std::vector<PointOutcome> points;  // those made (fewer after an interrupt)
  bool interrupted = false;
  int exit_code = 0;
  std::string verdict;
};

/// A point's knee over its runs: N runs made, K with a knee, and over those K the knee's
/// knob value, its throughput and its p99 (repeat.h's ranges). Nothing but the counts
/// when K is 0.
struct PointSummary {
  size_t runs = 0;
  size_t knees = 0;
  size_t failed = 0;  // runs whose topology failed or whose sweep failed
  Range knee_x, ops_per_sec, p99_us;
};

PointSummary SummarizePoint(const PointOutcome& point);

/// Exit code and verdict: 1 ("FAILED: k of n runs failed") when a run's topology failed
/// or its sweep failed, else 130 when cut short (a signal, or fewer runs than asked),
/// else 0.
void ConcludePoints(PointSweepOutcome* outcome);

/// The point whose median throughput at the knee is highest, and whether its range
/// overlaps another point's (then N runs cannot tell them apart). nullopt when fewer
/// than two points have a knee.
struct BestPoint {
  size_t index = 0;
  bool overlaps = false;
  std::vector<std::string> overlapping;  // the values whose ranges overlap the best's
};
std::optional<BestPoint> FindBestPoint(const PointSweepOutcome& outcome);

/// The block "Knee per point": a row per point, the best point's sentence, the verdict.
void PrintPointSummary(std::FILE* out, const PointSweepOutcome& outcome);

/// Schema memstand.sweep_points (docs/json-format.md).
nlohmann::ordered_json PointSweepJson(const PointSweepOutcome& outcome);

}  // namespace memstand
