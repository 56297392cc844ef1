// A topology's nodes as a scenario addresses them: a node's target for the engine or a
// control client, its address as a history names it, its index by name.
#pragma once

#include <string>

#include "load/protocol.h"
#include "load/target.h"
#include "stand/topology.h"

namespace memstand {

/// The node's client port over `p` (no credentials: memstand's own servers).
RedisTarget TargetOfNode(const NodeRecord& n, Protocol p);
/// "host:port", as the engine names the node that answered (history Record::node).
std::string NodeAddress(const NodeRecord& n);
/// The index of the node named `name` in t.nodes(), or t.nodes().size().
size_t NodeIndex(const Topology& t, const std::string& name);

}  // namespace memstand
