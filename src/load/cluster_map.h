// Redis Cluster routing without I/O: key -> hash slot (CRC16 with hash tags), the slot
// map read from CLUSTER SLOTS, and MOVED/ASK redirections parsed from error replies.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/resp/resp.h"
#include "util/status.h"

namespace memstand {

inline constexpr int kClusterSlots = 16384;

/// CRC16-CCITT (XMODEM), the checksum Redis Cluster hashes keys with.
/// `crc`: the CRC of the bytes before `data`, to continue it (0 to start).
uint16_t Crc16(std::string_view data, uint16_t crc = 0);

/// The hash slot of a key: CRC16 mod 16384 of the key, or of the part between the
/// first '{' and the next '}' when that part is not empty (a hash tag).
int KeySlot(std::string_view key);

struct ClusterNode {
  std::string host;
  int port = 0;
  std::vector<std::pair<std::string, int>> replicas;  // host, port
  std::string Address() const { return host + ":" + std::to_string(port); }
};

/// Which master serves each slot.
class SlotMap {
 public:
  const std::vector<ClusterNode>& nodes() const { return nodes_; }
  /// The node index serving `slot`, or -1 when no node covers it.
  int NodeOf(int slot) const { return slot_node_[slot]; }
  /// The index of host:port, added (without replicas) if new.
  int NodeIndex(const std::string& host, int port);
  /// Points `slot` at node `node`. REQUIRES: 0 <= slot < kClusterSlots, node valid.
  void Assign(int slot, int node) { slot_node_[slot] = static_cast<int16_t>(node); }
  /// Records a replica of node `node` (once).
  void AddReplica(int node, const std::string& host, int port);
  /// Slots no node covers.
  int UncoveredSlots() const;

 private:
  std::vector<ClusterNode> nodes_;
  std::array<int16_t, kClusterSlots> slot_node_ = MakeEmpty();
  static std::array<int16_t, kClusterSlots> MakeEmpty();
};

/// Builds the map from a CLUSTER SLOTS reply: [[start, end, [host, port, id...],
/// replicas...], ...]. An empty host (a node that does not know its own address)
/// becomes `seed_host`. Errors: Protocol for a reply of another shape.
Result<SlotMap> ParseClusterSlots(const resp::Reply& reply, const std::string& seed_host);

struct Redirect {
  bool ask = false;  // ASK: this request only; MOVED: the slot moved for good
  int slot = 0;
  std::string host;
  int port = 0;
};

/// Parses "MOVED 3999 127.0.0.1:6381" or "ASK 3999 127.0.0.1:6381" (the error text
/// without '-'); nullopt for any other error. An empty host (":6381") stays empty.
std::optional<Redirect> ParseRedirect(std::string_view error);

}  // namespace memstand
