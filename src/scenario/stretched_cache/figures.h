// The arithmetic of stretched-cache (stretched_cache.h), apart from any server: the
// --distances list, what the relay counted during one operation (the difference of two
// Relay::Snapshot()s), the figures of a distance cell, the order of the client modes in
// a round, and the run time the defaults add up to. No I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "relay/relay_stats.h"
#include "stats/hdr_histogram.h"
#include "util/status.h"

namespace memstand {

/// The one-way delays of block (d) and (e), in ns, from "5ms,20ms,40ms" (the project's
/// duration syntax: us, ms, s). Each above 0 and at most 1 s, no repeats, at least one,
/// at most 8. InvalidArgument quoting the bad element.
Result<std::vector<int64_t>> ParseDistances(std::string_view text);

/// "5ms", "250us", "1.5ms": a delay as --distances takes it.
std::string DistanceText(int64_t ns);

/// The counts of `after` minus those of `before`, index by index: the values recorded
/// between two snapshots of one histogram, at its precision (a value sits at its
/// bucket's lowest equivalent value). REQUIRES: same construction parameters, and
/// `before` a snapshot taken earlier of the same histogram (no count decreases).
HdrHistogram HistogramDifference(const HdrHistogram& after, const HdrHistogram& before);

/// What one direction of one relay link did between two snapshots.
struct DirectionDelta {
  int64_t chunks = 0;
  int64_t bytes = 0;
  double applied_sum_ns = 0;  // the applied delays of those chunks, summed (to the histogram's 0.1%)
  int64_t applied_max_ns = 0; // the largest of them (its bucket's upper end), 0 without chunks
};

DirectionDelta DeltaOf(const RelayDirectionStats& after, const RelayDirectionStats& before);

/// One relay link's two directions between two snapshots.
struct LinkDelta {
  DirectionDelta forward;  // client -> target (for the replication link: replica -> primary)
  DirectionDelta back;     // target -> client (primary -> replica)
};

LinkDelta DeltaOf(const RelayLinkStats& after, const RelayLinkStats& before);

/// The per-link difference of two snapshots of one relay: connections, chunks and
/// bytes, and the applied and extra histograms of the chunks between them (the most in
/// flight and held stay those of `after`: maxima do not subtract).
RelayStats StatsDifference(const RelayStats& after, const RelayStats& before);

/// One cell of block (d): the median cost of write + WAIT at one one-way delay, and
/// what the round trip explains of it.
struct CellFigures {
  int64_t one_way_ns = 0;
  double cost_ns = 0;         // measured (the median)
  double round_trip_ns = 0;   // 2 x one-way: the configured delay, not a measurement
  double over_round_trip_ns = 0;  // cost - round trip
};

CellFigures FiguresOf(double median_cost_ns, int64_t one_way_ns);

/// Serializing minus pipelined at one distance, and that in one-way delays (the
/// expectation: about 1 for the sequential client).
struct ModeDifference {
  int64_t one_way_ns = 0;
  double difference_ns = 0;
  double in_one_way = 0;  // difference / one-way
};

ModeDifference DifferenceOf(double serializing_ns, double pipelined_ns, int64_t one_way_ns);

/// The most operations of a serializing relay's sequential-client series, in percent,
/// whose SET propagation and GETACK the relay may read as one chunk before the cell's
/// serializing - pipelined is not valid. The difference measures the second one-way delay
/// the serializing relay adds between those two chunks; an operation read as one chunk
/// gets none, so each such operation pulls the median towards 0 (66 of 100 gave 0.003
/// one-way delays at 20 ms). 5%: the most seen in a quiet run with the relay on
/// SCHED_FIFO was 1 of 100, and 5 of 100 still leave the median among the operations
/// that were kept apart. memstand's threshold, an instrument check (docs/method.md
/// rule 20): a cell above it prints no figure and fails the run.
inline constexpr int kMaxOneChunkPercent = 5;

/// Whether `one_chunk` of `ops` operations read as one chunk keeps the cell valid: at
/// most kMaxOneChunkPercent percent (5 of 100 is valid, 6 of 100 is not).
bool OneChunkWithinLimit(int64_t one_chunk, int64_t ops);

/// The order of `kinds` series in round `round` (0-based): 0, 1, ..., k-1 in even rounds
/// and the reverse in odd ones (docs/method.md rule 10: A-B, then B-A).
std::vector<int> RoundOrder(int round, int kinds);

/// What the procedure's operations add up to at these settings, in seconds, from the
/// configured delays alone (the servers' own time, start-up and the links' re-sync
/// not counted): block (b) at one 40 ms stall per operation without TCP_NODELAY,
/// (c) at the first distance, (d) and (e) at every distance, (c) and (e) in both relay
/// modes. An estimate for the
/// progress line, never a result.
double EstimateSeconds(int ops, const std::vector<int64_t>& distances_ns);

}  // namespace memstand
