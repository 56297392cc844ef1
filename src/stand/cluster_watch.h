// The state of a Redis Cluster over time, while a scenario loads it: every period, on
// every node, CLUSTER INFO (cluster_state) and CLUSTER NODES (the pfail "fail?" and
// fail flags it holds for each node), from a thread of its own with its own control
// connections. What it reports are intervals: a condition from the first sample that
// showed it to the first that did not, at the sampling period's resolution (docs/method.md
// rule 7).
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "client/redis_client.h"
#include "util/status.h"

namespace memstand {

/// A condition that held over [from_s, to_s): from the first sample that showed it to
/// the first that did not (or the end of the watch: open).
struct HeldInterval {
  std::string what;  // "master-2 pfail", "master-1 cluster_state:fail", "master-3 no answer"
  double from_s = 0;
  double to_s = 0;
  bool open = false;  // still held at the last sample
  double seconds() const { return to_s - from_s; }
};

/// Intervals from periodic samples of a set of conditions. Pure bookkeeping.
class ConditionTimeline {
 public:
  /// The conditions that hold at sample time t (seconds). REQUIRES: t never decreases.
  void Observe(double t, const std::set<std::string>& holding);
  /// Closes the intervals still open at t (marked open) and returns all, in the order
  /// they started (ties by name).
  std::vector<HeldInterval> Finish(double t);

 private:
  std::map<std::string, double> open_;  // condition -> first sample that showed it
  std::vector<HeldInterval> done_;
};

/// One line of CLUSTER NODES: the node's client port and flags ("myself,master",
/// "master,fail?").
struct NodeFlags {
  int port = 0;
  std::set<std::string> flags;
};
/// The lines of a CLUSTER NODES reply ("<id> <ip:port@bus> <flags> ..."); lines that
/// do not parse are skipped.
std::vector<NodeFlags> ParseClusterNodes(const std::string& text);

/// The conditions one node's replies show: "<observer> cluster_state:<state>" unless
/// ok, and for each node it flags "<name> pfail" (fail?) or "<name> fail"; names by
/// client port (a port not in `names` is named "port N").
std::set<std::string> ClusterConditions(const std::string& observer, const std::string& cluster_state,
                                        const std::vector<NodeFlags>& nodes,
                                        const std::map<int, std::string>& names);

struct WatchedNode {
  std::string name;  // "master-1"
  std::string host;
  int port = 0;
};

struct ClusterWatchResult {
  int samples = 0;
  double period_s = 0;
  double seconds = 0;  // watched for
  std::vector<HeldInterval> intervals;
};

/// Thread-safe; Stop() from the owner's thread.
class ClusterWatch {
 public:
  /// Starts sampling every node every period_ms (the first sample at once). A node
  /// that does not answer within `timeout_ms` holds "<name> no answer" until it does.
  static std::unique_ptr<ClusterWatch> Start(std::vector<WatchedNode> nodes, int period_ms = 1000,
                                             int timeout_ms = 1000);
  ~ClusterWatch();
  ClusterWatch(const ClusterWatch&) = delete;
  ClusterWatch& operator=(const ClusterWatch&) = delete;
  /// Takes a last sample, stops the thread and returns the intervals. Idempotent.
  ClusterWatchResult Stop();

 private:
  ClusterWatch(std::vector<WatchedNode> nodes, int period_ms, int timeout_ms);
  void Loop();
  void Sample();  // the sampler thread only
  std::set<std::string> SampleNode(size_t i);

  const std::vector<WatchedNode> nodes_;
  std::map<int, std::string> names_;
  const int period_ms_, timeout_ms_;
  const int64_t start_ns_;
  std::vector<std::unique_ptr<RedisClient>> clients_;  // the sampler thread's; null: reconnect
  ConditionTimeline timeline_;
  int samples_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool stopped_ = false;
  ClusterWatchResult result_;
  std::thread thread_;
};

}  // namespace memstand
