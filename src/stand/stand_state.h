// The state file of a topology (<run root>/<name>/state.json, docs/stand.md): what
// `memstand up` started, read back by `memstand ps` and `memstand down`.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "stand/owner_proof.h"
#include "stand/proc_identity.h"
#include "stand/run_root.h"
#include "util/status.h"

namespace memstand {

inline constexpr char kStateFileName[] = "state.json";
/// 2: adds the ownership token and each node's uid. A format-1 file is still read,
/// but its processes cannot be proven ours: `down` leaves them alone.
inline constexpr int kStateFormat = 2;

/// One server process of a topology.
struct NodeRecord {
  std::string name;        // "master-1", "replica-1-1", "primary", "redis"
  std::string role;        // "server", "primary", "master", "replica" or "relay"
  std::string replica_of;  // a replica's primary/master node name; "" otherwise
  std::string fronts;      // a relay's (role "relay") node it forwards to; "" otherwise
  std::string host;
  int port = 0;            // the client port
  std::vector<int> ports;  // every port: redis-cluster [client, bus], etcd [client, peer]
  std::string binary;      // as given or defaulted ("redis-server")
  std::string version;     // as the server reported it
  std::string dir;         // the node's folder
  std::string log;         // its log file
  ProcessIdentity process; // pid, command line, start time and uid once it was ready
};

struct TopologyRecord {
  int format = kStateFormat;
  std::string name;
  std::string kind;
  std::string status;  // "starting" while nodes start, "up" once the topology is ready
  std::string dir;     // the run folder
  int64_t created_unix = 0;
  pid_t memstand_pid = 0;  // the memstand that started it
  std::string token;       // the ownership token (owner_proof.h), also in <dir>/owner.token
  bool detached = false;   // true: started by `memstand up`, outlives memstand
  int masters = 0;
  int replicas = 0;
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<NodeRecord> nodes;
};

/// Writes the record as JSON, atomically and 0600 (WritePrivateFile).
Status WriteTopologyRecord(const std::string& path, const TopologyRecord& record);
/// Reads a state file. Failed if refused (a symlink, not ours, or readable or writable
/// by group or others: run_root.h), IoError if unreadable, Protocol if it is not a
/// state file. The record's dir is the folder the file is in (what `down` removes),
/// whatever the file says.
Result<TopologyRecord> ReadTopologyRecord(const std::string& path);

/// One folder under the run root that holds a state file.
struct ListedTopology {
  std::string dir;
  Result<TopologyRecord> record = Status::NotFound("");  // or why it could not be read
};
/// The topologies under root, by name (symlinks skipped). An absent root is an empty
/// list; a root that is not private (CheckPrivateDir) is Failed, and nothing under it
/// is read.
Result<std::vector<ListedTopology>> ListTopologies(const std::string& root);

/// What runs under a node's recorded pid now: CheckOwner with the record's token.
OwnerCheck NodeOwnership(const TopologyRecord& record, const NodeRecord& node);

/// `memstand down` for one topology: SIGTERM to every node process that CheckOwner
/// proves ours (re-checked right before every signal; its process group only when it
/// leads the group, pgid == pid; never pid <= 1), SIGKILL after 5 s. Any other pid is
/// left alone with a message saying why. A process missing from the record that
/// holds the topology's token file open (a node whose memstand was killed before it
/// recorded it) is checked and stopped the same way, named "unrecorded". Then removes
/// the run folder, unless a
/// process that could not be proven ours still runs under a recorded pid. One message
/// per node into *messages. Fails if a process of ours could not be stopped or the
/// folder not removed.
Status StopRecordedTopology(const TopologyRecord& record, std::vector<std::string>* messages);

}  // namespace memstand
