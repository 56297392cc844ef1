// A topology: the server processes of one TopologySpec, started from the machine's
// installed packages on loopback ports, with data, logs and a state file under one
// run folder (<run root>/<name>/, docs/stand.md). The library form that `memstand up`,
// `run` and scenarios use.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "stand/server_node.h"
#include "stand/stand_state.h"
#include "stand/topology_spec.h"
#include "util/status.h"

namespace memstand {

struct TopologyOptions {
  /// Where run folders go. Empty: DefaultRunRoot() (run_root.h). Created 0700 if
  /// missing; refused (Failed) if it is not private.
  std::string run_root;
  /// false: the processes die with memstand (PR_SET_PDEATHSIG) and the destructor
  /// stops them. true (`memstand up`): they may outlive memstand once Detach()ed.
  bool detach = false;
  /// Polled during every wait; true: Start gives up (Failed "interrupted") and tears
  /// down what it started. May be null.
  const std::atomic<bool>* cancel = nullptr;
  /// The CPUs every process of the topology may run on (servers, Sentinels, its relay),
  /// kept across restarts: `memstand up --server-cpus`, a scenario's --server-cpus.
  /// Empty: they inherit the starting thread's.
  CpuList cpus;
};

/// Not thread-safe: one owner.
class Topology {
 public:
  /// Normalizes and checks the spec (InvalidArgument), claims the run folder (0700,
  /// with a new ownership token: owner_proof.h; a folder of the same name whose
  /// processes still run is InvalidArgument; one whose processes are all gone is
  /// replaced; a run root or state file that is not private is Failed), starts every
  /// node holding the token file open, wires replication or the cluster, and returns
  /// once everything is checked ready. The state file is
  /// rewritten after each node starts, so a crash leaves a record `down` can use.
  /// On any error, everything started is stopped and the folder removed.
  static Result<std::unique_ptr<Topology>> Start(TopologySpec spec, const TopologyOptions& options);

  /// Stop() unless Detach()ed.
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  /// Stops every node (replicas first; SIGTERM, then SIGKILL after 5 s; reaped) and
  /// removes the run folder. Idempotent. Failed if a node had died before (the run
  /// it served is suspect), with that node's exit and log tail.
  Status Stop();
  /// Lets the processes run on (detached topologies only); the folder and state file
  /// stay for `ps` and `down`. The object then owns nothing.
  void Detach();
  /// "" while node i (nodes() order) runs or is not ours to watch; else how it ended
  /// ("killed by signal 9 (SIGKILL)"): for errors that name the server that died.
  std::string NodeEnded(size_t i);

  /// Faults on node i (nodes() order; docs/stand.md, Faults): ServerNode's Kill, Pause,
  /// Resume and Restart. A node killed here is stopped on purpose: NodeEnded(i) is "" and
  /// Stop() does not fail for it. RestartNode brings it back in its folder on its ports
  /// and records the new process in the state file (before its readiness wait too); call
  /// it from the thread that started the topology (process.h: a child dies with the
  /// thread that spawned it). InvalidArgument for an index past nodes() or a topology
  /// that was detached.
  Status KillNode(size_t i);
  Status PauseNode(size_t i);
  Status ResumeNode(size_t i);
  Status RestartNode(size_t i);

  const TopologySpec& spec() const { return spec_; }
  /// What the state file holds: the run folder, and every node's role, address, pid.
  const TopologyRecord& record() const { return record_; }
  const std::vector<NodeRecord>& nodes() const { return record_.nodes; }
  const std::string& dir() const { return record_.dir; }
  std::string state_path() const { return record_.dir + "/" + kStateFileName; }

 private:
  struct NodePlan;
  Topology() = default;
  Status ClaimFolder(const std::string& root);
  Status StartNodes();
  // InvalidArgument unless the spec's relay fronts one of the planned nodes.
  Status CheckRelayNode(const std::vector<NodePlan>& plans) const;
  Status StartNode(const NodePlan& plan, const std::shared_ptr<const ServerDriver>& driver,
                   const std::string& binary);
  // The relay node in front of spec_.relay.node, if the spec has one.
  Status StartRelay();
  Status StartSentinels();
  Status PlanEtcdCluster(std::vector<NodePlan>* plans) const;
  Status WaitEtcdCluster();
  // Polls ready(i) for each node in turn until OK, all on one ready_timeout deadline:
  // Failed "interrupted while waiting for <waiting_for>" when cancelled, "<node> exited
  // while <during>" when the node died, Timeout "<node>: <not_ready> within N ms
  // (<detail(i, last status)>)" with the log's last lines.
  struct NodeWait {
    const char* waiting_for = "";
    const char* during = "";
    const char* not_ready = "";
    int poll_ms = 10;
    std::function<Status(size_t)> ready;
    std::function<std::string(size_t, const Status&)> detail;
  };
  Status WaitEachNode(const NodeWait& wait);
  Status PlanReplicaSet(std::vector<NodePlan>* plans) const;
  Status PlanSharded(std::vector<NodePlan>* plans) const;
  Status Wire();
  Status WaitReplicaSet();
  Status SaveState();
  Result<ServerNode*> Node(size_t i);

  TopologySpec spec_;
  TopologyOptions options_;
  TopologyRecord record_;
  std::shared_ptr<const ServerDriver> driver_;
  std::vector<std::unique_ptr<ServerNode>> servers_;  // parallel to record_.nodes
  bool owns_folder_ = false;
  bool detached_ = false;
};

}  // namespace memstand
