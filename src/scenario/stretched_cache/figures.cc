#include "scenario/stretched_cache/figures.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "util/parse.h"

namespace memstand {
namespace {

constexpr int64_t kMaxDistanceNs = 1'000'000'000;
constexpr size_t kMaxDistances = 8;
// Block (b) without TCP_NODELAY: Linux's least delayed-ACK timeout, per operation of the
// two WAIT series (an assumption for the estimate only).
constexpr double kStallS = 0.040;

}  // namespace

Result<std::vector<int64_t>> ParseDistances(std::string_view text) {
  std::vector<int64_t> out;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find(',', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(at, end - at);
    const std::string quoted = "'" + std::string(item.substr(0, 40)) + "'";
    auto s = ParseDurationSeconds(item);
    if (!s.ok()) return s.status().WithContext("--distances: element " + quoted);
    const int64_t ns = std::llround(*s * 1e9);
    if (ns <= 0 || ns > kMaxDistanceNs) {
      return Status::InvalidArgument("--distances: element " + quoted + " must be above 0 and at most 1s");
    }
    if (std::find(out.begin(), out.end(), ns) != out.end()) {
      return Status::InvalidArgument("--distances: " + quoted + " is given twice");
    }
    out.push_back(ns);
    if (out.size() > kMaxDistances) {
      return Status::InvalidArgument(fmt::format("--distances: at most {} distances", kMaxDistances));
    }
    at = end + 1;
  }
  return out;
}

std::string DistanceText(int64_t ns) {
  if (ns % 1'000'000 == 0) return fmt::format("{}ms", ns / 1'000'000);
  if (ns % 1'000 == 0 && ns < 1'000'000) return fmt::format("{}us", ns / 1'000);
  return fmt::format("{:g}ms", static_cast<double>(ns) / 1e6);
}

HdrHistogram HistogramDifference(const HdrHistogram& after, const HdrHistogram& before) {
  HdrHistogram out(after.lowest_discernible(), after.highest_trackable(), after.significant_figures());
  if (after.total_count() == 0) return out;
  const int first = after.CountsIndexFor(after.min());
  const int last = after.CountsIndexFor(after.max());
  for (int i = first; i <= last; ++i) {
    const int64_t d = after.count_at_index(i) - before.count_at_index(i);
    if (d > 0) out.RecordN(after.ValueFromIndex(i), d);
  }
  return out;
}

DirectionDelta DeltaOf(const RelayDirectionStats& after, const RelayDirectionStats& before) {
  DirectionDelta d;
  d.chunks = after.chunks - before.chunks;
  d.bytes = after.bytes - before.bytes;
  const HdrHistogram applied = HistogramDifference(after.applied_ns, before.applied_ns);
  if (applied.total_count() > 0) {
    d.applied_sum_ns = applied.mean() * static_cast<double>(applied.total_count());
    d.applied_max_ns = applied.HighestEquivalentValue(applied.max());
  }
  return d;
}

LinkDelta DeltaOf(const RelayLinkStats& after, const RelayLinkStats& before) {
  return {DeltaOf(after.forward, before.forward), DeltaOf(after.back, before.back)};
}

RelayStats StatsDifference(const RelayStats& after, const RelayStats& before) {
  RelayStats out = after;
  for (size_t i = 0; i < out.links.size() && i < before.links.size(); ++i) {
    RelayLinkStats& l = out.links[i];
    const RelayLinkStats& b = before.links[i];
    l.connections -= b.connections;
    l.refused -= b.refused;
    l.sockets -= b.sockets;
    l.nodelay_sockets -= b.nodelay_sockets;
    for (auto [d, bd] : {std::pair{&l.forward, &b.forward}, std::pair{&l.back, &b.back}}) {
      d->chunks -= bd->chunks;
      d->bytes -= bd->bytes;
      d->applied_ns = HistogramDifference(d->applied_ns, bd->applied_ns);
      d->extra_ns = HistogramDifference(d->extra_ns, bd->extra_ns);
      d->stamped_reads -= bd->stamped_reads;
      d->read_late_ns = HistogramDifference(d->read_late_ns, bd->read_late_ns);
      d->reads -= bd->reads;
      d->tap_reads -= bd->tap_reads;
      d->tap_splits -= bd->tap_splits;
      d->tap_fallbacks -= bd->tap_fallbacks;
    }
  }
  return out;
}

CellFigures FiguresOf(double median_cost_ns, int64_t one_way_ns) {
  CellFigures f;
  f.one_way_ns = one_way_ns;
  f.cost_ns = median_cost_ns;
  f.round_trip_ns = 2.0 * static_cast<double>(one_way_ns);
  f.over_round_trip_ns = median_cost_ns - f.round_trip_ns;
  return f;
}

ModeDifference DifferenceOf(double serializing_ns, double pipelined_ns, int64_t one_way_ns) {
  ModeDifference d;
  d.one_way_ns = one_way_ns;
  d.difference_ns = serializing_ns - pipelined_ns;
  d.in_one_way = one_way_ns > 0 ? d.difference_ns / static_cast<double>(one_way_ns) : 0;
  return d;
}

bool OneChunkWithinLimit(int64_t one_chunk, int64_t ops) { return one_chunk * 100 <= kMaxOneChunkPercent * ops; }

std::vector<int> RoundOrder(int round, int kinds) {
  std::vector<int> order(static_cast<size_t>(std::max(kinds, 0)));
  for (int i = 0; i < kinds; ++i) order[static_cast<size_t>(i)] = i;
  if (round % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

double EstimateSeconds(int ops, const std::vector<int64_t>& distances_ns) {
  if (distances_ns.empty()) return 0;
  double sum_s = 0;
  for (int64_t d : distances_ns) sum_s += static_cast<double>(d) / 1e9;
  const double first_s = static_cast<double>(distances_ns.front()) / 1e9;
  // (b) two stalled series; (c) idle and loaded, two WAIT series each: pipelined relay
  // 2d + 2d, serializing 3d + 2d; (d) per distance: the same 4d + 5d; (e) a GET of 2d
  // per relay mode.
  const double per_round = 2 * kStallS + 18 * first_s + 13 * sum_s;
  return ops * per_round;
}

}  // namespace memstand
