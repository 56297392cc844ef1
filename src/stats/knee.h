// The knee of a concurrency sweep (docs/method.md rule 14): the point past which more
// connections or in-flight requests add queueing latency but no throughput.
// Pure arithmetic over measured points: no I/O.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace memstand {

/// One measured step of a sweep.
struct SweepPoint {
  double x;           // the swept knob: connections, pipeline depth, in-flight requests
  double throughput;  // completed requests per second
  double p99;         // 99th-percentile latency, any unit used consistently
};

/// Returns the index i of the knee of `points`, or nullopt when there is none.
///
/// The rule: i is the smallest index with i + 1 < size() such that
///   (a) the next step gains less than min_gain relative throughput:
///         throughput[i + 1] < throughput[i] * (1 + min_gain);
///   (b) latency rises on that step:  p99[i + 1] > p99[i];
///   (c) throughput stops rising for good: no later point j > i reaches
///         throughput[i] * (1 + min_gain).
/// (c) keeps a one-step hiccup on a rising curve from being called a knee; on a plateau
/// that creeps upward the knee lands where the creep no longer adds min_gain in total.
/// A flat step whose latency falls is not a knee (b), though a later step may be.
/// nullopt when fewer than 3 points (a knee needs a rise before it and a step after)
/// or when no index satisfies (a)-(c), e.g. throughput keeps rising to the end.
/// REQUIRES: points sorted by increasing x; min_gain >= 0.
std::optional<size_t> FindKnee(const std::vector<SweepPoint>& points, double min_gain = 0.05);

}  // namespace memstand
