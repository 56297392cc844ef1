// sharding (docs/scenarios/sharding.md): the server side of a sharded Tarantool, on
// memstand's own tarantool-sharded stand (routers forwarding over net.box to storage
// replica sets). Two sweeps, each point a fresh topology swept over concurrency to its
// knee: routers per storage at a fixed storage count, then storage count at the best
// ratio; then the per-operation matrix at the best point's knee. Every point shows the
// CPU and RSS of routers, storage masters, storage replicas and the client, and the
// requests each storage received, which must sum to the client's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "util/status.h"

namespace memstand {

struct MeasuredChoiceRow;
struct ReportInput;
struct ReportSection;

struct ShardingOptions {
  /// Routers per storage of the first sweep. 1, 2, 4, 7: up to the ratio the study
  /// found best, with room on each side.
  std::vector<uint64_t> ratios = {1, 2, 4, 7};
  /// The storage count of the first sweep: 1, every bucket on one storage, as the study
  /// first pinned its benchmark.
  int ratio_storages = 1;
  /// Storage counts of the second sweep, each at the best ratio of the first.
  std::vector<uint64_t> storages = {1, 2, 4};
  /// Replicas of each storage's master: 1, so reads with mode 'read' have a replica and
  /// the synchronous space a quorum of 2, with the fewest processes.
  int replicas = 1;
  /// Connections per router at each step of a point's sweep (one load thread, one
  /// request in flight each, round robin over the routers).
  std::vector<uint64_t> concurrency = {1, 4, 16};
  /// Measured seconds per step and per matrix cell. No warm-up: every request the
  /// client sends is counted, so the storages' counts can be checked against it.
  double step_s = 2;
  /// The value of every write: 64 random characters.
  int value_size = 64;
};

/// The smallest size (--smallest): 2 ratios, 2 storage counts, 2 steps of 0.5 s; the
/// whole procedure in well under a minute here.
ShardingOptions SmallestSharding();

/// The knee's rule (stats/knee.h FindKnee): 10%, as replication-cost (short steps on a
/// machine the servers share).
inline constexpr double kShardingKneeMinGain = 0.10;

Status ValidateSharding(const ShardingOptions& options);

/// One point's steps as the knee sees them: an index of the step at the knee, or
/// nullopt (fewer than 3 steps, or throughput rising to the end).
std::optional<size_t> ShardingKnee(const std::vector<double>& x, const std::vector<double>& ops_per_sec,
                                   const std::vector<double>& p99_us);

/// The index of the best point: the highest throughput at its knee (or its best step).
/// REQUIRES: non-empty.
size_t BestPoint(const std::vector<double>& knee_ops_per_sec);

/// About how long the whole procedure takes, in seconds.
double ShardingExpectedSeconds(const ShardingOptions& options, int runs);

Result<ScenarioReport> RunSharding(const ShardingOptions& options, const ScenarioContext& ctx);

// Its row in scenario/registry.cc.
ScenarioPrepare SetupSharding(CLI::App* app);
void ShardingCharts(const ReportInput& in, ReportSection* section);
std::vector<MeasuredChoiceRow> ShardingChoiceRows();

}  // namespace memstand
