// What a run's history says about one fault (failover, partition), as
// pure functions of its records, so that they are tested on fabricated histories.
// Times are nanoseconds since the history's start (history/record.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "history/record.h"

namespace memstand {

/// Operations by how they ended, per second of completion (second i: [i s, i+1 s)).
struct OpsSecond {
  uint64_t ok = 0, fail = 0, unknown = 0;  // writes and reads together
  uint64_t writes_ok = 0;
  /// The latency of the operations that ended ok in the second, from when each was due
  /// (open loop: its intended time, so a stall counts in full; closed loop: its send):
  /// the median, the 99th percentile (nearest rank) and the largest, in ns. -1: none ok.
  int64_t p50_ns = -1, p99_ns = -1, max_ns = -1;
};

/// What the writes did around a fault that began at fault_ns.
struct WriteOutage {
  /// The first write invoked at or after the fault that ended ok: its completion ends the
  /// outage. -1: none (the system never took a write again within the run).
  int64_t first_ok_ns = -1;
  std::string first_ok_node;  // the node that answered it
  /// The first ok write answered by another node than `old_node` (the client found the
  /// new primary); -1: none.
  int64_t first_ok_elsewhere_ns = -1;
  std::string first_ok_elsewhere_node;
  /// The last write before the fault that ended ok (its completion; -1: none).
  int64_t last_ok_before_ns = -1;
  /// Seconds from the fault to first_ok_ns; -1 when the outage did not end.
  double outage_s = -1;
  /// The operations that ended inside [fault_ns, first_ok_ns] (to the run's end when the
  /// outage did not end), writes and reads, by outcome.
  uint64_t writes_ok = 0, writes_fail = 0, writes_unknown = 0;
  uint64_t reads_ok = 0, reads_fail = 0;
  /// Every write of the run by outcome.
  uint64_t all_writes_ok = 0, all_writes_fail = 0, all_writes_unknown = 0;
};

/// The outage of a fault that began at fault_ns on the node whose history name (its
/// address, "127.0.0.1:7001") is old_node.
WriteOutage MeasureOutage(const history::History& h, int64_t fault_ns, const std::string& old_node);

/// Per second of completion, from second 0 to the last record's, with the latencies.
std::vector<OpsSecond> PerSecond(const history::History& h);

}  // namespace memstand
