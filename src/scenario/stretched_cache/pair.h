// stretched-cache's servers: a Redis primary and one replica, each a fresh single node
// (ServerUnderTest), and the relay the replica's replication goes through. The replica
// is pointed (REPLICAOF) at the primary itself or at link 0 of a relay whose links all
// lead to the primary; link 1 carries a client's traffic for the remote-client case.
// Before a block is measured the link is checked up and caught up (INFO replication).
//
// Ownership: the pair owns both servers and the current relay; Stop() (or the
// destructor) stops the replica, the relay and the primary, in that order. One thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "relay/relay.h"
#include "scenario/kit/scenario_server.h"
#include "util/status.h"

namespace memstand {

/// What INFO replication said once the link was up and caught up.
struct LinkCheck {
  std::string label;   // the block it came before: "(d) 20ms serializing"
  std::string via;     // "direct to 127.0.0.1:P" or "relay 127.0.0.1:R -> 127.0.0.1:P"
  std::string master_link_status;  // the replica's: "up"
  int64_t connected_replicas = 0;  // the primary's connected_slaves
  int64_t primary_offset = 0;      // the primary's master_repl_offset
  int64_t replica_offset = 0;      // the replica's slave_repl_offset, read after it
  double waited_ms = 0;            // from REPLICAOF to caught up
  /// The primary's sync_full and sync_partial_ok (INFO stats) over the re-pointing:
  /// 1 and 0 (every link is a fresh full sync; see Route).
  int64_t full_syncs = 0;
  int64_t partial_syncs = 0;
  /// "link up: master_link_status:up via ..., connected_slaves 1, primary offset N,
  /// replica offset N (caught up), 12.3 ms after REPLICAOF, full syncs 1, partial 0".
  std::string Describe() const;
};

class ReplicatedPair {
 public:
  /// Starts the primary (repl-diskless-sync-delay 0: the first full sync at once) and
  /// the replica, points the replica at the primary and waits for the link.
  static Result<std::unique_ptr<ReplicatedPair>> Start(const std::atomic<bool>* cancel);
  ~ReplicatedPair();
  ReplicatedPair(const ReplicatedPair&) = delete;
  ReplicatedPair& operator=(const ReplicatedPair&) = delete;

  /// Points the replica at the primary directly (`relay` null) or at link 0 of a new
  /// relay started from `*relay` (every link's target set to the primary), by
  /// REPLICAOF NO ONE and REPLICAOF (a full sync on a new socket: Redis sets TCP_NODELAY
  /// on it; after a partial resync Redis 7.0 does not), waits until the link is up and
  /// caught up, then stops the previous relay. The check's result, or Failed naming what
  /// INFO said last (the new relay is kept either way).
  Result<LinkCheck> Route(const RelayOptions* relay, const std::string& label);

  /// The relay the replica goes through now; null when it goes directly.
  Relay* relay() const { return relay_.get(); }
  ServerUnderTest& primary() { return *primary_; }
  ServerUnderTest& replica() { return *replica_; }
  /// "127.0.0.1:PORT" of the primary.
  std::string primary_address() const;

  /// Stops the replica, the relay and the primary. Idempotent; the first error.
  Status Stop();

 private:
  ReplicatedPair() = default;
  Result<LinkCheck> WaitCaughtUp(int port, const std::string& label, int64_t since_ns);

  const std::atomic<bool>* cancel_ = nullptr;
  std::unique_ptr<ServerUnderTest> primary_;
  std::unique_ptr<ServerUnderTest> replica_;
  std::unique_ptr<Relay> relay_;
};

}  // namespace memstand
