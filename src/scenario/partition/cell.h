// What one (side, min-replicas, run) of partition measured, between the procedure
// (partition.cc) and its report (report.cc). Internal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "history/check_result.h"
#include "scenario/kit/outage.h"
#include "scenario/partition/partition.h"

namespace memstand {

struct PartitionCell {
  int run = 1;
  std::string side;       // "with-primary", "with-majority", "custom"
  int min_replicas = 0;   // min-replicas-to-write
  std::string not_run;    // the program is not installed
  std::string failure;    // the instrument's: nothing to trust
  std::string version;
  std::string old_primary;          // its name in the topology ("primary")
  std::string old_primary_address;  // as the history names it: the clients' relay link
  std::string new_primary;          // the replica the Sentinels promoted ("" if none)
  std::vector<std::string> schedule;  // the nemesis's steps as carried out, with times
  /// Seconds since the history's start: the partition's start and end (the first and
  /// the last link step); the Sentinels' o_down on the old primary; another primary
  /// named; the old primary saying it is a replica (after the heal); -1: not seen.
  double cut_s = -1, heal_s = -1, detect_s = -1, promote_s = -1, demote_s = -1;
  /// Writes acknowledged by the old primary from the partition's start on, and by any
  /// node; writes refused (fail) from the partition's start on.
  uint64_t old_primary_writes_ok = 0, writes_ok_after_cut = 0, writes_fail_after_cut = 0;
  WriteOutage outage;  // from the partition's start
  std::vector<OpsSecond> seconds;
  uint64_t records = 0;
  uint64_t reconnects = 0;
  /// The old primary's data after the settle: a replica of the new primary (its
  /// master_link_status up and its offset caught up), or why not.
  std::string settled;
  std::string history_file;  // in the evidence folder
  std::vector<history::CheckResult> checks;  // lost-writes, linearizable
  bool ok() const { return failure.empty() && not_run.empty(); }
  std::string Label() const;  // "with-primary min-replicas 0 run 1"
};

void FillPartitionReport(const PartitionOptions& options, const std::vector<PartitionCell>& cells, bool interrupted,
                         ScenarioReport* report);

}  // namespace memstand
