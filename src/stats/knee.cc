#include "stats/knee.h"

namespace memstand {
namespace {

// Condition (c): throughput after index i never reaches `ceiling`.
bool NeverReachesAfter(const std::vector<SweepPoint>& points, size_t i, double ceiling) {
  for (size_t j = i + 1; j < points.size(); ++j) {
    if (points[j].throughput >= ceiling) return false;
  }
  return true;
}

}  // namespace

std::optional<size_t> FindKnee(const std::vector<SweepPoint>& points, double min_gain) {
  if (points.size() < 3) return std::nullopt;
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    const double ceiling = points[i].throughput * (1 + min_gain);
    const bool flat = points[i + 1].throughput < ceiling;
    const bool latency_rises = points[i + 1].p99 > points[i].p99;
    if (flat && latency_rises && NeverReachesAfter(points, i, ceiling)) return i;
  }
  return std::nullopt;
}

}  // namespace memstand
