// What one (configuration, fault, run) of failover measured, between the procedure
// (failover.cc) and its report (report.cc). Internal.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "history/check_result.h"
#include "scenario/kit/outage.h"
#include "scenario/failover/failover.h"

namespace memstand {

struct FailoverCell {
  int run = 1;
  std::string configuration;  // "redis-cluster", "etcd"
  std::string fault;          // "kill", "pause"
  std::string not_run;        // the program is not installed
  std::string failure;        // the instrument's: the cell measured nothing to trust
  std::string version;
  std::string victim;         // the node's name in the topology ("master-2")
  std::string victim_address; // as the history names nodes ("127.0.0.1:7001")
  std::string successor;      // the node expected to take over ("replica-2-1"; etcd: "")
  std::vector<std::string> schedule;  // the nemesis's steps as carried out, with times
  /// Seconds since the history's start: the fault's start; the failure detector's mark
  /// (Redis Cluster: a survivor flags the master `fail`); the promotion (the replica says
  /// it is a master; etcd: a member names a new leader); -1: not seen while polled.
  double fault_s = -1, detect_s = -1, promote_s = -1;
  std::string new_primary;    // the node the promotion made primary
  WriteOutage outage;
  std::vector<OpsSecond> seconds;
  uint64_t records = 0;
  uint64_t reconnects = 0;    // connections lost, from the engine's result
  std::string history_file;   // in the evidence folder: histories/<...>.hist
  std::vector<history::CheckResult> checks;  // lost-writes, linearizable
  bool ok() const { return failure.empty() && not_run.empty(); }
  std::string Label() const;  // "redis-cluster kill run 1"
};

/// Fills the report's blocks, tables, JSON and anomalies from the cells (report.cc).
void FillFailoverReport(const FailoverOptions& options, const std::vector<FailoverCell>& cells, bool interrupted,
                        ScenarioReport* report);

}  // namespace memstand
