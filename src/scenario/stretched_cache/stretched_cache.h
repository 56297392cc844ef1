// stretched-cache (docs/scenarios/stretched-cache.md): what a write
// acknowledged by a replica (Redis SET + WAIT 1) costs as the distance between the
// primary and its replica grows, and what the instrument (memstand's relay) adds.
// A fresh primary and replica; the replica's replication goes through a relay link that
// delays each chunk by a one-way delay; memstand's own client times each operation on
// one connection: SET alone, SET then WAIT 1 after its reply ("sequential"), and SET and
// WAIT 1 in one write ("pipelined client"). Blocks (a) no relay, (b) relay at 0 ms
// without and with TCP_NODELAY, (c) chunks per operation idle and under load, (d)
// serializing vs pipelined relay at each distance, (e) GET through the relay against
// direct, (f) the relay's own error; (c) and (e) in both relay modes. Invariant: WAIT
// answers 1 on every operation; instrument check: the serializing relay kept the
// sequential client's two chunks apart (kMaxOneChunkPercent).
#pragma once

#include <cstdint>
#include <vector>

#include "scenario/scenario.h"
#include "util/status.h"

namespace memstand {

struct MeasuredChoiceRow;
struct ReportInput;
struct ReportSection;

struct StretchedCacheOptions {
  /// Operations per series (the median of these; every raw sample is kept). 100: the
  /// defaults take about 102 s of delays here (EstimateSeconds), under two minutes.
  int ops = 100;
  /// One-way delays of blocks (d) and (e) (docs/scenarios/stretched-cache.md: 5, 20, 40 ms); block (c) runs at
  /// the first.
  std::vector<int64_t> distances_ns = {5'000'000, 20'000'000, 40'000'000};
  /// Bytes per SET value (random, from --seed; docs/method.md rule 17).
  int value_size = 100;
  /// Block (c) under load: SETs per second of the background writer (open loop, its own
  /// connection to the primary). 1000: several writes in flight during one 2 x 5 ms op.
  double load_rate = 1000;
  /// WAIT 1 <this>: a replica that does not answer within it makes WAIT return 0 (counted
  /// by the invariant) instead of blocking forever as WAIT 1 0 would.
  int wait_timeout_ms = 2000;
  /// The relay's loop on SCHED_FIFO at this priority, and polling the last spin_ns
  /// before each chunk is due (RelayOptions): its overshoot falls from milliseconds to
  /// tens of microseconds on a busy machine, and it reads a chunk as soon as it arrives
  /// (bench/README.md). A kernel that refuses SCHED_FIFO (not root): the run goes on on
  /// the default scheduler and says so. 0 / 0: the relay as `memstand relay` runs it.
  int relay_realtime_priority = 1;
  int64_t relay_spin_ns = 100'000;
  /// The relay's segment tap (RelayOptions::segment_tap, --relay-segment-tap): reads
  /// split at the TCP segments that arrived, so a SET's propagation and a later GETACK
  /// that waited in the relay's socket together stay two chunks. Where it cannot open the
  /// relays run without it and the report says so.
  bool relay_segment_tap = true;
};

/// Checks the options (InvalidArgument naming the flag).
Status ValidateStretchedCache(const StretchedCacheOptions& options);

Result<ScenarioReport> RunStretchedCache(const StretchedCacheOptions& options, const ScenarioContext& ctx);

// Its row in scenario/registry.cc: its flags (flags.cc), its charts and JSON tables on
// the report page (charts.cc) and its rows of the choice map (choices.cc).
ScenarioPrepare SetupStretchedCache(CLI::App* app);
void StretchedCacheCharts(const ReportInput& in, ReportSection* section);
std::vector<MeasuredChoiceRow> StretchedCacheChoiceRows();

}  // namespace memstand
