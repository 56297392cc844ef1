// partition (docs/scenarios/partition.md): what a Redis primary with replicas and
// Sentinels does with the writes it takes while a network partition cuts it off from its
// replicas and Sentinels (Jepsen's 2013 experiment). Every link to the primary goes
// through a relay of memstand's: "peers" (the replicas' and the Sentinels' connections)
// and "clients" (the load's). The partition blackholes (or cuts) the peers' link, and the
// clients' too when the clients are on the majority's side; it heals after a set time.
// Measured per cell: the Sentinels' failover, the old primary's demotion after the heal,
// the writes it acknowledged meanwhile, and, from the history, the acknowledged writes
// lost and the reads not linearizable; with min-replicas-to-write 1 as the documented
// mitigation, a control. Redis promises no acknowledged write across a failover: a loss
// is a figure, not a finding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "util/status.h"

namespace memstand {

struct MeasuredChoiceRow;
struct ReportInput;
struct ReportSection;

struct PartitionOptions {
  /// Where the clients are during the partition: "with-primary" (they still reach the
  /// old primary: only the peers' link is broken) or "with-majority" (their link to it
  /// is broken too).
  std::vector<std::string> sides = {"with-primary", "with-majority"};
  /// min-replicas-to-write on every Redis (0: off, Redis's default; 1: the mitigation),
  /// each value a cell of its own.
  std::vector<int> min_replicas = {0, 1};
  /// min-replicas-max-lag, seconds: a replica whose last acknowledgement is older does
  /// not count (Redis's default is 10; 1 keeps the window visible in a short run).
  int max_lag_s = 1;
  /// "blackhole" (a partition's packets dropped: nothing passes, nothing is refused) or
  /// "cut" (every connection reset and refused).
  std::string link_fault = "blackhole";
  /// The load's length; the partition from cut_at_s for partition_s.
  double duration_s = 25;
  double cut_at_s = 3;
  double partition_s = 8;
  /// A schedule of one's own (docs/faults.md) over the topology's nodes and the links
  /// "peers" and "clients", instead of the sides: each min_replicas value a cell "custom".
  std::string fault;
  /// Operations per second (open loop), half writes, half reads, over `clients`.
  double rate = 500;
  int clients = 4;
  /// Many keys, so that most writes go to a key of their own and a lost write is a lost
  /// key (Jepsen's set).
  uint64_t keys = 100000;
  /// The Sentinels' down-after-milliseconds.
  int node_timeout_ms = 1000;
  /// After the load, how long the old primary may take to become a replica of the new
  /// one and catch up before the keys are read back.
  double settle_s = 20;
  double check_time_limit_s = 20;
};

Status ValidatePartition(const PartitionOptions& options);
Result<ScenarioReport> RunPartition(const PartitionOptions& options, const ScenarioContext& ctx);

// Its row in scenario/registry.cc.
ScenarioPrepare SetupPartition(CLI::App* app);
void PartitionCharts(const ReportInput& in, ReportSection* section);
std::vector<MeasuredChoiceRow> PartitionChoiceRows();

}  // namespace memstand
