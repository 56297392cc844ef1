// A pool of targets (several --target): which target each connection goes to.
// Connections are assigned once, when they are opened (as a Tarantool router's pool or
// memtier's per-connection server), by the client's global index over all threads.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace memstand {

enum class Balance : uint8_t {
  kRoundRobin,  // global client i goes to target i % N: an even split, N | connections
  kRandom,      // a draw per connection from --seed: reproducible, uneven by chance
  /// Every client connects to every target and sends each request to the next target
  /// whose connection is up (round robin per client): a lost target's share moves to the
  /// others at once (a Go pool's ANY). The client's home target is i % N.
  kPerRequest,
};

/// "round-robin", "random" or "per-request" (the --balance values).
const char* BalanceName(Balance b);
/// --balance's value; InvalidArgument naming the accepted ones.
Result<Balance> ParseBalance(std::string_view name);

/// The target (0..targets-1) of the connection of global client `client`.
/// Depends on nothing else: the same seed gives the same split on every run and for
/// every --threads x --clients that has this client. REQUIRES: targets >= 1.
int PoolIndex(Balance b, uint64_t seed, uint64_t client, int targets);

/// How many of `connections` clients' connections each target gets (size `targets`);
/// per-request: every client has one to every target.
std::vector<uint64_t> PoolConnections(Balance b, uint64_t seed, uint64_t connections,
                                      int targets);

}  // namespace memstand
