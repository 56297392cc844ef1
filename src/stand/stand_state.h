// The state file of a topology (<run root>/<name>/state.json, docs/stand.md): what
// `memstand up` started, read back by `memstand ps` and `memstand down`.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "stand/proc_identity.h"
#include "util/status.h"

namespace memstand {

inline constexpr char kStateFileName[] = "state.json";
inline constexpr int kStateFormat = 1;

/// One server process of a topology.
struct NodeRecord {
  std::string name;        // "master-1", "replica-1-1", "primary", "redis"
  std::string role;        // "server", "primary", "master" or "replica"
  std::string replica_of;  // a replica's primary/master node name; "" otherwise
  std::string host;
  int port = 0;            // the client port
  std::vector<int> ports;  // every port: redis-cluster [client, bus], etcd [client, peer]
  std::string binary;      // as given or defaulted ("redis-server")
  std::string version;     // as the server reported it
  std::string dir;         // the node's folder
  std::string log;         // its log file
  ProcessIdentity process; // pid, command line and start time once it was ready
};

struct TopologyRecord {
  int format = kStateFormat;
  std::string name;
  std::string kind;
  std::string status;  // "starting" while nodes start, "up" once the topology is ready
  std::string dir;     // the run folder
  int64_t created_unix = 0;
  pid_t memstand_pid = 0;  // the memstand that started it
  bool detached = false;   // true: started by `memstand up`, outlives memstand
  int masters = 0;
  int replicas = 0;
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<NodeRecord> nodes;
};

/// $MEMSTAND_RUN_DIR if set and not empty, else /tmp/memstand-stand.
std::string DefaultRunRoot();

/// Writes the record as JSON, atomically (a temp file renamed over the old one).
Status WriteTopologyRecord(const std::string& path, const TopologyRecord& record);
/// Reads a state file. IoError if unreadable, Protocol if it is not a state file.
/// The record's dir is the folder the file is in (what `down` removes), whatever the
/// file says.
Result<TopologyRecord> ReadTopologyRecord(const std::string& path);

/// One folder under the run root that holds a state file.
struct ListedTopology {
  std::string dir;
  Result<TopologyRecord> record = Status::NotFound("");  // or why it could not be read
};
/// The topologies under root, by name. An absent root is an empty list.
std::vector<ListedTopology> ListTopologies(const std::string& root);

/// What runs under a node's recorded pid now.
Ownership NodeOwnership(const NodeRecord& node);

/// `memstand down` for one topology: SIGTERM to every node process that is still the
/// one memstand started (same pid, start time and command line; its process group if
/// it leads one), SIGKILL after 5 s; a pid that now runs something else is left
/// alone. Then removes the run folder. One message per node into *messages. Fails
/// only if a process of ours could not be stopped or the folder not removed.
Status StopRecordedTopology(const TopologyRecord& record, std::vector<std::string>* messages);

}  // namespace memstand
