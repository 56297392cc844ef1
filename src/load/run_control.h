// The control side of a run, whatever the protocol: the blocking control connections
// beside the load (one per pool member; with --cluster one per master and replica).
// They check that each target speaks the protocol asked for, read its version, and
// read the servers' own counters before and after the load, against which memstand's
// counts are cross-checked. engine.cc runs one flow over this interface; it has two
// implementations: RESP's (INFO commandstats through RedisClient, client/redis_client.h)
// and memcached's, etcd's and Tarantool's (stats, maintenance/status and box.stat()
// through ProtoControl, load/proto_control.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/tls.h"
#include "load/cluster_map.h"
#include "load/engine.h"
#include "load/load_options.h"
#include "load/run_stats.h"
#include "util/status.h"

namespace memstand {

/// Counters by the server's names ("get" for INFO commandstats' cmdstat_get,
/// "cmd_get", "SELECT", "revision"), or why they could not be read.
using Counts = Result<std::map<std::string, int64_t>>;

/// Every server's counters at one moment.
struct ControlSnapshot {
  /// What the cross-check compares, summed over the servers (RESP: calls +
  /// rejected_calls of INFO commandstats, with --read-from-replicas the replicas' reads
  /// added; etcd: the revision of each store once).
  Counts counts = Status::Failed("not read");
  /// What --fleet-check records (RESP: the masters' or the pool's commandstats; the
  /// others: `counts`).
  Counts fleet = Status::Failed("not read");
  /// Each pool member's own counters, in LoadOptions::pool order (RunResult::pool).
  std::vector<Counts> each;
  /// RESP: INFO of the first server, its CPU figures summed over the servers; else empty.
  std::map<std::string, std::string> info;
  /// The control connections' own requests so far that the counters include, by name
  /// (RESP: every command; Tarantool: EVAL and AUTH), taken before the counters were read.
  std::map<std::string, int64_t> control_sent;
  std::string version;  // the server's version ("" when not known)
};

class RunControl {
 public:
  virtual ~RunControl() = default;

  /// Reads every server's counters (one request per control connection).
  virtual ControlSnapshot Snapshot() = 0;
  /// --fleet-check: the counters again, as ControlSnapshot::fleet.
  virtual Counts FleetCounts() = 0;
  /// What the load sent, in the server's counter names: `stats` are the counter names
  /// of the commands (by command index, "" for none), `totals` the threads' statistics.
  virtual std::map<std::string, int64_t> LoadCounts(const std::vector<std::string>& stats,
                                                    const ThreadStats& totals) const = 0;
  /// The cross-check's rows: `sent` (the load's and the controls' own requests,
  /// by counter name) against the servers' counters between two snapshots that
  /// were both read. Sets rows and mismatch.
  virtual void Compare(const std::map<std::string, int64_t>& sent, const ControlSnapshot& before,
                       const ControlSnapshot& after, CrossCheck* cc) const = 0;
  /// TLS: the protocol and cipher the first control connection agreed; "" without TLS.
  virtual std::string tls_description() const = 0;
  /// Tarantool: the id of space `name`, the same on every pool member (requests are
  /// encoded once for every connection). Servers with no spaces: InvalidArgument.
  virtual Result<uint32_t> SpaceId(const std::string& name) = 0;
  /// --cluster: the slot map as a reachable node tells it now (CLUSTER SLOTS through a
  /// new connection to the first node that answers); for a run whose masters change.
  virtual Result<SlotMap> ReadSlotMap() { return Status::InvalidArgument("not a cluster"); }
};

/// Connects the control side of a run: checks every target, and with --cluster reads
/// the slot map into *cluster_map (and RunResult::cluster_masters, cluster_replicas).
using ConnectControl = Result<std::unique_ptr<RunControl>> (*)(
    const LoadOptions& opt, const std::shared_ptr<const TlsContext>& tls,
    std::optional<SlotMap>* cluster_map, RunResult* r);

/// RESP: a RedisClient (RESP2) on the target, then one on every other pool member, or
/// with --cluster on every master (and --read-from-replicas every replica).
Result<std::unique_ptr<RunControl>> ConnectRespControl(const LoadOptions& opt,
                                                       const std::shared_ptr<const TlsContext>& tls,
                                                       std::optional<SlotMap>* cluster_map,
                                                       RunResult* r);
/// memcached, etcd, Tarantool: a ProtoControl on every pool member.
Result<std::unique_ptr<RunControl>> ConnectProtoControl(const LoadOptions& opt,
                                                        const std::shared_ptr<const TlsContext>& tls,
                                                        std::optional<SlotMap>* cluster_map,
                                                        RunResult* r);

}  // namespace memstand
