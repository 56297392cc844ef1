// working-set (docs/scenarios/working-set.md): what a configuration does when
// its memory limit is reached — evict and keep accepting, reject writes, or keep
// everything on a device. Loads the products records in order, in portions, through
// the load engine; reads each server's exact counters after every portion; finds the
// portion of the first eviction or rejection and then the exact write; checks the
// invariants of the counts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenario/kit/scenario_server.h"
#include "scenario/scenario.h"
#include "scenario/working_set/reads.h"
#include "util/status.h"

namespace memstand {

struct MeasuredChoiceRow;
struct ReportInput;
struct ReportSection;

struct WorkingSetOptions {
  /// The configurations, each its own server, all running at the same time. Empty:
  /// DefaultWorkingSetConfigs().
  std::vector<ServerConfig> configs;
  /// Records loaded, ids 1..records of the products dataset (200,000: docs/scenarios/working-set.md).
  uint32_t records = 200000;
  /// Writes between two counter reads: the detection's resolution (docs/scenarios/working-set.md).
  uint32_t portion = 10000;
  /// Requests in flight on the one load connection: order is kept (one connection), so
  /// 16 costs nothing in exactness and makes a portion take milliseconds.
  int pipeline = 16;
  /// Find the exact write of the first eviction: repeat the load to that portion on a
  /// fresh server and read the counters after every write inside it.
  bool exact = true;
  /// Writers (connections of one load thread) at the same time: each setting loads
  /// every configuration on a fresh server of its own (`<name>-w<N>` when there are
  /// several settings or one other than 1). On one connection the first rejected write
  /// is exact; on several, the order of the replies.
  std::vector<int> writers = {1};
  /// Writes per second in all, open loop; 0: as fast as the server answers.
  double rate = 0;
  /// Reads after each configuration's load (--reads, --read-rate, --read-count); none
  /// by default: the load alone.
  ReadOptions reads;
};

/// Redis maxmemory 8mb allkeys-lru and noeviction, memcached -m 8, Tarantool memtx with
/// the smallest memtx_memory Tarantool 2.x bootstraps with (32 MiB: below it box.cfg
/// fails to allocate its system spaces' slabs), Tarantool vinyl with vinyl_memory 8 MiB and
/// vinyl_cache 8 MiB (its default, 128 MiB, would hold every record read back).
std::vector<ServerConfig> DefaultWorkingSetConfigs();

/// "evicts", "rejects", "evicts and rejects" or "keeps all".
std::string WorkingSetOutcome(int64_t evicted, int64_t rejected);

/// The invariants of one configuration's final counts (docs/method.md rule 4): present ==
/// successful - evicted; successful + rejected == attempted; and for "keeps all"
/// present == attempted.
std::vector<Invariant> WorkingSetInvariants(int64_t attempted, int64_t successful, int64_t rejected,
                                            int64_t evicted, int64_t present);

/// Checks the options (InvalidArgument naming the flag).
Status ValidateWorkingSet(const WorkingSetOptions& options);

/// Runs the procedure ctx.runs times. Errors only for what stops everything (bad
/// options); a configuration that cannot run is a row saying why.
Result<ScenarioReport> RunWorkingSet(const WorkingSetOptions& options, const ScenarioContext& ctx);

// Its row in scenario/registry.cc: its flags (flags.cc), its charts and JSON tables on
// the report page (charts.cc) and its rows of the choice map (choices.cc).
ScenarioPrepare SetupWorkingSet(CLI::App* app);
void WorkingSetCharts(const ReportInput& in, ReportSection* section);
std::vector<MeasuredChoiceRow> WorkingSetChoiceRows();

}  // namespace memstand
