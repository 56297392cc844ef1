// What differs between server kinds when memstand starts one node: the command line,
// the files it needs, and how to tell it is ready. ServerNode does the rest.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "util/status.h"

namespace memstand {

/// Where one node runs; filled by ServerNode for each start attempt.
struct NodeLaunch {
  std::string binary_path;  // resolved program path
  std::string host = "127.0.0.1";
  std::vector<int> ports;   // ports[0] is the client port; PortCount() of them
  std::string dir;          // the node's folder (exists; data goes here)
  std::string log_path;     // the node's stdout and stderr
  std::vector<std::string> role_args;  // per-node arguments from the topology (redis: replicaof
                                       // argv; tarantool: ReplicaSetRoleArgs)
};

/// One server kind. Implementations are immutable after construction and hold the
/// user's settings for that kind.
class ServerDriver {
 public:
  virtual ~ServerDriver() = default;
  /// The Debian package's program, e.g. "redis-server".
  virtual std::string DefaultBinary() const = 0;
  /// The Debian package that provides it, for the install hint.
  virtual std::string Package() const = 0;
  /// How many ports one node listens on.
  virtual int PortCount() const { return 1; }
  /// Writes the files the node needs in launch.dir and returns its argv (argv[0] is
  /// launch.binary_path).
  virtual Result<std::vector<std::string>> Prepare(const NodeLaunch& launch) const = 0;
  /// One readiness probe of the process `pid`: OK once it answers as itself, with
  /// *version set. *port_taken when another process answers on the port.
  /// Status::Server when the server answered with something waiting cannot change
  /// (redis: -NOAUTH): ServerNode then gives up at once (InvalidArgument) instead of
  /// probing until the ready timeout.
  virtual Status Probe(const NodeLaunch& launch, pid_t pid, std::string* version,
                       bool* port_taken) const = 0;
  /// What the probe waits for, for the timeout message: "answer PING".
  virtual std::string ProbeDescription() const = 0;
  /// True if the log tail of a server that exited during startup shows it rejected
  /// its configuration (the user's settings): the error is then InvalidArgument.
  virtual bool ConfigRejected(const std::string& log_tail) const = 0;
  /// The line of the log that says why the server exited, when the last lines may
  /// not hold it (etcd prints its usage after the error); "" if none.
  virtual std::string Complaint(const std::string& /*log_tail*/) const { return ""; }
};

}  // namespace memstand
